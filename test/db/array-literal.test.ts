// The PostgreSQL array literals of the unnest parameters (db/dialect-sql.ts) are read back by
// PostgreSQL as the values they were built from: quotes, backslashes, braces, commas, the word
// NULL as text, empty strings, non-Latin text, integers and nulls.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { arrayLiteral, columnArrays } from '../../src/db/dialect-sql.ts';
import { createTestDatabase, postgresUrl } from '../helpers.ts';

const texts = [
  'plain',
  '',
  'NULL',
  'null',
  'a "quoted" word',
  'back\\slash and \\"both\\"',
  '{braces}, commas, and spaces ',
  ' leading space',
  'tab\there\nnewline',
  'émoji 🙂 and 中文',
  "it's",
  null,
];

test('array literals: elements quoted, escaped, and nulls bare', () => {
  assert.equal(arrayLiteral(['a"b\\c', '', null, 12, -3, 10n]), '{"a\\"b\\\\c","",NULL,12,-3,10}');
  assert.equal(arrayLiteral([]), '{}');
  assert.deepEqual(
    columnArrays(
      [
        { a: 'x', n: 1 },
        { a: null, n: 2 },
      ],
      ['a', 'n'],
    ),
    ['{"x",NULL}', '{1,2}'],
  );
  assert.throws(() => arrayLiteral([Number.NaN]), TypeError);
  assert.throws(() => arrayLiteral([{}]), TypeError);
});

test('PostgreSQL reads the array literals back as the values', { skip: postgresUrl === null }, async () => {
  const database = await createTestDatabase('postgres', { migrate: false });
  try {
    const numbers = [0, 1, -42, 9_007_199_254_740_991, null];
    const { rows } = await sql<{ t: string | null; n: string | null; i: number }>`
      select t, n::text, i::int from unnest(${arrayLiteral(texts)}::text[], ${arrayLiteral(numbers)}::bigint[])
        with ordinality as u(t, n, i) order by i`.execute(database.db.kysely);
    assert.deepEqual(
      rows.map((row) => row.t),
      [...texts],
    );
    assert.deepEqual(
      rows.slice(0, numbers.length).map((row) => row.n),
      numbers.map((number) => (number === null ? null : String(number))),
    );
  } finally {
    await database.drop();
  }
});
