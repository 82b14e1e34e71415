import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { buildApp } from '../../src/app.ts';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { AnswerCache, ViewClock } from '../../src/http/answer-cache.ts';
import { revokeApiKey } from '../../src/projects/service.ts';
import { track } from '../analytics/support.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  httpGet,
  importArticles,
  listening,
  type TestDatabase,
} from '../helpers.ts';

/** Answers served from the answer cache so far (the /metrics counter). */
async function cacheHits(app: FastifyInstance): Promise<number> {
  const metrics = (await app.inject({ url: '/metrics' })).body;
  const line = metrics
    .split('\n')
    .find((text) => text.startsWith('folio_answer_cache_requests_total{result="hit"}'));
  return Number(line?.split(' ').at(-1) ?? 0);
}

async function contentVersion(db: Db, projectId: string): Promise<number> {
  const row = await db.kysely
    .selectFrom('projects')
    .select('content_version')
    .where('id', '=', projectId)
    .executeTakeFirstOrThrow();
  return Number(row.content_version);
}

// A lag far longer than any test: a cached answer keeps its view counts.
describeEachDialect(
  'page views and cached answers',
  (ctx) => {
    test('a page view neither bumps the content version nor changes cached answers within the lag', async () => {
      const { project, headers } = await createTestProject(ctx.db);
      await importArticles(ctx.db, project, [articleInput({ slug: 'read-me' })]);
      const version = await contentVersion(ctx.db, project.id);
      const list = await getJson(ctx.app, '/v1/articles?limit=10', headers);
      const article = await getJson(ctx.app, '/v1/articles/read-me', headers);
      assert.equal(article.body.data.viewCount, 0);

      const tracked = await track(ctx.app, { slug: 'read-me' }, { headers });
      assert.equal(tracked.statusCode, 201);

      assert.equal(await contentVersion(ctx.db, project.id), version);
      const listAgain = await getJson(ctx.app, '/v1/articles?limit=10', headers);
      assert.equal(listAgain.headers.etag, list.headers.etag);
      const articleAgain = await getJson(ctx.app, '/v1/articles/read-me', headers);
      assert.equal(articleAgain.headers.etag, article.headers.etag);
      assert.equal(articleAgain.body.data.viewCount, 0);
    });

    test('a content change is still seen on the next request', async () => {
      const { project, headers } = await createTestProject(ctx.db);
      await importArticles(ctx.db, project, [articleInput({ slug: 'first' })]);
      assert.equal((await getJson(ctx.app, '/v1/articles', headers)).body.meta.total, 1);
      await importArticles(ctx.db, project, [
        articleInput({ slug: 'first' }),
        articleInput({ slug: 'second' }),
      ]);
      assert.equal((await getJson(ctx.app, '/v1/articles', headers)).body.meta.total, 2);
    });
  },
  { viewCountLagMs: 3_600_000 },
);

