// GET /v1/seo/sitemap through the HTTP surface: a sitemaps.org document that xmllint validates
// against the protocol's XSD, paging with a `Link: rel="next"` header, the JSON variant, ETags.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { bumpContentVersion } from '../../src/projects/queries.ts';
import {
  articleInput,
  createTestDatabase,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  type TestDatabase,
} from '../helpers.ts';
import { insertPublishedArticles } from './bulk-articles.ts';
import { sitemapXsd, xmllint, xmlParser } from './xml-tools.ts';

const xmlType = 'application/xml; charset=utf-8';

function publishedOn(slug: string, day: number) {
  const date = `2026-01-${String(day).padStart(2, '0')}T10:00:00.000Z`;
  return articleInput({
    slug,
    publishedAt: date,
    updatedAt: `2026-02-${String(day).padStart(2, '0')}T00:00:00.000Z`,
  });
}

function locs(xml: string): string[] {
  const urlset = xmlParser.parse(xml).urlset;
  return (urlset.url ?? []).map((url: { loc: string }) => url.loc);
}

describeEachDialect(
  'seo sitemap (3 URLs per document)',
  (ctx) => {
    test('sitemap: an XML urlset of the published articles, newest first, valid against the sitemaps.org XSD', async () => {
      const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com/' });
      await importArticles(ctx.db, project, [
        publishedOn('first', 1),
        publishedOn('second', 2),
        articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
        articleInput({ slug: 'scheduled', publishedAt: '2999-01-01T00:00:00.000Z' }),
        articleInput({ slug: 'archived', status: 'archived' }),
      ]);
      const response = await ctx.app.inject({ url: '/v1/seo/sitemap', headers });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], xmlType);
      assert.equal(response.headers.link, undefined);
      assert.equal(
        response.body,
        '<?xml version="1.0" encoding="UTF-8"?>\n' +
          '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
          '<url><loc>https://blog.example.com/second</loc><lastmod>2026-02-02T00:00:00.000Z</lastmod></url>\n' +
          '<url><loc>https://blog.example.com/first</loc><lastmod>2026-02-01T00:00:00.000Z</lastmod></url>\n' +
          '</urlset>\n',
      );
      const lint = xmllint(response.body, ['--schema', sitemapXsd]);
      assert.ok(lint.ok, lint.errors);
    });

    test('sitemap: the XSD check can fail (a document without loc is refused)', () => {
      const broken =
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><lastmod>2026-01-01</lastmod></url></urlset>';
      assert.equal(xmllint(broken, ['--schema', sitemapXsd]).ok, false);
    });

    test('sitemap: pages of 3 URLs, each announcing the next with Link rel="next"; past the end an empty urlset', async () => {
      const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
      await importArticles(
        ctx.db,
        project,
        [1, 2, 3, 4, 5, 6, 7].map((day) => publishedOn(`day-${day}`, day)),
      );
      const pages: string[][] = [];
      const links: Array<string | undefined> = [];
      for (const page of [1, 2, 3, 4]) {
        const response = await ctx.app.inject({
          url: page === 1 ? '/v1/seo/sitemap' : `/v1/seo/sitemap?page=${page}`,
          headers,
        });
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['content-type'], xmlType);
        assert.ok(xmllint(response.body).ok);
        if (page <= 3) assert.ok(xmllint(response.body, ['--schema', sitemapXsd]).ok);
        pages.push(locs(response.body));
        links.push(response.headers.link as string | undefined);
      }
      const url = (day: number) => `https://blog.example.com/day-${day}`;
      assert.deepEqual(pages, [[url(7), url(6), url(5)], [url(4), url(3), url(2)], [url(1)], []]);
      assert.deepEqual(links, [
        '</v1/seo/sitemap?page=2>; rel="next"',
        '</v1/seo/sitemap?page=3>; rel="next"',
        undefined,
        undefined,
      ]);
      const cached = await ctx.app.inject({ url: '/v1/seo/sitemap', headers });
      assert.equal(
        cached.headers.link,
        '</v1/seo/sitemap?page=2>; rel="next"',
        'a cached answer keeps its Link header',
      );
    });

    test('newest first: published articles without a publishedAt follow the dated ones, by id, in sitemap, RSS and structured data', async () => {
      const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
      await importArticles(ctx.db, project, [
        publishedOn('d-1', 1),
        publishedOn('d-2', 2),
        publishedOn('d-3', 3),
        ...['u-1', 'u-2', 'u-3', 'u-4'].map((slug) => articleInput({ slug })),
      ]);
      // The import dates every published article; older data or other writers may not.
      await ctx.db.kysely
        .updateTable('articles')
        .set({ published_at: null })
        .where('project_id', '=', project.id)
        .where('slug', 'like', 'u-%')
        .execute();
      await bumpContentVersion(ctx.db.kysely, project.id);
      const undated = (
        await ctx.db.kysely
          .selectFrom('articles')
          .select(['id', 'slug'])
          .where('project_id', '=', project.id)
          .where('slug', 'like', 'u-%')
          .execute()
      )
        .sort((a, b) => (a.id < b.id ? 1 : -1))
        .map((row) => row.slug);
      const expected = ['d-3', 'd-2', 'd-1', ...undated];

      const sitemapSlugs: string[] = [];
      for (const page of [1, 2, 3, 4]) {
        const { body } = await getJson(ctx.app, `/v1/seo/sitemap?format=json&page=${page}`, headers);
        assert.equal(body.meta.totalPages, 3);
        sitemapSlugs.push(
          ...body.data.urls.map((url: { loc: string }) => url.loc.replace('https://blog.example.com/', '')),
        );
      }
      assert.deepEqual(sitemapSlugs, expected);

      const rss = await ctx.app.inject({ url: '/v1/seo/rss', headers });
      const items = xmlParser.parse(rss.body).rss.channel.item as Array<{ link: string; pubDate: string }>;
      assert.deepEqual(
        items.map((item) => item.link.replace('https://blog.example.com/', '')),
        expected,
      );
      assert.equal(items[3].pubDate, 'Thu, 01 Jan 2026 00:00:00 GMT', 'an undated item shows its updatedAt');
      const limited = await ctx.app.inject({ url: '/v1/seo/rss?limit=4', headers });
      assert.deepEqual(
        (xmlParser.parse(limited.body).rss.channel.item as Array<{ link: string }>).map((item) =>
          item.link.replace('https://blog.example.com/', ''),
        ),
        expected.slice(0, 4),
      );

      const structured = await getJson(ctx.app, '/v1/seo/structured-data', headers);
      assert.deepEqual(
        structured.body.data.articles.map((article: { slug: string }) => article.slug),
        expected,
      );
    });

    test('sitemap: the next link keeps the other parameters', async () => {
      const { project, headers } = await createTestProject(ctx.db);
      await importArticles(
        ctx.db,
        project,
        [1, 2, 3, 4].map((day) => publishedOn(`p-${day}`, day)),
      );
      const { status, headers: answer } = await getJson(
        ctx.app,
        '/v1/seo/sitemap?format=json&baseUrl=https%3A%2F%2Fx.example.com%2Fblog',
        headers,
      );
      assert.equal(status, 200);
      assert.equal(
        answer.link,
        '</v1/seo/sitemap?format=json&baseUrl=https%3A%2F%2Fx.example.com%2Fblog&page=2>; rel="next"',
      );
    });

    test('sitemap: format=json gives the same URLs with page and totalPages', async () => {
      const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
      await importArticles(
        ctx.db,
        project,
        [1, 2, 3, 4].map((day) => publishedOn(`j-${day}`, day)),
      );
      const first = await getJson(ctx.app, '/v1/seo/sitemap?format=json', headers);
      assert.equal(first.status, 200);
      assert.equal(first.headers['content-type'], 'application/json; charset=utf-8');
      assert.deepEqual(first.body, {
        data: {
          urls: [
            { loc: 'https://blog.example.com/j-4', lastmod: '2026-02-04T00:00:00.000Z' },
            { loc: 'https://blog.example.com/j-3', lastmod: '2026-02-03T00:00:00.000Z' },
            { loc: 'https://blog.example.com/j-2', lastmod: '2026-02-02T00:00:00.000Z' },
          ],
        },
        meta: { page: 1, totalPages: 2 },
      });
      assert.equal(first.headers.link, '</v1/seo/sitemap?format=json&page=2>; rel="next"');
      const second = await getJson(ctx.app, '/v1/seo/sitemap?format=json&page=2', headers);
      assert.deepEqual(second.body, {
        data: { urls: [{ loc: 'https://blog.example.com/j-1', lastmod: '2026-02-01T00:00:00.000Z' }] },
        meta: { page: 2, totalPages: 2 },
      });
      const past = await getJson(ctx.app, '/v1/seo/sitemap?format=json&page=9', headers);
      assert.deepEqual(past.body, { data: { urls: [] }, meta: { page: 9, totalPages: 2 } });
      const xml = await ctx.app.inject({ url: '/v1/seo/sitemap?format=xml', headers });
      assert.deepEqual(
        locs(xml.body),
        first.body.data.urls.map((url: { loc: string }) => url.loc),
      );
    });

    test('sitemap: a project without published articles has an empty, well-formed page 1 and totalPages 0', async () => {
      const { headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
      const xml = await ctx.app.inject({ url: '/v1/seo/sitemap', headers });
      assert.equal(xml.statusCode, 200);
      assert.equal(
        xml.body,
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n</urlset>\n',
      );
      const json = await getJson(ctx.app, '/v1/seo/sitemap?format=json', headers);
      assert.deepEqual(json.body, { data: { urls: [] }, meta: { page: 1, totalPages: 0 } });
    });

    test('sitemap: the XML answer has an ETag, a matching If-None-Match gets 304, and a change gives a new ETag', async () => {
      const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
      await importArticles(ctx.db, project, [publishedOn('a', 1)]);
      const first = await ctx.app.inject({ url: '/v1/seo/sitemap', headers });
      const etag = first.headers.etag as string;
      assert.match(etag, /^"[\w-]+"$/);
      assert.equal(first.headers['cache-control'], 'private, no-cache');
      const cached = await ctx.app.inject({
        url: '/v1/seo/sitemap',
        headers: { ...headers, 'if-none-match': etag },
      });
      assert.equal(cached.statusCode, 304);
      assert.equal(cached.body, '');
      await importArticles(ctx.db, project, [publishedOn('a', 1), publishedOn('b', 2)]);
      const changed = await ctx.app.inject({
        url: '/v1/seo/sitemap',
        headers: { ...headers, 'if-none-match': etag },
      });
      assert.equal(changed.statusCode, 200);
      assert.notEqual(changed.headers.etag, etag);
      assert.equal(locs(changed.body).length, 2);
    });

    test('sitemap: malformed page and format are 400s naming each field; errors stay JSON', async () => {
      const { headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
      const cases: Array<[string, Array<{ field: string; message: string }>]> = [
        ['page=0', [{ field: 'page', message: 'must be an integer from 1 to 1000000' }]],
        ['page=-1', [{ field: 'page', message: 'must be an integer from 1 to 1000000' }]],
        ['page=1.5', [{ field: 'page', message: 'must be an integer from 1 to 1000000' }]],
        ['page=abc', [{ field: 'page', message: 'must be an integer from 1 to 1000000' }]],
        ['page=', [{ field: 'page', message: 'must be an integer from 1 to 1000000' }]],
        ['page=1000001', [{ field: 'page', message: 'must be an integer from 1 to 1000000' }]],
        ['format=yaml', [{ field: 'format', message: 'must be one of: xml, json' }]],
        ['format=XML', [{ field: 'format', message: 'must be one of: xml, json' }]],
        [
          'page=0&format=rss',
          [
            { field: 'page', message: 'must be an integer from 1 to 1000000' },
            { field: 'format', message: 'must be one of: xml, json' },
          ],
        ],
      ];
      for (const [query, issues] of cases) {
        const response = await ctx.app.inject({ url: `/v1/seo/sitemap?${query}`, headers });
        assert.equal(response.statusCode, 400, query);
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
        const body = response.json();
        assert.equal(body.error, 'Bad Request');
        assert.deepEqual(body.details, { issues }, query);
      }
    });
  },
  { sitemapPageSize: 3 },
);

