// Public keys read published content: for them drafts, scheduled and archived
// articles do not exist, on every content and SEO GET, in every count; browsers get CORS headers,
// error answers included; secret keys are unchanged, and a cached answer never crosses key kinds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  setViewCount,
} from '../helpers.ts';

const future = '2999-01-01T00:00:00.000Z';

describeEachDialect('public keys read published content', (ctx) => {
  async function blog(origins?: string[]) {
    const secret = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(
      ctx.db,
      secret.project,
      [
        articleInput({ slug: 'live', tags: ['news'], publishedAt: '2026-01-02T00:00:00.000Z' }),
        articleInput({ slug: 'also-live', tags: ['news', 'misc'] }),
        articleInput({ slug: 'draft', status: 'draft', publishedAt: null, tags: ['news', 'secret'] }),
        articleInput({ slug: 'scheduled', publishedAt: future, tags: ['news'] }),
        articleInput({ slug: 'archived', status: 'archived', tags: ['news'] }),
      ],
      [{ name: 'secret', color: null, icon: null }],
    );
    for (const [slug, views] of [
      ['live', 3],
      ['also-live', 4],
      ['draft', 100],
      ['scheduled', 200],
      ['archived', 300],
    ] as const) {
      await setViewCount(ctx.db, secret.project.id, slug, views);
    }
    const publicKey = await createTestKey(ctx.db, secret.project, { kind: 'public', origins });
    return { secret: secret.headers, pub: publicKey.headers };
  }

  const slugsOf = (body: { data: Array<{ slug: string }> }) => body.data.map((a) => a.slug).sort();

  test('list: only published articles, counted alone; a secret key still sees every status', async () => {
    const { secret, pub } = await blog();
    const listed = await getJson(ctx.app, '/v1/articles?select=%7B%22status%22%3Atrue%7D', pub);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(slugsOf(listed.body), ['also-live', 'live']);
    assert.equal(listed.body.meta.total, 2);
    assert.ok(listed.body.data.every((a: { status: string }) => a.status === 'published'));
    for (const query of ['status=published', 'published=true', 'tags=news', 'search=Body']) {
      const filtered = await getJson(ctx.app, `/v1/articles?${query}`, pub);
      assert.equal(filtered.status, 200, query);
      assert.equal(filtered.body.meta.total, 2, query);
    }
    assert.equal((await getJson(ctx.app, '/v1/articles?tags=secret', pub)).body.meta.total, 0);
    const all = await getJson(ctx.app, '/v1/articles', secret);
    assert.equal(all.body.meta.total, 5);
    assert.equal((await getJson(ctx.app, '/v1/articles?status=draft', secret)).body.meta.total, 1);
  });

  test('list: status other than published, or published=false, is a 400 naming it', async () => {
    const { pub } = await blog();
    for (const status of ['draft', 'scheduled', 'archived']) {
      const response = await getJson(ctx.app, `/v1/articles?status=${status}`, pub);
      assert.equal(response.status, 400, status);
      assert.deepEqual(response.body.details.issues, [
        { field: 'status', message: 'must be published: a public key reads only published articles' },
      ]);
    }
    const unpublished = await getJson(ctx.app, '/v1/articles?published=false', pub);
    assert.equal(unpublished.status, 400);
    assert.equal(unpublished.body.details.issues[0].field, 'published');
  });

  test('single article and its SEO metadata: drafts, scheduled and archived are 404 for a public key', async () => {
    const { secret, pub } = await blog();
    for (const prefix of ['/v1/articles/', '/v1/seo/article/']) {
      assert.equal((await getJson(ctx.app, `${prefix}live`, pub)).status, 200, prefix);
      for (const slug of ['draft', 'scheduled', 'archived']) {
        const hidden = await getJson(ctx.app, `${prefix}${slug}`, pub);
        assert.equal(hidden.status, 404, `${prefix}${slug}`);
        assert.equal(hidden.body.message, `Article '${slug}' not found`);
        assert.equal((await getJson(ctx.app, `${prefix}${slug}`, secret)).status, 200, `${prefix}${slug}`);
      }
    }
  });

  test('tags: articleCount counts published articles only and equals the list total; published=false is a 400', async () => {
    const { secret, pub } = await blog();
    const tags = await getJson(ctx.app, '/v1/tags', pub);
    assert.equal(tags.status, 200);
    const count = (body: { data: Array<{ name: string; articleCount: number }> }, name: string) =>
      body.data.find((tag) => tag.name === name)?.articleCount;
    assert.equal(count(tags.body, 'news'), 2);
    assert.equal(count(tags.body, 'secret'), 0);
    assert.equal(
      count(tags.body, 'news'),
      (await getJson(ctx.app, '/v1/articles?tags=news', pub)).body.meta.total,
    );
    assert.equal((await getJson(ctx.app, '/v1/tags/NEWS', pub)).body.data.articleCount, 2);
    assert.equal((await getJson(ctx.app, '/v1/tags/news?published=true', pub)).body.data.articleCount, 2);
    assert.equal(count((await getJson(ctx.app, '/v1/tags', secret)).body, 'news'), 5);
    for (const path of ['/v1/tags?published=false', '/v1/tags/news?published=false']) {
      const refused = await getJson(ctx.app, path, pub);
      assert.equal(refused.status, 400, path);
      assert.equal(refused.body.details.issues[0].field, 'published');
    }
  });

  test('project: statistics count published articles and their views; storage figures are left out', async () => {
    const { secret, pub } = await blog();
    const seen = await getJson(ctx.app, '/v1/project', pub);
    assert.equal(seen.status, 200);
    assert.deepEqual(seen.body.data.stats, { totalArticles: 2, publishedArticles: 2, totalViews: 7 });
    const owner = await getJson(ctx.app, '/v1/project', secret);
    assert.equal(owner.body.data.stats.totalArticles, 5);
    assert.equal(owner.body.data.stats.totalViews, 607);
    assert.equal(typeof owner.body.data.stats.storageUsed, 'string');
  });

  test('structured data, sitemap and RSS answer a public key with the published articles', async () => {
    const { pub } = await blog();
    const data = await getJson(ctx.app, '/v1/seo/structured-data', pub);
    assert.equal(data.status, 200);
    assert.deepEqual(data.body.data.articles.map((a: { slug: string }) => a.slug).sort(), [
      'also-live',
      'live',
    ]);
    const sitemap = await getJson(ctx.app, '/v1/seo/sitemap?format=json', pub);
    assert.equal(sitemap.body.data.urls.length, 2);
    const rss = await ctx.app.inject({ url: '/v1/seo/rss', headers: pub });
    assert.equal(rss.statusCode, 200);
    assert.ok(!rss.body.includes('/draft<'));
  });

  test('a cached answer is never served across key kinds, in either order', async () => {
    const { secret, pub } = await blog();
    for (const path of ['/v1/articles', '/v1/tags', '/v1/project', '/v1/articles/draft']) {
      const first = await getJson(ctx.app, path, secret);
      const second = await getJson(ctx.app, path, pub);
      assert.notDeepEqual(second.body, first.body, path);
    }
    const { secret: secret2, pub: pub2 } = await blog();
    const publicFirst = await getJson(ctx.app, '/v1/articles', pub2);
    const secretAfter = await getJson(ctx.app, '/v1/articles', secret2);
    assert.equal(publicFirst.body.meta.total, 2);
    assert.equal(secretAfter.body.meta.total, 5);
  });

  test('CORS: allowed origins get their header and the exposed headers; 304s keep it', async () => {
    const { pub } = await blog(['https://blog.example.com']);
    const origin = 'https://blog.example.com';
    for (const path of [
      '/v1/articles',
      '/v1/articles/live',
      '/v1/tags',
      '/v1/tags/news',
      '/v1/project',
      '/v1/seo/article/live',
      '/v1/seo/structured-data',
      '/v1/seo/sitemap',
      '/v1/seo/rss',
    ]) {
      const response = await ctx.app.inject({ url: path, headers: { ...pub, origin } });
      assert.equal(response.statusCode, 200, path);
      assert.equal(response.headers['access-control-allow-origin'], origin, path);
      assert.match(String(response.headers.vary), /Origin/, path);
      const exposed = String(response.headers['access-control-expose-headers']);
      for (const header of ['ETag', 'X-Request-Id', 'X-RateLimit-Remaining', 'Retry-After', 'Link'])
        assert.ok(exposed.includes(header), `${path} exposes ${header}`);
      const again = await ctx.app.inject({
        url: path,
        headers: { ...pub, origin, 'if-none-match': String(response.headers.etag) },
      });
      assert.equal(again.statusCode, 304, path);
      assert.equal(again.headers['access-control-allow-origin'], origin, path);
    }
  });

  test('CORS: another origin is a 403 the page can read; errors carry CORS headers for any origin', async () => {
    const { secret, pub } = await blog(['https://blog.example.com']);
    const evil = 'https://evil.example.com';
    const refused = await ctx.app.inject({ url: '/v1/articles', headers: { ...pub, origin: evil } });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json().message, /not allowed to use this key/);
    assert.equal(refused.headers['access-control-allow-origin'], evil);
    const noOrigin = await ctx.app.inject({ url: '/v1/articles', headers: pub });
    assert.equal(noOrigin.statusCode, 403);

    const origin = 'https://blog.example.com';
    const errors: Array<[string, Record<string, string>, number]> = [
      ['/v1/articles', {}, 401],
      ['/v1/articles', { 'x-api-key': `folio_pk_${'Z'.repeat(40)}` }, 401],
      ['/v1/articles?status=draft', pub, 400],
      ['/v1/articles?filter=x', pub, 400],
      ['/v1/articles/draft', pub, 404],
      ['/v1/seo/article/draft', pub, 404],
    ];
    for (const [url, headers, status] of errors) {
      const response = await ctx.app.inject({ url, headers: { ...headers, origin } });
      assert.equal(response.statusCode, status, url);
      assert.equal(response.headers['access-control-allow-origin'], origin, url);
    }
    // A secret key's successful reads get no CORS header: it must never be used from a page.
    const ownerRead = await ctx.app.inject({ url: '/v1/articles', headers: { ...secret, origin } });
    assert.equal(ownerRead.statusCode, 200);
    assert.equal(ownerRead.headers['access-control-allow-origin'], undefined);
  });

  test('CORS: a 429 carries CORS headers and Retry-After, readable by the page', async () => {
    const { project } = await createTestProject(ctx.db);
    const limited = await createTestKey(ctx.db, project, { kind: 'public', rateLimit: 1 });
    const origin = 'https://any.example.org';
    await ctx.app.inject({ url: '/v1/tags', headers: { ...limited.headers, origin } });
    const response = await ctx.app.inject({ url: '/v1/tags', headers: { ...limited.headers, origin } });
    assert.equal(response.statusCode, 429);
    assert.equal(response.headers['access-control-allow-origin'], origin);
    assert.ok(response.headers['retry-after']);
    assert.match(String(response.headers['access-control-expose-headers']), /Retry-After/);
  });

  test('CORS: preflight requests of the read paths are answered for any origin, without a key', async () => {
    for (const url of [
      '/v1/articles',
      '/v1/articles/x',
      '/v1/tags',
      '/v1/tags/x',
      '/v1/project',
      '/v1/seo/rss',
    ]) {
      const response = await ctx.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: 'https://any.example.org',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-api-key, if-none-match',
        },
      });
      assert.equal(response.statusCode, 204, url);
      assert.equal(response.headers['access-control-allow-origin'], 'https://any.example.org');
      assert.match(String(response.headers['access-control-allow-methods']), /GET/);
      const allowed = String(response.headers['access-control-allow-headers']).toLowerCase();
      assert.ok(allowed.includes('x-api-key') && allowed.includes('if-none-match'), url);
    }
  });
});