// No lag: the next read after a page view is rolled up (rollupDelayMs after it was answered) shows it.
describeEachDialect(
  'view counts in cached answers',
  (ctx) => {
    test('a page view, once rolled up, refreshes the cached article, list and project that show its count', async () => {
      const { project, headers } = await createTestProject(ctx.db);
      await importArticles(ctx.db, project, [
        articleInput({ slug: 'read-me' }),
        articleInput({ slug: 'other' }),
      ]);
      const other = await getJson(ctx.app, '/v1/articles/other', headers);
      assert.equal((await getJson(ctx.app, '/v1/articles/read-me', headers)).body.data.viewCount, 0);
      assert.equal((await getJson(ctx.app, '/v1/project', headers)).body.data.stats.totalViews, 0);
      await getJson(ctx.app, '/v1/articles', headers);

      assert.equal((await track(ctx.app, { slug: 'read-me' }, { headers })).statusCode, 201);
      await rollUpQueued(ctx.db);

      assert.equal((await getJson(ctx.app, '/v1/articles/read-me', headers)).body.data.viewCount, 1);
      assert.equal((await getJson(ctx.app, '/v1/project', headers)).body.data.stats.totalViews, 1);
      const list = await getJson(ctx.app, '/v1/articles', headers);
      assert.deepEqual(
        Object.fromEntries(
          list.body.data.map((article: { slug: string; viewCount: number }) => [
            article.slug,
            article.viewCount,
          ]),
        ),
        { 'read-me': 1, other: 0 },
      );
      // Another article's answer was not concerned: still the same cached answer.
      assert.equal((await getJson(ctx.app, '/v1/articles/other', headers)).headers.etag, other.headers.etag);
    });

    test("a cached list page is refreshed for page views of its own articles, not for other articles'; sorted by views, for any", async () => {
      const { project, headers } = await createTestProject(ctx.db);
      await importArticles(ctx.db, project, [
        articleInput({ slug: 'a-shown', title: 'A shown' }),
        articleInput({ slug: 'z-elsewhere', title: 'Z elsewhere' }),
      ]);
      const page = '/v1/articles?limit=1&sort=title&order=asc';
      const byViews = '/v1/articles?limit=1&sort=viewCount&order=desc';
      const first = await getJson(ctx.app, page, headers);
      assert.deepEqual(
        first.body.data.map((article: { slug: string }) => article.slug),
        ['a-shown'],
      );
      const firstByViews = await getJson(ctx.app, byViews, headers);
      for (let i = 0; i < 2; i++)
        assert.equal((await track(ctx.app, { slug: 'z-elsewhere' }, { headers })).statusCode, 201);
      await rollUpQueued(ctx.db);
      // Not its article: served from the cache, not built again.
      const hitsBefore = await cacheHits(ctx.app);
      assert.equal((await getJson(ctx.app, page, headers)).headers.etag, first.headers.etag);
      assert.equal(await cacheHits(ctx.app), hitsBefore + 1);
      // Ordered by views: another article's views change the page.
      const rebuilt = await getJson(ctx.app, byViews, headers);
      assert.notEqual(rebuilt.headers.etag, firstByViews.headers.etag);
      assert.deepEqual(
        rebuilt.body.data.map((article: { slug: string; viewCount: number }) => [
          article.slug,
          article.viewCount,
        ]),
        [['z-elsewhere', 2]],
      );
      assert.equal((await track(ctx.app, { slug: 'a-shown' }, { headers })).statusCode, 201);
      await rollUpQueued(ctx.db);
      const mine = await getJson(ctx.app, page, headers);
      assert.notEqual(mine.headers.etag, first.headers.etag);
      assert.equal(mine.body.data[0].viewCount, 1);
    });

    test("an article's cached answer gets its new view count written in, byte for byte what a rebuild answers", async () => {
      const { project, headers } = await createTestProject(ctx.db);
      await importArticles(ctx.db, project, [
        articleInput({
          slug: 'counted',
          title: 'Counted',
          tags: ['views'],
          content: 'Text "viewCount": 7 here.',
        }),
      ]);
      const first = await getJson(ctx.app, '/v1/articles/counted', headers);
      assert.equal(first.body.data.viewCount, 0);
      // From one digit to two: the count's place in the cached bytes follows it.
      for (const [added, views] of [
        [1, 1],
        [11, 12],
      ]) {
        for (let i = 0; i < added; i++)
          assert.equal((await track(ctx.app, { slug: 'counted' }, { headers })).statusCode, 201);
        await rollUpQueued(ctx.db);
        const hitsBefore = await cacheHits(ctx.app);
        const spliced = await ctx.app.inject({ url: '/v1/articles/counted', headers });
        // Served from the cache, not built again, yet with the new count and its own ETag.
        assert.equal(await cacheHits(ctx.app), hitsBefore + 1);
        assert.equal(spliced.json().data.viewCount, views);
        assert.equal(
          spliced.headers.etag,
          `"${createHash('sha1').update(spliced.rawPayload).digest('base64url')}"`,
        );
        // What an app without a cache builds from the database: the same bytes.
        const fresh = await buildApp({ db: ctx.db, answerCache: new AnswerCache(0) });
        try {
          const built = await fresh.inject({ url: '/v1/articles/counted', headers });
          assert.equal(spliced.body, built.body);
          assert.equal(spliced.headers.etag, built.headers.etag);
        } finally {
          await fresh.close();
        }
        // The client's copy is current: 304.
        const again = await ctx.app.inject({
          url: '/v1/articles/counted',
          headers: { ...headers, 'if-none-match': String(spliced.headers.etag) },
        });
        assert.equal(again.statusCode, 304);
      }
    });
  },
  { viewCountLagMs: 0 },
);

