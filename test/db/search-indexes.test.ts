// The indexes a search reads without visiting table rows (migration 0028): each sort index of the
// articles ends with the ordinal, so that a page found by the ordinals of its matches walks the
// index alone; on PostgreSQL the key of article_sets carries the members, so that a term's word
// sets are read by an index-only scan (SQLite keeps that table in its key's order already).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { describeEachDialect } from '../helpers.ts';

describeEachDialect('search indexes', (ctx) => {
  test('schema: the sort indexes of articles hold the ordinal, and the key of article_sets its members on PostgreSQL', async () => {
    const columnsOf = async (index: string): Promise<string[]> => {
      if (ctx.db.dialect === 'sqlite') {
        const { rows } = await sql<{
          name: string | null;
        }>`select name from pragma_index_xinfo(${index}) where key = 1 order by seqno`.execute(ctx.db.kysely);
        return rows.map((row) => row.name ?? '');
      }
      const { rows } = await sql<{
        definition: string;
      }>`select pg_get_indexdef(${index}::regclass) as definition`.execute(ctx.db.kysely);
      const [, key, included] = /\(([^)]*)\)(?: INCLUDE \(([^)]*)\))?$/.exec(rows[0].definition) ?? [];
      return [...key.split(', '), ...(included === undefined ? [] : included.split(', '))];
    };
    for (const column of ['created_at', 'updated_at', 'published_at', 'title_key'])
      assert.deepEqual(await columnsOf(`articles_project_${column}`), [
        'project_id',
        column,
        'id',
        'ordinal',
      ]);
    if (ctx.db.dialect === 'postgres')
      assert.deepEqual(await columnsOf('article_sets_pk'), ['project_id', 'set_key', 'chunk', 'members']);
  });
});
