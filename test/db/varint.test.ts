// Integers as varints (db/varint.ts): the bytes of an article day's packed counts, written by the
// roll-ups in JavaScript and by the rebuild in SQL (folio_varint), which must agree byte for byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { putVarint, varint, VarintReader, varintsOfText } from '../../src/db/varint.ts';
import { hourWidth, packCounts, unpackCounts } from '../../src/analytics/rollups/packed-counts.ts';
import { describeEachDialect } from '../helpers.ts';

/** Values at every byte boundary of the zigzag form, both signs, and the largest safe integers. */
const values = [
  0,
  -1,
  1,
  63,
  -64,
  64,
  -65,
  8191,
  8192,
  1_048_575,
  1_048_576,
  -1_048_577,
  2 ** 31,
  6_000_000_000,
  -6_000_000_000,
  2 ** 52 - 1,
  2 ** 52,
  -(2 ** 52),
];

test('varints: the sign in the lowest bit, 7 bits a byte, low bits first', () => {
  assert.deepEqual([...varint(0)], [0]);
  assert.deepEqual([...varint(-1)], [1]);
  assert.deepEqual([...varint(1)], [2]);
  assert.deepEqual([...varint(63)], [126]);
  assert.deepEqual([...varint(64)], [0x80, 0x01]);
  assert.deepEqual([...varint(8191)], [0xfe, 0x7f]);
  assert.deepEqual([...varint(8192)], [0x80, 0x80, 0x01]);
  const sizes = values.map((value) => varint(value).length);
  assert.deepEqual(sizes, [1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 5, 8, 8, 8]);
});

test('varints read back as written, one after the other', () => {
  const bytes: number[] = [];
  for (const value of values) putVarint(bytes, value);
  const reader = new VarintReader(Uint8Array.from(bytes));
  const read: number[] = [];
  while (!reader.done) read.push(reader.next());
  assert.deepEqual(read, values);
  assert.throws(() => new VarintReader(Uint8Array.of(0x80)).next(), RangeError);
  assert.throws(() => varint(1.5), RangeError);
  assert.throws(() => varint(2 ** 52 + 1), RangeError);
  assert.throws(() => varint(Number.NaN), RangeError);
});

test('packed counts: entries in key order, all-zero entries left out, read back by their width', () => {
  const counts = new Map([
    [23, [300, 200, 6_000_000_000, 10_000]],
    [3, [1, 1, 41_250, 8_000]],
    [12, [0, 0, 0, 0]],
    [0, [2, -1, 0, 5]],
  ]);
  const packed = packCounts(counts);
  assert.deepEqual(
    [...unpackCounts(packed, hourWidth)],
    [
      [0, [2, -1, 0, 5]],
      [3, [1, 1, 41_250, 8_000]],
      [23, [300, 200, 6_000_000_000, 10_000]],
    ],
  );
  // The same bytes as the text's numbers in order, as migration 0043 packs them.
  assert.deepEqual(
    [...packed],
    [...varintsOfText('0:2:-1:0:5,3:1:1:41250:8000,23:300:200:6000000000:10000')],
  );
  assert.equal(varintsOfText('').length, 0);
  assert.equal(packCounts(new Map()).length, 0);
});

describeEachDialect('folio_varint', (ctx) => {
  test('the SQL varint of an integer is the one JavaScript writes', async () => {
    for (const value of values) {
      const { rows } = await sql<{ bytes: Uint8Array }>`select folio_varint(${sql.raw(
        String(value),
      )}) as bytes`.execute(ctx.db.kysely);
      assert.deepEqual([...rows[0].bytes], [...varint(value)], String(value));
    }
  });
});
