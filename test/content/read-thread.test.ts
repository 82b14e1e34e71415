// The reads that go over every article of a project run in SQLite's read thread, not on the event
// loop: at 100,000 articles counting them for the project endpoint took 0.5 to 1.7 s, the tag
// list's counts 80 to 170 ms and a sitemap's rows 230 ms, during which every other request of the
// server waited.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CompiledQuery } from 'kysely';
import { buildApp } from '../../src/app.ts';
import type { Db } from '../../src/db/database.ts';
import {
  articleInput,
  createTestDatabase,
  createTestProject,
  getJson,
  importArticles,
  type TestDatabase,
} from '../helpers.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('sqlite');
});
after(async () => {
  await database.drop();
});

test('the project’s counts, the tag list’s counts and a sitemap’s rows are read in the read thread [sqlite]', async () => {
  const { project, headers } = await createTestProject(database.db);
  await importArticles(database.db, project, [
    articleInput({ slug: 'a', tags: ['news'] }),
    articleInput({ slug: 'b', tags: ['news', 'notes'], status: 'draft' }),
  ]);
  const offThread: string[] = [];
  const db: Db = {
    ...database.db,
    readOffThread: <R>(query: CompiledQuery<R>, lane?: 'search' | 'list') => {
      offThread.push(query.sql);
      return database.db.readOffThread(query, lane);
    },
  };
  const app = await buildApp({ db });
  try {
    const info = await getJson(app, '/v1/project', headers);
    assert.equal(info.status, 200);
    assert.equal(info.body.data.stats.totalArticles, 2);
    assert.ok(
      offThread.some((text) => text.includes('storage_bytes')),
      offThread.join('\n'),
    );
    offThread.length = 0;
    const tags = await getJson(app, '/v1/tags', headers);
    assert.equal(tags.status, 200);
    assert.deepEqual(
      tags.body.data.map((tag: { name: string; articleCount: number }) => [tag.name, tag.articleCount]),
      [
        ['news', 2],
        ['notes', 1],
      ],
    );
    assert.ok(
      offThread.some((text) => text.includes('article_sets')),
      offThread.join('\n'),
    );
    offThread.length = 0;
    const sitemap = await app.inject({
      method: 'GET',
      url: '/v1/seo/sitemap?baseUrl=https://blog.example.com',
      headers,
    });
    assert.equal(sitemap.statusCode, 200, sitemap.body);
    assert.match(sitemap.body, /<loc>https:\/\/blog\.example\.com\/a<\/loc>/);
    assert.doesNotMatch(sitemap.body, /example\.com\/b</);
    assert.ok(
      offThread.some((text) => text.includes('updated_at')),
      offThread.join('\n'),
    );
  } finally {
    await app.close();
  }
});
