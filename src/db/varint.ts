// Integers as varints: zigzag LEB128, 7 bits a byte with the high bit set on all but the last, the
// sign in the lowest bit (0 → 0, -1 → 1, 1 → 2, …): one byte up to 63, two up to 8,191, three up
// to 1,048,575. Written in JavaScript (analytics/rollups/packed-counts.ts) and in SQL (folio_varint:
// a PostgreSQL function of migration 0043, a SQLite function of sqlite-connection.ts), byte for byte
// the same.

/** The largest magnitude written: its zigzag form, twice as large, is still an exact number. */
const largest = 2 ** 52;

/** Appends the varint of `value`, an integer of at most 2^52 either side of zero, to `bytes`. */
export function putVarint(bytes: number[], value: number): void {
  if (!Number.isInteger(value) || Math.abs(value) > largest) {
    throw new RangeError(`not an integer within ±2^52: ${value}`);
  }
  let rest = value >= 0 ? value * 2 : -value * 2 - 1;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
}

/** The varint of one integer. */
export function varint(value: number): Uint8Array {
  const bytes: number[] = [];
  putVarint(bytes, value);
  return Uint8Array.from(bytes);
}

/**
 * The numbers of a text of them (`9:1:1,10:2:2`: any of commas and colons between), each one's
 * varint in order; nothing for an empty text. How migration 0043 packs the counts it converts.
 */
export function varintsOfText(text: string): Uint8Array {
  const bytes: number[] = [];
  if (text !== '') for (const part of text.split(/[,:]/)) putVarint(bytes, Number(part));
  return Uint8Array.from(bytes);
}

/** Reads varints of `bytes` one after the other. */
export class VarintReader {
  readonly bytes: Uint8Array;
  #offset = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  get done(): boolean {
    return this.#offset >= this.bytes.length;
  }

  next(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.#offset >= this.bytes.length) throw new RangeError('the bytes end inside a varint');
      const byte = this.bytes[this.#offset++];
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
    }
    return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
  }
}
