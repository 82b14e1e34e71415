// Counts by a small integer key (an hour of the day, a reading-time bucket), kept as text in an
// article's daily rollup row: `key:count:count…` entries joined by commas, in ascending key order,
// without entries whose counts are all zero. A quiet article has a view or two a day; a row per
// hour or bucket cost more in row headers and index entries than the counts themselves. The
// rebuild writes the same text from SQL (rebuild-rollups.ts), so both must keep this canonical form.

/** The counts of each key; every array of one text has the same length. */
export type CountsByKey = Map<number, number[]>;

export function unpackCounts(text: string): CountsByKey {
  const counts: CountsByKey = new Map();
  if (text === '') return counts;
  for (const entry of text.split(',')) {
    const [key, ...values] = entry.split(':').map(Number);
    counts.set(key, values);
  }
  return counts;
}

export function packCounts(counts: CountsByKey): string {
  return [...counts.keys()]
    .sort((a, b) => a - b)
    .filter((key) => counts.get(key)!.some((value) => value !== 0))
    .map((key) => `${key}:${counts.get(key)!.join(':')}`)
    .join(',');
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

/** The stored text with `change` added. */
export function addToPacked(stored: string, change: CountsByKey, width: number): string {
  const counts = unpackCounts(stored);
  addCounts(counts, change, width);
  return packCounts(counts);
}

/** Hours: views, distinct visitors, time on page (ms) and scroll depth (centi) of the hour. */
export const hourWidth = 4;
/** Reading-time buckets: views, and deep views (those that reached 90% of the text). */
export const readTimeWidth = 2;
