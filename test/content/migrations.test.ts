// Migrations on a database made before them, on every configured database:
// - 0004: articles imported under 0001/0002 get their search text (title, excerpt, plain text) and
//   are found by it, no longer by their Markdown syntax;
// - 0008: view counts move to their own table, kept, and go on counting.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { type Kysely, Migrator } from 'kysely';
import { buildApp } from '../../src/app.ts';
import type { Db, DialectName } from '../../src/db/database.ts';
import { content } from '../../src/db/migrations/0001-content.ts';
import { analytics } from '../../src/db/migrations/0002-analytics.ts';
import { changeNotifications } from '../../src/db/migrations/0003-change-notifications.ts';
import { migrateToLatest, migrations } from '../../src/db/migrations/index.ts';
import { createApiKey, createProject } from '../../src/projects/service.ts';
import { track } from '../analytics/support.ts';
import { articleInput, configuredDialects, createTestDatabase, getJson, importArticles } from '../helpers.ts';
import { rollUpQueued } from '../../src/analytics/rollup-queue.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function emptyDatabase(dialect: DialectName): Promise<Db> {
  const database = await createTestDatabase(dialect, { migrate: false });
  cleanups.push(() => database.drop());
  return database.db;
}

for (const dialect of configuredDialects()) {
  test(`migration 0004 [${dialect}]: articles stored before it are searched by their plain text`, async () => {
    const db = await emptyDatabase(dialect);
    const before = new Migrator({
      db: db.kysely as Kysely<any>,
      provider: {
        getMigrations: async () => ({
          '0001-content': content(dialect),
          '0002-analytics': analytics(dialect),
          '0003-change-notifications': changeNotifications(dialect),
        }),
      },
    });
    const { error } = await before.migrateToLatest();
    assert.equal(error, undefined);
    const project = await createProject(db, { name: 'Old', slug: 'old', siteUrl: null });
    const now = new Date().toISOString();
    const base = {
      project_id: project.id,
      cover_image: null,
      status: 'published',
      published_at: now,
      created_at: now,
      updated_at: now,
      word_count: 1,
      character_count: 1,
      read_time_minutes: 1,
      summary: '',
      author_name: 'A',
      author_image: null,
      last_updated_by_name: null,
      last_updated_by_image: null,
      seo: null,
      storage_bytes: 1,
    };
    await (db.kysely as Kysely<any>)
      .insertInto('articles')
      .values([
        {
          ...base,
          id: 'a1',
          slug: 'one',
          title: 'Ancient Title',
          title_key: 'ancient title',
          excerpt: 'Storedexcerpt',
          content: 'Some **Bold** text, [a link](https://example.org/hiddenurl).',
          content_hash: '1',
        },
        {
          ...base,
          id: 'a2',
          slug: 'two',
          title: 'Other',
          title_key: 'other',
          excerpt: null,
          content: 'Nothing',
          content_hash: '2',
        },
      ])
      .execute();

    // Later migrations (0006 …) may follow; the ones already applied are not run again.
    const applied = await migrateToLatest(db);
    assert.equal(applied[0], '0004-search-text');
    assert.ok(
      applied.every((name) => name > '0002-analytics'),
      applied.join(', '),
    );
    const { key } = await createApiKey(db, 'old', { kind: 'secret' });
    const app = await buildApp({ db });
    cleanups.unshift(() => app.close());
    const slugs = async (search: string) => {
      const response = await getJson(app, `/v1/articles?search=${encodeURIComponent(search)}`, {
        'x-api-key': key,
      });
      assert.equal(response.status, 200, search);
      return response.body.data.map((article: { slug: string }) => article.slug).sort();
    };
    assert.deepEqual(await slugs('ancient'), ['one']);
    assert.deepEqual(await slugs('storedEXCERPT'), ['one']);
    assert.deepEqual(await slugs('bold text'), ['one']);
    assert.deepEqual(await slugs('a link'), ['one']);
    assert.deepEqual(await slugs('**'), []);
    assert.deepEqual(await slugs('hiddenurl'), []);
    assert.deepEqual(await slugs('o'), ['one', 'two']);
    assert.deepEqual(await slugs('nt'), ['one']);
    assert.deepEqual(await slugs('nothing'), ['two']);
  });
}

for (const dialect of configuredDialects()) {
  test(`migration 0008 [${dialect}]: view counts stored in articles are kept, sorted by and counted on`, async () => {
    const db = await emptyDatabase(dialect);
    const before = new Migrator({
      db: db.kysely as Kysely<any>,
      provider: {
        getMigrations: async () =>
          Object.fromEntries(
            Object.entries(migrations)
              .filter(([name]) => name < '0008')
              .map(([name, make]) => [name, make(dialect)]),
          ),
      },
    });
    assert.equal((await before.migrateToLatest()).error, undefined);
    const project = await createProject(db, { name: 'Old', slug: 'old', siteUrl: null });
    await importArticles(db, project, [
      articleInput({ slug: 'few' }),
      articleInput({ slug: 'many' }),
      articleInput({ slug: 'none' }),
    ]);
    for (const [slug, views] of [
      ['few', 3],
      ['many', 40],
    ] as const) {
      await (db.kysely as Kysely<any>)
        .updateTable('articles')
        .set({ view_count: views })
        .where('slug', '=', slug)
        .execute();
    }

    // Later migrations may follow in the same run.
    assert.equal((await migrateToLatest(db))[0], '0008-article-views');
    const { key } = await createApiKey(db, 'old', { kind: 'secret' });
    const headers = { 'x-api-key': key };
    const app = await buildApp({ db, viewCountLagMs: 0 });
    cleanups.unshift(() => app.close());
    const counts = async () => {
      const response = await getJson(app, '/v1/articles?sort=viewCount&order=desc', headers);
      assert.equal(response.status, 200);
      return response.body.data.map((article: { slug: string; viewCount: number }) => [
        article.slug,
        article.viewCount,
      ]);
    };
    assert.deepEqual(await counts(), [
      ['many', 40],
      ['few', 3],
      ['none', 0],
    ]);
    for (const slug of ['none', 'none', 'few']) {
      assert.equal((await track(app, { slug }, { headers })).statusCode, 201);
    }
    await rollUpQueued(db);
    assert.deepEqual(await counts(), [
      ['many', 40],
      ['few', 4],
      ['none', 2],
    ]);
    const stats = await getJson(app, '/v1/project', headers);
    assert.equal(stats.body.data.stats.totalViews, 46);
  });
}
