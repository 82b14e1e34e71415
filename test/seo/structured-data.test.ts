// GET /v1/seo/structured-data beyond its content (article-seo.test.ts): the unpaged answer streamed
// in batches equals every page put together, paging with `page`/`limit`, `meta` and
// `Link: rel="next"`, their 400s, and the ETag/304 of the streamed answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bumpContentVersion } from '../../src/projects/queries.ts';
import { articleInput, createTestProject, describeEachDialect, getJson, importArticles } from '../helpers.ts';
import { insertPublishedArticles } from './bulk-articles.ts';

const endpoint = '/v1/seo/structured-data';
const slugsOf = (body: any): string[] => body.data.articles.map((article: { slug: string }) => article.slug);

describeEachDialect('seo structured data: streaming and pages', (ctx) => {
  /**
   * 2,300 published articles (more than two batches of the stream), some sharing a publishedAt
   * across the first batch boundary, some published without a date, plus a draft and a scheduled
   * one that must not appear.
   */
  async function bigProject() {
    const p = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await insertPublishedArticles(ctx.db, p.project, 2300);
    const ids = (n: number) => `${p.project.id}-${String(n).padStart(6, '0')}`;
    const tied = Array.from({ length: 30 }, (_, k) => ids(1285 + k));
    await ctx.db.kysely
      .updateTable('articles')
      .set({ published_at: '2020-01-01T00:21:40.000Z' })
      .where('id', 'in', tied)
      .execute();
    await ctx.db.kysely
      .updateTable('articles')
      .set({ published_at: null })
      .where('id', 'in', [ids(5), ids(6), ids(7)])
      .execute();
    await importArticles(ctx.db, p.project, [
      articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'scheduled', publishedAt: '2999-01-01T00:00:00.000Z' }),
    ]);
    await bumpContentVersion(ctx.db.kysely, p.project.id);
    // The expected order: newest publishedAt first, ties by id descending, undated last by id descending.
    const rows = await ctx.db.kysely
      .selectFrom('articles')
      .select(['id', 'slug', 'published_at'])
      .where('project_id', '=', p.project.id)
      .where('status', '=', 'published')
      .execute();
    const expected = rows
      .filter((row) => row.published_at === null || row.published_at <= new Date().toISOString())
      .sort((a, b) => {
        if (a.published_at !== b.published_at) {
          if (a.published_at === null) return 1;
          if (b.published_at === null) return -1;
          return a.published_at < b.published_at ? 1 : -1;
        }
        return a.id < b.id ? 1 : -1;
      })
      .map((row) => row.slug);
    return { ...p, expected };
  }

  test('structured-data: the unpaged stream holds every published article once, in order, equal to the pages', async () => {
    const { headers, expected } = await bigProject();
    assert.equal(expected.length, 2300);
    const whole = await ctx.app.inject({ url: endpoint, headers });
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(whole.headers.link, undefined);
    const body = whole.json();
    assert.deepEqual(Object.keys(body), ['data']);
    assert.deepEqual(slugsOf(body), expected);

    const pages: any[] = [];
    for (let page = 1; page <= 4; page++) {
      const response = await getJson(ctx.app, `${endpoint}?limit=700&page=${page}`, headers);
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.meta, { page, limit: 700, total: 2300, totalPages: 4 });
      pages.push(...response.body.data.articles);
    }
    assert.deepEqual(
      pages.map((article) => article.slug),
      expected,
    );
    // Same JSON-LD in both forms.
    assert.deepEqual(pages, body.data.articles);
    assert.deepEqual(
      body.data.project,
      (await getJson(ctx.app, `${endpoint}?limit=1`, headers)).body.data.project,
    );
  });

  test('structured-data: pages carry meta and Link rel="next" until the last; past the end is empty', async () => {
    const p = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await insertPublishedArticles(ctx.db, p.project, 5);
    const first = await ctx.app.inject({
      url: `${endpoint}?limit=2&baseUrl=https://x.example`,
      headers: p.headers,
    });
    assert.equal(first.statusCode, 200);
    assert.equal(
      first.headers.link,
      `</v1/seo/structured-data?limit=2&baseUrl=https%3A%2F%2Fx.example&page=2>; rel="next"`,
    );
    assert.deepEqual(first.json().meta, { page: 1, limit: 2, total: 5, totalPages: 3 });
    assert.deepEqual(slugsOf(first.json()), ['bulk-4', 'bulk-3']);
    assert.equal(first.json().data.articles[0].structuredData.url, 'https://x.example/bulk-4');

    const second = await ctx.app.inject({ url: `${endpoint}?limit=2&page=2`, headers: p.headers });
    assert.equal(second.headers.link, `</v1/seo/structured-data?limit=2&page=3>; rel="next"`);
    assert.deepEqual(slugsOf(second.json()), ['bulk-2', 'bulk-1']);
    const last = await ctx.app.inject({ url: `${endpoint}?limit=2&page=3`, headers: p.headers });
    assert.equal(last.headers.link, undefined);
    assert.deepEqual(slugsOf(last.json()), ['bulk-0']);
    const past = await getJson(ctx.app, `${endpoint}?limit=2&page=9`, p.headers);
    assert.equal(past.status, 200);
    assert.deepEqual(past.body.data.articles, []);
    assert.deepEqual(past.body.meta, { page: 9, limit: 2, total: 5, totalPages: 3 });

    // `page` alone pages by 1,000.
    const alone = await getJson(ctx.app, `${endpoint}?page=1`, p.headers);
    assert.deepEqual(alone.body.meta, { page: 1, limit: 1000, total: 5, totalPages: 1 });
    assert.equal(alone.body.data.articles.length, 5);
  });

  test('structured-data: page and limit out of range or not integers are a 400 naming them', async () => {
    const p = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    for (const [query, field] of [
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=abc', 'page'],
      ['page=1000001', 'page'],
      ['limit=0', 'limit'],
      ['limit=5001', 'limit'],
      ['limit=x', 'limit'],
      ['limit=', 'limit'],
    ]) {
      const response = await getJson(ctx.app, `${endpoint}?${query}`, p.headers);
      assert.equal(response.status, 400, query);
      assert.equal(response.body.error, 'Bad Request');
      assert.deepEqual(
        response.body.details.issues.map((issue: { field: string }) => issue.field),
        [field],
        query,
      );
    }
    assert.equal((await getJson(ctx.app, `${endpoint}?limit=5000&page=1000000`, p.headers)).status, 200);
  });

  test('structured-data: the streamed answer is 304 for its ETag until the content or the published set changes', async () => {
    const p = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, p.project, [
      articleInput({ slug: 'one' }),
      articleInput({ slug: 'later', publishedAt: '2999-01-01T00:00:00.000Z' }),
    ]);
    const first = await ctx.app.inject({ url: endpoint, headers: p.headers });
    const etag = first.headers.etag as string;
    assert.match(etag, /^W\/"[\w-]+"$/);
    const revalidate = (tag: string, url = endpoint) =>
      ctx.app.inject({ url, headers: { ...p.headers, 'if-none-match': tag } });

    const same = await revalidate(etag);
    assert.equal(same.statusCode, 304);
    assert.equal(same.body, '');
    assert.equal(same.headers.etag, etag);
    assert.equal((await revalidate(etag.slice(2))).statusCode, 304, 'a strong form of the tag matches too');
    assert.equal((await revalidate(`"other", ${etag}`)).statusCode, 304);
    assert.equal((await revalidate('"other"')).statusCode, 200);
    // Another baseUrl is another document.
    assert.equal((await revalidate(etag, `${endpoint}?baseUrl=https://x.example`)).statusCode, 200);

    // The scheduled article goes live (no content write): a new published set, a new ETag.
    await ctx.db.kysely
      .updateTable('articles')
      .set({ published_at: '2026-01-02T00:00:00.000Z' })
      .where('project_id', '=', p.project.id)
      .where('slug', '=', 'later')
      .execute();
    const live = await revalidate(etag);
    assert.equal(live.statusCode, 200);
    assert.deepEqual(slugsOf(live.json()), ['later', 'one']);
    const liveTag = live.headers.etag as string;
    assert.notEqual(liveTag, etag);

    // A content change through the import.
    await importArticles(ctx.db, p.project, [
      articleInput({ slug: 'one', title: 'Changed' }),
      articleInput({ slug: 'later', publishedAt: '2026-01-02T00:00:00.000Z' }),
    ]);
    const changed = await revalidate(liveTag);
    assert.equal(changed.statusCode, 200);
    assert.equal(changed.json().data.articles[1].structuredData.headline, 'Changed');
  });
});