// Two instances of the service on one database, as behind a load balancer (or the CLI beside it).
for (const dialect of configuredDialects()) {
  describe(`changes made through another instance [${dialect}]`, () => {
    let database: TestDatabase;
    let otherDb: Db;
    let app: FastifyInstance;
    let otherApp: FastifyInstance;
    before(async () => {
      database = await createTestDatabase(dialect);
      otherDb = openDatabase(database.url);
      app = await buildApp({ db: database.db, viewCountLagMs: 0 });
      otherApp = await buildApp({ db: otherDb, viewCountLagMs: 0 });
    });
    after(async () => {
      await otherApp?.close();
      await app?.close();
      await otherDb?.close();
      await database?.drop();
    });

    test('a key revoked, an import and a page view through another instance are seen on the next request', async () => {
      const { project, headers, keyId } = await createTestProject(database.db);
      await importArticles(database.db, project, [articleInput({ slug: 'one' })]);
      // Twice: the first request may come before the instance listens (PostgreSQL).
      for (let round = 0; round < 2; round++) {
        assert.equal((await getJson(app, '/v1/articles/one', headers)).body.data.viewCount, 0);
        assert.equal((await getJson(app, '/v1/articles', headers)).body.meta.total, 1);
      }

      assert.equal((await track(otherApp, { slug: 'one' }, { headers })).statusCode, 201);
      await rollUpQueued(otherDb);
      await database.db.changesSeen();
      assert.equal((await getJson(app, '/v1/articles/one', headers)).body.data.viewCount, 1);

      await importArticles(otherDb, project, [articleInput({ slug: 'one' }), articleInput({ slug: 'two' })]);
      await database.db.changesSeen();
      assert.equal((await getJson(app, '/v1/articles', headers)).body.meta.total, 2);

      await revokeApiKey(otherDb, keyId);
      await database.db.changesSeen();
      assert.equal((await getJson(app, '/v1/articles', headers)).status, 401);
    });

    test(
      "an article's count carried by a notification is written into its cached answer without a read; one of another content version, or none, is read",
      { skip: dialect !== 'postgres' },
      async () => {
        const { project, headers } = await createTestProject(database.db);
        await importArticles(database.db, project, [articleInput({ slug: 'told' })]);
        const viewCount = async () => (await getJson(app, '/v1/articles/told', headers)).body.data.viewCount;
        // Twice: the first request may come before the instance listens.
        for (let round = 0; round < 2; round++) assert.equal(await viewCount(), 0);
        const version = await contentVersion(database.db, project.id);
        // Sent as a roll-up's trigger sends them (migration 0030), through another instance's pool.
        const notify = async (payload: string) => {
          await sql`select pg_notify('folio_views', ${payload})`.execute(otherDb.kysely);
          await database.db.changesSeen();
        };
        // The database holds no page view of it: a count shown can only come from the notification.
        await notify(`${project.id} told @${version} =41`);
        assert.equal(await viewCount(), 41);
        // Counted at another content version: the slug may have named another article then.
        await notify(`${project.id} told @${version - 1} =42`);
        assert.equal(await viewCount(), 0);
        await notify(`${project.id} told @${version} =43`);
        assert.equal(await viewCount(), 43);
        // Without a count (the payload before migration 0030): read again.
        await notify(`${project.id} told`);
        assert.equal(await viewCount(), 0);
        // A real page view, rolled up by the other instance: its notified count is the database's.
        assert.equal((await track(otherApp, { slug: 'told' }, { headers })).statusCode, 201);
        await rollUpQueued(otherDb);
        await database.db.changesSeen();
        assert.equal(await viewCount(), 1);
        // This instance's own roll-up ends once its notification was heard: the count is there,
        // and not read (the database's row of it is deleted without a notification first).
        assert.equal((await track(app, { slug: 'told' }, { headers })).statusCode, 201);
        await rollUpQueued(database.db);
        await sql`delete from article_views where article_id in
          (select id from articles where project_id = ${project.id} and slug = 'told')`.execute(
          database.db.kysely,
        );
        assert.equal(await viewCount(), 2);
      },
    );
  });
}

