// Counts by a small integer key (an hour of the day, a reading-time bucket), kept as bytes in an
// article's daily rollup row (migration 0043): for each key in ascending order, the key and then
// its counts, each a varint (db/varint.ts), without entries whose counts are all zero. A quiet
// article has a view or two a day; a row per hour or bucket cost more in row headers and index
// entries than the counts themselves, and the same counts as text (`key:count:count…,…`, before
// 0043) took nearly three times the bytes. The rebuild writes the same bytes from SQL
// (rebuild-rollups.ts, with folio_varint: a PostgreSQL function of migration 0043, a SQLite function
// of sqlite-connection.ts), so both must keep this canonical form.

import { putVarint, VarintReader } from '../../db/varint.ts';

/** The counts of each key; every array of one row's column has the same length. */
export type CountsByKey = Map<number, number[]>;

/** The counts of `bytes`, whose entries have `width` counts each. */
export function unpackCounts(bytes: Uint8Array, width: number): CountsByKey {
  const counts: CountsByKey = new Map();
  const reader = new VarintReader(bytes);
  while (!reader.done) {
    const key = reader.next();
    const values = new Array<number>(width);
    for (let index = 0; index < width; index++) values[index] = reader.next();
    counts.set(key, values);
  }
  return counts;
}

export function packCounts(counts: CountsByKey): Uint8Array {
  const bytes: number[] = [];
  for (const key of [...counts.keys()].sort((a, b) => a - b)) {
    const values = counts.get(key)!;
    if (values.every((value) => value === 0)) continue;
    putVarint(bytes, key);
    for (const value of values) putVarint(bytes, value);
  }
  return Uint8Array.from(bytes);
}

/** Adds `change` to `into`, key by key (`width` counts for a key new to `into`). */
export function addCounts(into: CountsByKey, change: CountsByKey, width: number, sign = 1): void {
  for (const [key, values] of change) {
    let sums = into.get(key);
    if (sums === undefined) {
      sums = new Array<number>(width).fill(0);
      into.set(key, sums);
    }
    for (let index = 0; index < width; index++) sums[index] += sign * (values[index] ?? 0);
  }
}

/** The stored bytes with `change` added. */
export function addToPacked(stored: Uint8Array, change: CountsByKey, width: number): Uint8Array {
  const counts = unpackCounts(stored, width);
  addCounts(counts, change, width);
  return packCounts(counts);
}

/** Hours: views, distinct visitors, time on page (ms) and scroll depth (centi) of the hour. */
export const hourWidth = 4;
/** Reading-time buckets: views, and deep views (those that reached 90% of the text). */
export const readTimeWidth = 2;
