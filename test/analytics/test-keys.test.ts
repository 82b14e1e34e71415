// Test keys: headless browsers count with them while crawlers stay bots; their page views are
// stored marked and count nowhere (viewCount, statistics, funnel, insights, CSV, realtime) unless a
// report is asked with includeTest=true, which then answers exactly what it would had they been
// normal page views (the same views tracked with a normal key in another project); a rebuild of
// the rollups keeps the split.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';
import { rebuildRollups } from '../../src/analytics/rollups/queries/rebuild-rollups.ts';
import { deleteExpired, firstRetainedDay } from '../../src/analytics/rollups/retention.ts';
import { utcDay } from '../../src/analytics/days.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  viewCountOf,
} from '../helpers.ts';
import {
  awayFromMidnight,
  browser,
  daysAgo,
  factoryRow,
  otherBrowser,
  rawPageViews,
  track,
  update,
} from './support.ts';

const headlessChrome =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.33 Safari/537.36';
const playwrightRequest = 'Playwright/1.49.0';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const googlebotRendering =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) HeadlessChrome/131.0.0.0 Safari/537.36';

interface TrackedView {
  ip: string;
  userAgent: string;
  body: Record<string, unknown> & { slug: string };
  /** An update sent after the page view's creation. */
  update?: Record<string, unknown>;
}

/** The views every project gets with its normal key. */
const normalViews: TrackedView[] = [
  {
    ip: '8.8.8.8',
    userAgent: browser,
    body: {
      slug: 'alpha',
      timeOnPage: 12,
      scrollDepth: 80,
      referrer: 'https://news.ycombinator.com/item',
      screenWidth: 1280,
      events: [{ type: 'click', timeOffset: 1 }],
    },
  },
  {
    ip: '1.1.1.1',
    userAgent: otherBrowser,
    body: { slug: 'alpha', timeOnPage: 3, scrollDepth: 20, utmSource: 'newsletter', screenWidth: 390 },
  },
  { ip: '1.1.1.1', userAgent: otherBrowser, body: { slug: 'beta', timeOnPage: 30, scrollDepth: 55 } },
];

/** The views a project gets with a test key (or, in the reference project, with its normal key). */
const testViews: TrackedView[] = [
  {
    ip: '81.2.69.142',
    userAgent: browser,
    body: {
      slug: 'alpha',
      timeOnPage: 7,
      scrollDepth: 35,
      referrer: 'https://www.google.com/',
      screenWidth: 800,
      events: [{ type: 'share', timeOffset: 2 }],
    },
    update: { timeOnPage: 45, scrollDepth: 95, events: [{ type: 'click', timeOffset: 3 }] },
  },
  {
    ip: '5.9.0.1',
    userAgent: browser,
    body: { slug: 'beta', timeOnPage: 2, scrollDepth: 10, utmSource: 'ci', screenWidth: 1500 },
  },
  {
    ip: '5.9.0.1',
    userAgent: browser,
    body: { slug: 'beta', timeOnPage: 61, scrollDepth: 100, referrer: 'https://www.google.com/' },
  },
];

/** Every report, as the reports compared below are asked for. */
const reports = [
  '/v1/analytics/stats',
  '/v1/analytics/stats?days=7',
  '/v1/analytics/funnel',
  '/v1/analytics/funnel?slug=alpha',
  '/v1/analytics/funnel?slug=beta',
  '/v1/analytics/timeseries?days=1',
  '/v1/analytics/timeseries?days=3&interval=day',
  '/v1/analytics/timeseries?days=1&slug=beta',
  '/v1/analytics/breakdown/source',
  '/v1/analytics/breakdown/source?limit=1&page=2',
  '/v1/analytics/breakdown/utm_source',
  '/v1/analytics/breakdown/device',
  '/v1/analytics/breakdown/event',
  '/v1/analytics/breakdown/country',
  '/v1/analytics/articles/alpha/reading',
  '/v1/analytics/articles/beta/reading',
  '/v1/analytics/realtime',
];