describeEachDialect('compression', (ctx) => {
  test('answers of 1 KB or more are compressed as accepted, decode to the same JSON, and keep their 304', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const articles = Array.from({ length: 12 }, (_, index) =>
      articleInput({ slug: `long-${index}`, content: `Some long text. `.repeat(200) }),
    );
    await importArticles(ctx.db, project, articles);
    const url = '/v1/articles?limit=12';
    const plain = await ctx.app.inject({ method: 'GET', url, headers });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.match(String(plain.headers.vary), /(^|, )Accept-Encoding(,|$)/);
    const expected = plain.json();

    for (const [encoding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      // The first one may be built, the second one is served from the cache: both are encoded.
      for (let round = 0; round < 2; round++) {
        const response = await ctx.app.inject({
          method: 'GET',
          url,
          headers: { ...headers, 'accept-encoding': encoding === 'br' ? 'gzip, deflate, br' : 'gzip' },
        });
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers['content-encoding'], encoding);
        assert.match(String(response.headers.vary), /(^|, )Accept-Encoding(,|$)/);
        assert.ok(response.rawPayload.length < plain.rawPayload.length / 4);
        assert.deepEqual(JSON.parse(decode(response.rawPayload).toString('utf8')), expected);
        const etag = String(response.headers.etag);
        assert.equal(etag, `W/${plain.headers.etag}`);
        const notModified = await ctx.app.inject({
          method: 'GET',
          url,
          headers: { ...headers, 'accept-encoding': encoding, 'if-none-match': etag },
        });
        assert.equal(notModified.statusCode, 304);
        assert.equal(notModified.rawPayload.length, 0);
        assert.equal(notModified.headers['content-encoding'], undefined);
        // The plain answer's tag matches too (If-None-Match compares weakly).
        const plainTag = await ctx.app.inject({
          method: 'GET',
          url,
          headers: { ...headers, 'accept-encoding': encoding, 'if-none-match': String(plain.headers.etag) },
        });
        assert.equal(plainTag.statusCode, 304);
      }
    }
    // q=0 refuses an encoding; small answers are sent as they are.
    const refused = await ctx.app.inject({
      method: 'GET',
      url,
      headers: { ...headers, 'accept-encoding': 'br;q=0, gzip;q=0' },
    });
    assert.equal(refused.headers['content-encoding'], undefined);
    assert.deepEqual(refused.json(), expected);
    const small = await ctx.app.inject({
      method: 'GET',
      url: '/v1/tags',
      headers: { ...headers, 'accept-encoding': 'br' },
    });
    assert.equal(small.statusCode, 200);
    assert.equal(small.headers['content-encoding'], undefined);
  });

  test('a compressed answer to a browser keeps Vary: Origin beside Accept-Encoding, cached or not', async () => {
    const { project } = await createTestProject(ctx.db);
    const { headers } = await createTestKey(ctx.db, project, { kind: 'public' });
    const articles = Array.from({ length: 6 }, (_, index) =>
      articleInput({ slug: `vary-${index}`, content: 'Some long text. '.repeat(200) }),
    );
    await importArticles(ctx.db, project, articles);
    for (let round = 0; round < 2; round++) {
      const response = await ctx.app.inject({
        method: 'GET',
        url: '/v1/articles?limit=6',
        headers: { ...headers, origin: 'https://blog.example.com', 'accept-encoding': 'gzip' },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-encoding'], 'gzip');
      const vary = String(response.headers.vary)
        .split(/\s*,\s*/)
        .sort();
      assert.deepEqual(vary, ['Accept-Encoding', 'Origin']);
    }
  });

  test('uncached answers are compressed too', async () => {
    const { headers } = await createTestProject(ctx.db);
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/v1/openapi.json',
      headers: { 'accept-encoding': 'gzip' },
    });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(response.rawPayload).toString('utf8')).openapi, '3.1.0');
    void headers;
  });
});