// The real default, on SQLite only: 50,001 rows take seconds to insert, and the paging itself is
// the same SQL on both databases, which the suite above covers with 3 URLs per document.
describe('seo sitemap (default size) [sqlite]', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  before(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildApp({ db: database.db });
  });
  after(async () => {
    await app?.close();
    await database?.drop();
  });

  test('sitemap: a document holds at most 50,000 URLs by default; the 50,001st is on page 2', async () => {
    const { project, headers } = await createTestProject(database.db, {
      siteUrl: 'https://blog.example.com',
    });
    await insertPublishedArticles(database.db, project, 50_001);
    const first = await app.inject({ url: '/v1/seo/sitemap', headers });
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers.link, '</v1/seo/sitemap?page=2>; rel="next"');
    const lint = xmllint(first.body, ['--schema', sitemapXsd]);
    assert.ok(lint.ok, lint.errors.slice(0, 1000));
    // A regular expression is enough once xmllint has validated the document, and far faster than a parser.
    const urls = [...first.body.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]);
    assert.equal(urls.length, 50_000);
    assert.equal(urls[0], 'https://blog.example.com/bulk-50000');
    assert.equal(urls[49_999], 'https://blog.example.com/bulk-1');
    const second = await getJson(app, '/v1/seo/sitemap?page=2&format=json', headers);
    assert.deepEqual(second.body, {
      data: { urls: [{ loc: 'https://blog.example.com/bulk-0', lastmod: '2020-01-01T00:00:00.000Z' }] },
      meta: { page: 2, totalPages: 2 },
    });
    assert.equal(second.headers.link, undefined);
  });
});
