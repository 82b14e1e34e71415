// The indexes a search reads without visiting table rows (migration 0028): each sort index of the
// articles ends with the ordinal, so that a page found by the ordinals of its matches walks the
// index alone; on PostgreSQL the key of article_sets carries the members, so that a term's word
// sets are read by an index-only scan (SQLite keeps that table in its key's order already).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  migrateBefore,
} from '../helpers.ts';

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

for (const dialect of configuredDialects()) {
  test(`migration 0028 [${dialect}]: articles and sets stored before it are listed, searched and counted the same after`, async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    try {
      const { db } = database;
      await migrateBefore(db, '0028-search-reads');
      const p = await createTestProject(db);
      await importArticles(
        db,
        p.project,
        Array.from({ length: 40 }, (_, i) =>
          articleInput({
            slug: `before-${String(i).padStart(2, '0')}`,
            content: i % 3 === 0 ? 'a nation of words' : 'plain words',
            createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
          }),
        ),
      );
      const setRows = async () =>
        (
          await db.kysely
            .selectFrom('article_sets')
            .select(['set_key', 'chunk', 'members'])
            .orderBy('set_key')
            .orderBy('chunk')
            .execute()
        ).map((row) => `${row.set_key} ${row.chunk} ${Buffer.from(row.members).toString('hex')}`);
      const sets = await setRows();
      // A new app after the migration: its answer cache knows nothing of the answers before.
      const answers = async () => {
        const app = await buildApp({ db });
        try {
          return await Promise.all(
            ['limit=5&page=3', 'search=tion&limit=3&page=2', 'sort=title&order=desc&limit=4&page=6'].map(
              async (query) => (await getJson(app, `/v1/articles?${query}`, p.headers)).body,
            ),
          );
        } finally {
          await app.close();
        }
      };
      const before = await answers();
      assert.equal(before[1].meta.total, 14);
      assert.equal((await migrateToLatest(db))[0], '0028-search-reads');
      assert.deepEqual(await setRows(), sets);
      assert.deepEqual(await answers(), before);
    } finally {
      await database.drop();
    }
  });
}