// A cache hit is written by its own code (answer-cache.ts sendHit), not by reply.send and the onSend
// hooks: it must answer exactly what the hooks answer. An app whose cache keeps nothing gives the
// hooks' answer to the same request.
describeEachDialect('a cache hit answers as the hooks do', (ctx) => {
  test('same status, headers and bytes for every key kind, origin, encoding and If-None-Match', async () => {
    const uncached = await buildApp({ db: ctx.db, answerCache: new AnswerCache(0), sitemapPageSize: 2 });
    const cached = await buildApp({ db: ctx.db, sitemapPageSize: 2 });
    // The hit path answers hits over HTTP before Fastify's hooks: this one counts what reaches them.
    let hooked = 0;
    cached.addHook('onResponse', (_request, _reply, done) => {
      hooked++;
      done();
    });
    try {
      const served = await listening(cached);
      const { project } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
      await importArticles(ctx.db, project, [
        ...Array.from({ length: 5 }, (_, index) =>
          articleInput({ slug: `hit-${index}`, content: 'Some long text. '.repeat(100) }),
        ),
        articleInput({ slug: 'short', content: 'Short.' }),
      ]);
      const secret = await createTestKey(ctx.db, project);
      const open = await createTestKey(ctx.db, project, { kind: 'public' });
      const listed = await createTestKey(ctx.db, project, {
        kind: 'public',
        origins: ['https://blog.example.com'],
      });
      const plain = await uncached.inject({ url: '/v1/articles?limit=5', headers: secret.headers });
      const tags = { strong: String(plain.headers.etag), weak: `W/${plain.headers.etag}`, other: '"other"' };
      const urls = [
        '/v1/articles?limit=5',
        '/v1/articles/short',
        '/v1/articles/hit-1',
        '/v1/tags',
        '/v1/project',
        '/v1/seo/sitemap?page=1',
        '/v1/seo/rss',
      ];
      // Keep-Alive is the socket's (HTTP only), not the answer's.
      const variable = new Set([
        'date',
        'x-request-id',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'keep-alive',
      ]);
      const shown = (response: { statusCode: number; headers: object; rawPayload: Buffer }) => ({
        status: response.statusCode,
        headers: Object.fromEntries(
          Object.entries(response.headers)
            .filter(([name]) => !variable.has(name))
            // The order of Vary's names means nothing.
            .map(([name, value]) => [
              name,
              name === 'vary' ? String(value).split(', ').sort().join(', ') : String(value),
            ])
            .sort(([a], [b]) => a.localeCompare(b)),
        ),
        body: createHash('sha1').update(response.rawPayload).digest('hex'),
      });
      let compared = 0;
      let sentByHitPath = 0;
      for (const key of [secret, open, listed]) {
        for (const origin of [undefined, 'https://blog.example.com', 'not an origin']) {
          for (const encoding of [undefined, 'gzip', 'gzip, deflate, br', 'br;q=0, gzip;q=0']) {
            for (const ifNoneMatch of [undefined, tags.strong, tags.weak, tags.other]) {
              for (const url of urls) {
                const headers: Record<string, string> = { ...key.headers };
                if (origin !== undefined) headers.origin = origin;
                if (encoding !== undefined) headers['accept-encoding'] = encoding;
                if (ifNoneMatch !== undefined) headers['if-none-match'] = ifNoneMatch;
                const expected = shown(await uncached.inject({ url, headers }));
                await cached.inject({ url, headers }); // built, or already cached
                const hit = shown(await cached.inject({ url, headers }));
                assert.deepEqual(hit, expected, `${url} ${JSON.stringify(headers)}`);
                const reachedHooks = hooked;
                const sent = shown(await httpGet(served, url, headers));
                assert.deepEqual(sent, expected, `over HTTP: ${url} ${JSON.stringify(headers)}`);
                // Every hit skips the hooks; the 403s of an origin the key does not allow reach them.
                assert.equal(
                  hooked === reachedHooks,
                  sent.status !== 403,
                  `${url} ${JSON.stringify(headers)}`,
                );
                if (hooked === reachedHooks) sentByHitPath++;
                compared++;
              }
            }
          }
        }
      }
      // The matrix reaches what it is meant to: hits, 304s, encodings, CORS and the sitemap's Link.
      const hit = await cached.inject({
        url: '/v1/seo/sitemap?page=1',
        headers: { ...open.headers, origin: 'https://blog.example.com', 'accept-encoding': 'br' },
      });
      assert.match(String(hit.headers.link), /rel="next"/);
      assert.equal(hit.headers['access-control-allow-origin'], 'https://blog.example.com');
      const notModified = await cached.inject({
        url: '/v1/articles?limit=5',
        headers: { ...secret.headers, 'accept-encoding': 'gzip', 'if-none-match': tags.strong },
      });
      assert.equal(notModified.statusCode, 304);
      assert.equal(compared, 3 * 3 * 4 * 4 * urls.length);
      // The listed key refuses a missing origin and 'not an origin': two of its three origins.
      assert.equal(sentByHitPath, compared - 2 * 4 * 4 * urls.length);
      const metrics = (await cached.inject({ url: '/metrics' })).body;
      const hits = Number(/folio_answer_cache_requests_total\{result="hit"\} (\d+)/.exec(metrics)?.[1]);
      assert.ok(hits >= compared + sentByHitPath, `${hits} hits for ${compared} compared answers`);
      // The hit path counts its answers under their route, as the hooks do.
      const listed200 = new RegExp(
        `folio_http_requests_total\\{method="GET",route="/v1/articles",status="200"\\} (\\d+)`,
      ).exec(metrics);
      assert.ok(Number(listed200?.[1]) > 3 * 3 * 4, metrics);
    } finally {
      await uncached.close();
      await cached.close();
    }
  });
});