/** An answer without what differs between two projects or two instants (ids, the clock). */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !['articleId', 'endDate', 'since', 'until'].includes(key))
      .map(([key, item]) => [key, comparable(item)]),
  );
}

function withQuery(url: string, query: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}

describeEachDialect('test keys: headless browsers count, their views only when asked for', (ctx) => {
  async function blog() {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [
      articleInput({ slug: 'alpha' }),
      articleInput({ slug: 'beta' }),
    ]);
    const publicKey = await createTestKey(ctx.db, owner.project, { kind: 'public' });
    const publicTestKey = await createTestKey(ctx.db, owner.project, { kind: 'public', test: true });
    const secretTestKey = await createTestKey(ctx.db, owner.project, { kind: 'secret', test: true });
    return { ...owner, publicKey, publicTestKey, secretTestKey };
  }

  async function send(views: TrackedView[], headers: Record<string, string>): Promise<void> {
    for (const view of views) {
      const answer = await track(ctx.app, view.body, { headers, ip: view.ip, userAgent: view.userAgent });
      assert.equal(answer.statusCode, 201, answer.body);
      if (view.update === undefined) continue;
      const updated = await update(ctx.app, answer.json().id, view.update, {
        headers,
        ip: view.ip,
        userAgent: view.userAgent,
      });
      assert.equal(updated.statusCode, 200, updated.body);
    }
  }

  async function report(headers: Record<string, string>, url: string) {
    const answer = await getJson(ctx.app, url, headers);
    assert.equal(answer.status, 200, `${url}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  test('a headless User-Agent is a bot with a normal key and counts with a test key, public or secret', async () => {
    const { project, publicKey, publicTestKey, secretTestKey } = await blog();
    for (const userAgent of [headlessChrome, playwrightRequest]) {
      const refused = await track(ctx.app, { slug: 'alpha' }, { headers: publicKey.headers, userAgent });
      assert.equal(refused.statusCode, 202);
      assert.deepEqual(refused.json(), { success: false, reason: 'bot' });
      for (const key of [publicTestKey, secretTestKey]) {
        const counted = await track(ctx.app, { slug: 'alpha' }, { headers: key.headers, userAgent });
        assert.equal(counted.statusCode, 201, counted.body);
        assert.equal(counted.json().success, true);
      }
    }
    // Through sendBeacon's query-parameter key too.
    const beacon = await track(
      ctx.app,
      { slug: 'beta' },
      { query: `?key=${publicTestKey.key}`, userAgent: headlessChrome },
    );
    assert.equal(beacon.statusCode, 201, beacon.body);
    const normal = await track(ctx.app, { slug: 'beta' }, { headers: publicKey.headers });
    assert.equal(normal.statusCode, 201);

    const stored = await rawPageViews(ctx.db, project.id);
    assert.equal(stored.length, 6);
    for (const row of stored) assert.equal(Number(row.test), row.id === normal.json().id ? 0 : 1, row.id);
  });

  test('crawlers stay bots with a test key, and so does a request without a User-Agent', async () => {
    const { project, publicTestKey, secretTestKey } = await blog();
    for (const key of [publicTestKey, secretTestKey]) {
      for (const userAgent of [googlebot, googlebotRendering, null]) {
        const answer = await track(ctx.app, { slug: 'alpha' }, { headers: key.headers, userAgent });
        assert.equal(answer.statusCode, 202, String(userAgent));
        assert.deepEqual(answer.json(), { success: false, reason: 'bot' });
      }
    }
    assert.equal((await rawPageViews(ctx.db, project.id)).length, 0);
  });

  test('an update of a test view stays a test view, whichever key sends it', async () => {
    const { project, headers, secretTestKey } = await blog();
    const created = await track(
      ctx.app,
      { slug: 'alpha' },
      { headers: secretTestKey.headers, userAgent: headlessChrome },
    );
    assert.equal(created.statusCode, 201);
    const id = created.json().id;
    assert.equal(
      (
        await update(
          ctx.app,
          id,
          { timeOnPage: 20 },
          { headers: secretTestKey.headers, userAgent: headlessChrome },
        )
      ).statusCode,
      200,
    );
    assert.equal((await update(ctx.app, id, { scrollDepth: 90 }, { headers })).statusCode, 200);
    const [row] = await rawPageViews(ctx.db, project.id);
    assert.deepEqual(
      [Number(row.test), Number(row.time_on_page_ms), Number(row.scroll_depth_centi)],
      [1, 20_000, 9000],
    );
    assert.equal(await viewCountOf(ctx.db, project.id, 'alpha'), 0);
    const stats = await report(headers, '/v1/analytics/stats');
    assert.equal(stats.data.summary.totalViews, 0);
    const funnel = await report(headers, '/v1/analytics/funnel?includeTest=true');
    assert.equal(funnel.funnel.pageViews, 1);
    assert.equal(funnel.funnel.reached75, 1);
    assert.equal(funnel.engagement.avgTimeOnPage, 20);
  });

  test('test views count nowhere by default, and with includeTest=true exactly as normal views would', async () => {
    await awayFromMidnight();
    // Normal views and test views; the same views all tracked with a normal key; the normal ones alone.
    const mixed = await blog();
    const allNormal = await blog();
    const normalOnly = await blog();
    await send(normalViews, mixed.headers);
    await send(testViews.slice(0, 2), mixed.secretTestKey.headers);
    await send(testViews.slice(2), mixed.publicTestKey.headers);
    await send([...normalViews, ...testViews], allNormal.headers);
    await send(normalViews, normalOnly.headers);

    // Explicit figures first.
    assert.equal(await viewCountOf(ctx.db, mixed.project.id, 'alpha'), 2);
    assert.equal(await viewCountOf(ctx.db, mixed.project.id, 'beta'), 1);
    const stats = await report(mixed.headers, '/v1/analytics/stats');
    assert.deepEqual(stats.data.summary, { totalViews: 3, uniqueVisitors: 2, avgViewsPerVisitor: 1.5 });
    assert.deepEqual(
      stats.data.topArticles.map((article: { slug: string; views: number }) => [article.slug, article.views]),
      [
        ['alpha', 2],
        ['beta', 1],
      ],
    );
    const included = await report(mixed.headers, '/v1/analytics/stats?includeTest=true');
    assert.deepEqual(included.data.summary, { totalViews: 6, uniqueVisitors: 4, avgViewsPerVisitor: 1.5 });
    assert.deepEqual(
      included.data.topArticles.map((article: { slug: string; views: number }) => [
        article.slug,
        article.views,
      ]),
      [
        ['alpha', 3],
        ['beta', 3],
      ],
    );
    const funnel = await report(mixed.headers, '/v1/analytics/funnel?slug=beta&includeTest=true');
    assert.equal(funnel.funnel.pageViews, 3);
    assert.equal(funnel.funnel.reached90, 1);
    const csv = await ctx.app.inject({
      method: 'GET',
      url: '/v1/analytics/breakdown/source?format=csv',
      headers: mixed.headers,
    });
    assert.equal(csv.body, 'value,views,visitors\r\n(direct),2,1\r\nnews.ycombinator.com,1,1\r\n');
    const csvIncluded = await ctx.app.inject({
      method: 'GET',
      url: '/v1/analytics/breakdown/source?format=csv&includeTest=true',
      headers: mixed.headers,
    });
    assert.equal(
      csvIncluded.body,
      'value,views,visitors\r\n(direct),3,2\r\ngoogle.com,2,2\r\nnews.ycombinator.com,1,1\r\n',
    );

    // Then every report: by default as if the test views were not there, with includeTest=true as
    // if they had been normal views, and includeTest=false as by default.
    for (const url of reports) {
      const expected = comparable(await report(normalOnly.headers, url));
      assert.deepEqual(comparable(await report(mixed.headers, url)), expected, url);
      assert.deepEqual(
        comparable(await report(mixed.headers, withQuery(url, 'includeTest=false'))),
        expected,
        url,
      );
      assert.deepEqual(
        comparable(await report(mixed.headers, withQuery(url, 'includeTest=true'))),
        comparable(await report(allNormal.headers, url)),
        `${url}&includeTest=true`,
      );
    }
    // A CSV export of every value, with includeTest=true, is that of the normal views.
    for (const dimension of ['source', 'utm_source', 'event', 'device']) {
      const [mixedCsv, allNormalCsv] = await Promise.all(
        [
          { url: `/v1/analytics/breakdown/${dimension}?format=csv&includeTest=true`, headers: mixed.headers },
          { url: `/v1/analytics/breakdown/${dimension}?format=csv`, headers: allNormal.headers },
        ].map((request) => ctx.app.inject({ method: 'GET', ...request })),
      );
      assert.equal(mixedCsv.body, allNormalCsv.body, dimension);
    }

    // A rebuild of the rollups keeps the split.
    await rebuildRollups(ctx.db.kysely, mixed.project.id, utcDay(Date.now()));
    assert.equal(await viewCountOf(ctx.db, mixed.project.id, 'alpha'), 2);
    assert.equal(await viewCountOf(ctx.db, mixed.project.id, 'beta'), 1);
    for (const url of reports) {
      assert.deepEqual(
        comparable(await report(mixed.headers, url)),
        comparable(await report(normalOnly.headers, url)),
        `${url} after a rebuild`,
      );
      assert.deepEqual(
        comparable(await report(mixed.headers, withQuery(url, 'includeTest=true'))),
        comparable(await report(allNormal.headers, url)),
        `${url}&includeTest=true after a rebuild`,
      );
    }
  });

  test('retention: expired test views go with the other raw page views; normal figures stay', async () => {
    await awayFromMidnight();
    const { project, headers } = await blog();
    const writer = new PageViewWriter(ctx.db);
    const rows = [
      factoryRow(project, { slug: 'alpha', at: daysAgo(10), visitor: 'old-normal', timeOnPage: 20 }, 0),
      { ...factoryRow(project, { slug: 'alpha', at: daysAgo(10), visitor: 'old-test' }, 1), test: 1 },
      { ...factoryRow(project, { slug: 'beta', at: daysAgo(2), visitor: 'kept-test' }, 2), test: 1 },
    ];
    for (const row of rows)
      await writer.write({ kind: 'create', row, slug: row.id === rows[2].id ? 'beta' : 'alpha' });
    await writer.idle();
    const views = async (query: string) =>
      (await report(headers, `/v1/analytics/stats?days=30${query}`)).data.summary.totalViews;
    assert.deepEqual([await views(''), await views('&includeTest=true')], [1, 3]);

    assert.equal(await deleteExpired(ctx.db, 5, new Date()), 2);
    assert.deepEqual(
      (await rawPageViews(ctx.db, project.id)).map((row) => [row.visitor_id, Number(row.test)]),
      [['kept-test', 1]],
    );
    // The normal view stays in the rollups; a test view counts only while its raw row is kept.
    assert.deepEqual([await views(''), await views('&includeTest=true')], [1, 2]);
    // A rebuild of the retained days changes neither.
    await rebuildRollups(ctx.db.kysely, project.id, utcDay(Date.now()), firstRetainedDay(5, new Date()));
    assert.deepEqual([await views(''), await views('&includeTest=true')], [1, 2]);
  });

  test('includeTest takes true or false: anything else is a 400 naming it', async () => {
    const { headers } = await blog();
    for (const url of [
      '/v1/analytics/stats',
      '/v1/analytics/funnel',
      '/v1/analytics/breakdown/source',
      '/v1/analytics/realtime',
    ]) {
      const answer = await getJson(ctx.app, `${url}?includeTest=maybe`, headers);
      assert.equal(answer.status, 400, url);
      assert.match(JSON.stringify(answer.body.details), /includeTest/, url);
    }
  });
});
