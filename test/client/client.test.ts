// The typed client against the real server: typed answers, typed errors, ETag revalidation,
// retries that honour Retry-After, and the X-Folio-Client header that makes a view count as `sdk`.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import {
  FolioAuthError,
  FolioClient,
  FolioNetworkError,
  FolioNotFoundError,
  FolioRateLimitError,
  FolioValidationError,
  type TrackVisitor,
} from '../../packages/client/src/index.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  importArticles,
  type TestProject,
} from '../helpers.ts';

const browserUa =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

/** A fetch that records each answer's status, and can answer the first requests itself. */
function recordingFetch(injected: Response[] = []) {
  const calls: { url: string; status: number; at: number; headers: Headers }[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('User-Agent', browserUa);
    const response = injected.shift() ?? (await fetch(input, { ...init, headers }));
    calls.push({ url: String(input), status: response.status, at: Date.now(), headers });
    return response;
  };
  return { fetch: wrapped, calls };
}

describeEachDialect('client', (context) => {
  let baseUrl: string;
  let owner: TestProject;

  before(async () => {
    baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
    owner = await createTestProject(context.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(context.db, owner.project, [
      articleInput({ slug: 'first-post', title: 'First post', content: 'Hello **world**.', tags: ['News'] }),
      articleInput({
        slug: 'second-post',
        title: 'Second post',
        createdAt: '2026-01-02T00:00:00.000Z',
        aliases: ['/2019/second-post.html'],
      }),
      articleInput({ slug: 'a-draft', status: 'draft', publishedAt: null }),
    ]);
  });

  test('client: articles list and get return the API shapes, select given as an object', async () => {
    const client = new FolioClient({ baseUrl, key: owner.key });
    const list = await client.articles.list();
    assert.equal(list.meta.total, 3);
    assert.equal(list.data[0].slug, 'second-post', 'newest first');
    const withContent = await client.articles.list({
      limit: 1,
      sort: 'title',
      order: 'asc',
      select: { content: true },
    });
    assert.equal(withContent.data[0].slug, 'first-post');
    assert.equal(typeof withContent.data[0].content, 'string');
    const tagged = await client.articles.list({ tags: ['news'] });
    assert.deepEqual(
      tagged.data.map((article) => article.slug),
      ['first-post'],
    );
    const article = await client.articles.get('first-post', { select: { tags: true } });
    assert.equal(article.content, 'Hello **world**.');
    assert.deepEqual(
      article.tags?.map((tag) => tag.name),
      ['News'],
    );
  });

  test('client: tags, project and SEO documents', async () => {
    const client = new FolioClient({ baseUrl, key: owner.key });
    const tags = await client.tags.list();
    assert.deepEqual(
      tags.data.map((tag) => [tag.name, tag.articleCount]),
      [['News', 1]],
    );
    assert.equal((await client.tags.get('news')).name, 'News');
    const project = await client.project();
    assert.equal(project.stats.totalArticles, 3);
    const sitemap = await client.seo.sitemap();
    assert.match(sitemap, /^<\?xml/);
    assert.match(sitemap, /<loc>https:\/\/blog\.example\.com\/first-post<\/loc>/);
    const feed = await client.seo.rss({ limit: 1 });
    assert.match(feed, /<rss /);
    const atom = await client.seo.atom({ limit: 1 });
    assert.match(atom, /<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom">/);
    const jsonFeed = await client.seo.jsonFeed({ feedUrl: 'https://blog.example.com/feed.json' });
    assert.equal(jsonFeed.version, 'https://jsonfeed.org/version/1.1');
    assert.equal(jsonFeed.feed_url, 'https://blog.example.com/feed.json');
    assert.equal(jsonFeed.items.length, 2);
    const json = await client.seo.sitemapJson();
    assert.equal(json.data.urls.length, 2);
    const meta = await client.seo.article('first-post');
    assert.equal(meta.seo.metaTitle, 'First post');
    assert.deepEqual(await client.redirects(), [
      { from: '/2019/second-post.html', to: '/second-post', status: 301 },
    ]);
  });

  test('client: bad parameters, unknown articles and bad keys are typed errors with the request id', async () => {
    const client = new FolioClient({ baseUrl, key: owner.key });
    const invalid = await client.articles.list({ limit: 1000 }).catch((error) => error);
    assert.ok(invalid instanceof FolioValidationError);
    assert.equal(invalid.status, 400);
    assert.deepEqual(
      invalid.issues.map((issue: { field: string }) => issue.field),
      ['limit'],
    );
    const missing = await client.articles.get('no-such-post').catch((error) => error);
    assert.ok(missing instanceof FolioNotFoundError);
    assert.equal(missing.message, "Article 'no-such-post' not found");
    assert.match(missing.requestId ?? '', /\S/);
    const stranger = new FolioClient({ baseUrl, key: 'folio_sk_' + 'x'.repeat(32) });
    const refused = await stranger.project().catch((error) => error);
    assert.ok(refused instanceof FolioAuthError);
    assert.equal(refused.status, 401);
  });

  test('client: a repeated GET revalidates with If-None-Match and returns the kept answer on 304', async () => {
    const recorder = recordingFetch();
    const client = new FolioClient({ baseUrl, key: owner.key, fetch: recorder.fetch });
    const first = await client.articles.list({ limit: 2 });
    const second = await client.articles.list({ limit: 2 });
    assert.deepEqual(
      recorder.calls.map((call) => call.status),
      [200, 304],
    );
    assert.equal(recorder.calls[1].headers.get('if-none-match') !== null, true);
    assert.deepEqual(second, first);
    const uncached = recordingFetch();
    const plain = new FolioClient({ baseUrl, key: owner.key, fetch: uncached.fetch, etagCacheSize: 0 });
    await plain.articles.list({ limit: 2 });
    await plain.articles.list({ limit: 2 });
    assert.deepEqual(
      uncached.calls.map((call) => call.status),
      [200, 200],
    );
  });

  test('client: a 503 with Retry-After is waited for and sent again', async () => {
    const unavailable = new Response(
      JSON.stringify({ error: 'Service Unavailable', message: 'down', statusCode: 503 }),
      { status: 503, headers: { 'Retry-After': '1', 'Content-Type': 'application/json' } },
    );
    const recorder = recordingFetch([unavailable]);
    const client = new FolioClient({ baseUrl, key: owner.key, fetch: recorder.fetch });
    const project = await client.project();
    assert.equal(project.stats.totalArticles, 3);
    assert.deepEqual(
      recorder.calls.map((call) => call.status),
      [503, 200],
    );
    assert.ok(recorder.calls[1].at - recorder.calls[0].at >= 900, 'waited for Retry-After');
  });

  test('client: a rate limit whose Retry-After is too long is thrown at once with the delay', async () => {
    const limited = await createTestKey(context.db, owner.project, { rateLimit: 1 });
    const recorder = recordingFetch();
    const client = new FolioClient({
      baseUrl,
      key: limited.key,
      fetch: recorder.fetch,
      maxRetryDelayMs: 500,
    });
    await client.project();
    const error = await client.project().catch((caught) => caught);
    assert.ok(error instanceof FolioRateLimitError);
    assert.equal(error.status, 429);
    assert.ok(error.retryAfterSeconds! >= 1);
    assert.equal(recorder.calls.length, 2, 'not sent again');
  });

  test('client: tracked views carry X-Folio-Client and count as sdk', async () => {
    const tracker = await createTestProject(context.db);
    await importArticles(context.db, tracker.project, [articleInput({ slug: 'tracked' })]);
    const recorder = recordingFetch();
    const client = new FolioClient({ baseUrl, key: tracker.key, fetch: recorder.fetch });
    const created = await client.analytics.track({ slug: 'tracked', scrollDepth: 40 });
    assert.ok('id' in created && created.success);
    assert.deepEqual(await client.analytics.update(created.id, { scrollDepth: 80, timeOnPage: 30 }), {
      success: true,
    });
    const stats = await client.analytics.stats({ days: 1 });
    assert.equal(stats.summary.totalViews, 1);
    assert.deepEqual(stats.requestSource, { sdk: 100, direct: 0 });
    const funnel = await client.analytics.funnel({ slug: 'tracked' });
    assert.equal(funnel.funnel.reached75, 1);
    assert.match(recorder.calls[0].headers.get('x-folio-client')!, /^@folio\/client /);
    const series = await client.analytics.timeseries({ days: 1 });
    assert.equal(series.interval, 'hour');
    assert.equal(
      series.points.reduce((sum, point) => sum + point.views, 0),
      1,
    );
    const devices = await client.analytics.breakdown('device', { days: 1 });
    assert.deepEqual(
      devices.data.map((row) => [row.value, row.views]),
      [['(unknown)', 1]],
    );
    const csv = await client.analytics.breakdownCsv('device', { days: 1 });
    assert.match(csv, /^value,views,visitors\r\n\(unknown\),1,1\r\n$/);
    const reading = await client.analytics.reading('tracked', { days: 1 });
    assert.equal(reading.pageViews, 1);
    assert.equal(reading.readRatio.pageViews, 1);
    assert.deepEqual(await client.analytics.realtime().then((now) => now.pageViews), 1);
  });

  test('client: the page views of a test key count only with includeTest', async () => {
    const site = await createTestProject(context.db, { test: true });
    await importArticles(context.db, site.project, [articleInput({ slug: 'tested' })]);
    const client = new FolioClient({ baseUrl, key: site.key });
    const headless = browserUa.replace('Chrome/', 'HeadlessChrome/');
    const created = await client.analytics.track({
      slug: 'tested',
      scrollDepth: 95,
      visitor: { ip: '8.8.8.8', userAgent: headless },
    });
    assert.ok('id' in created && created.success);
    assert.equal((await client.analytics.stats({ days: 1 })).summary.totalViews, 0);
    assert.equal((await client.analytics.stats({ days: 1, includeTest: true })).summary.totalViews, 1);
    assert.equal((await client.analytics.funnel({ slug: 'tested', includeTest: true })).funnel.reached90, 1);
    const series = await client.analytics.timeseries({ days: 1, includeTest: true });
    assert.equal(
      series.points.reduce((sum, point) => sum + point.views, 0),
      1,
    );
    assert.equal((await client.analytics.realtime()).pageViews, 0);
    assert.equal((await client.analytics.realtime({ includeTest: true })).pageViews, 1);
  });

  test("client: from a server (Node's fetch, a bot's User-Agent) a view counts once the visitor is forwarded", async () => {
    const site = await createTestProject(context.db);
    await importArticles(context.db, site.project, [articleInput({ slug: 'rendered' })]);
    const client = new FolioClient({ baseUrl, key: site.key });
    assert.deepEqual(await client.analytics.track({ slug: 'rendered' }), { success: false, reason: 'bot' });
    const visitor: TrackVisitor = { ip: '8.8.8.8', userAgent: browserUa };
    const created = await client.analytics.track({ slug: 'rendered', fetchGeo: true, visitor });
    assert.ok('id' in created && created.success);
    assert.deepEqual(await client.analytics.update(created.id, { timeOnPage: 20, visitor }), {
      success: true,
    });
    const stats = await client.analytics.stats({ days: 1 });
    assert.equal(stats.summary.totalViews, 1);
    const publicKey = await createTestKey(context.db, site.project, { kind: 'public' });
    const browser = new FolioClient({ baseUrl, key: publicKey.key, fetch: recordingFetch().fetch });
    const refused = await browser.analytics.track({ slug: 'rendered', visitor }).catch((caught) => caught);
    assert.ok(refused instanceof FolioValidationError);
    assert.deepEqual(
      refused.issues.map((issue: { field: string }) => issue.field),
      ['visitor'],
    );
  });

  test('client: no answer is a network error; a POST is not sent again', async () => {
    const closed = new FolioClient({ baseUrl: 'http://127.0.0.1:9', key: owner.key, retries: 1 });
    const error = await closed.project().catch((caught) => caught);
    assert.ok(error instanceof FolioNetworkError);
    assert.equal(error.status, 0);
    let attempts = 0;
    const failing: typeof fetch = async () => {
      attempts++;
      throw new TypeError('fetch failed');
    };
    const poster = new FolioClient({ baseUrl, key: owner.key, fetch: failing, retries: 3 });
    await assert.rejects(poster.analytics.track({ slug: 'first-post' }), FolioNetworkError);
    assert.equal(attempts, 1);
  });
});

test('client: the package uses fetch only (no Node built-ins, no server code at run time)', () => {
  const folder = new URL('../../packages/client/src/', import.meta.url);
  for (const file of readdirSync(folder)) {
    const source = readFileSync(new URL(file, folder), 'utf8');
    assert.doesNotMatch(source, /from 'node:/, file);
    for (const match of source.matchAll(/^import (?!type ).*from '(.*)';$/gm)) {
      assert.match(match[1], /^\.\/[\w-]+\.ts$/, `${file} imports ${match[1]} at run time`);
    }
  }
});