test("the view clock keeps an article's notified count for its content version, through this instance's own roll-ups, until a touch without one or a loss", () => {
  const clock = new ViewClock();
  clock.touch('p', 'a', { count: 5, contentVersion: '3' });
  assert.equal(clock.countOf('p', 'a', '3'), 5);
  assert.equal(clock.countOf('p', 'a', '4'), undefined);
  assert.equal(clock.countOf('p', 'b', '3'), undefined);
  // This instance's own roll-up: the article changed (its answers look again), and the count
  // notified before stays until the roll-up's own notification brings the next.
  const before = clock.seq;
  clock.rolledUp('p', 'a');
  assert.ok(clock.changedSince(before, 'p', 'a'));
  assert.equal(clock.countOf('p', 'a', '3'), 5);
  clock.touch('p', 'a', { count: 6, contentVersion: '3' });
  assert.equal(clock.countOf('p', 'a', '3'), 6);
  clock.touch('p', 'a');
  assert.equal(clock.countOf('p', 'a', '3'), undefined);
  clock.touch('p', 'a', { count: 7, contentVersion: '3' });
  clock.touch('q', 'a', { count: 1, contentVersion: '3' });
  clock.touch('p', null);
  assert.equal(clock.countOf('p', 'a', '3'), undefined);
  assert.equal(clock.countOf('q', 'a', '3'), 1);
  clock.touch(null, null);
  assert.equal(clock.countOf('q', 'a', '3'), undefined);
});
