// An article's ordinal looked up in flags (db/dialect-sql.ts ordinalFlagged): the walk that finds a
// filtered list's marks checks each article so. Members at the edges of bytes and of the article
// sets' chunks are found, others are not, and an ordinal past the last member reads as not one
// (PostgreSQL's get_bit refuses a bit past the end: the guard must hold).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { OrdinalSet } from '../../src/content/article-sets.ts';
import { ordinalFlagged } from '../../src/db/dialect-sql.ts';
import { describeEachDialect } from '../helpers.ts';

const members = [0, 7, 8, 9, 4095, 4096, 10_001];
const ordinals = [0, 1, 6, 7, 8, 9, 15, 16, 4094, 4095, 4096, 4097, 10_000, 10_001, 10_002, 10_008, 99_999];

describeEachDialect('ordinals looked up in flags', (ctx) => {
  test('finds the members and nothing else, past the end included', async () => {
    const rows = sql.join(
      ordinals.map((ordinal) => sql`select ${sql.lit(ordinal)} as ordinal`),
      sql` union all `,
    );
    const found = async (set: number[]) =>
      (
        await sql<{ ordinal: number | string }>`with articles as (${rows})
          select ordinal from articles where ${ordinalFlagged(ctx.dialect, OrdinalSet.of(set).flags())} order by ordinal`.execute(
          ctx.db.kysely,
        )
      ).rows.map((row) => Number(row.ordinal));
    assert.deepEqual(
      await found(members),
      ordinals.filter((ordinal) => members.includes(ordinal)),
    );
    // In any order; none at all.
    assert.deepEqual(await found([...members].reverse()), await found(members));
    assert.deepEqual(await found([]), []);
    assert.deepEqual(await found([99_999]), [99_999]);
  });
});
