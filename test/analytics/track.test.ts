// Tracking page views: answers, stored values, validation, bots, visitor ids,
// geolocation, view counts, and tenancy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundledGeoDatabasePath } from '../../src/analytics/ingest/geo.ts';
import { buildApp } from '../../src/app.ts';
import { openDatabase } from '../../src/db/database.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  viewCountOf,
} from '../helpers.ts';
import { otherBrowser, pageViewCount, rawPageViews, track } from './support.ts';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';

describeEachDialect('tracking: POST /v1/analytics/track', (ctx) => {
  async function blog() {
    const project = await createTestProject(ctx.db);
    await importArticles(ctx.db, project.project, [
      articleInput({ slug: 'hello' }),
      articleInput({ slug: 'other' }),
    ]);
    return project;
  }

  test('a page view is answered 201 with id = pageViewId, a visitor id and the sessionId sent', async () => {
    const { headers } = await blog();
    const response = await track(ctx.app, { slug: 'hello', sessionId: 'session-42' }, { headers });
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), ['id', 'pageViewId', 'sessionId', 'success', 'visitorId']);
    assert.equal(body.success, true);
    assert.equal(body.pageViewId, body.id);
    assert.match(body.id, /^[0-9a-f]{12}[A-Za-z0-9_-]{22}$/, 'a time prefix, then 128 random bits');
    assert.match(body.visitorId, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(body.sessionId, 'session-42');
  });

  test('without a sessionId, a new random one is answered and stored', async () => {
    const { project, headers } = await blog();
    const first = (await track(ctx.app, { slug: 'hello' }, { headers })).json();
    const second = (await track(ctx.app, { slug: 'hello' }, { headers })).json();
    assert.match(first.sessionId, /^[0-9a-f-]{36}$/);
    assert.notEqual(first.sessionId, second.sessionId);
    const rows = await rawPageViews(ctx.db, project.id);
    assert.deepEqual(rows.map((row) => row.session_id).sort(), [first.sessionId, second.sessionId].sort());
  });

  test('every member is stored as sent, and the client IP is stored nowhere', async () => {
    const { project, headers } = await blog();
    const body = {
      slug: 'hello',
      sessionId: 's-1',
      pageUrl: 'https://blog.example.com/hello?ref=x',
      pageTitle: 'Hello — a title',
      referrer: 'https://news.example.com/',
      utmSource: 'newsletter',
      utmMedium: 'email',
      utmCampaign: 'spring',
      utmTerm: 'reading',
      utmContent: 'footer-link',
      screenWidth: 1440,
      screenHeight: 900,
      timeOnPage: 12.5,
      scrollDepth: 33.33,
      exitPosition: 20.5,
      bounced: false,
      events: [
        { type: 'click', element: '#subscribe', timeOffset: 1500.5, extra: 'dropped' },
        { type: 'copy', timeOffset: 0 },
      ],
      fetchGeo: true,
      unknownMember: 'ignored',
    };
    const response = await track(ctx.app, body, { headers, ip: '8.8.8.8' });
    assert.equal(response.statusCode, 201, response.body);
    const [row] = await rawPageViews(ctx.db, project.id);
    assert.equal(row.id, response.json().id);
    assert.equal(row.session_id, 's-1');
    assert.equal(row.page_url, body.pageUrl);
    assert.equal(row.page_title, body.pageTitle);
    assert.equal(row.referrer, body.referrer);
    assert.deepEqual(
      [row.utm_source, row.utm_medium, row.utm_campaign, row.utm_term, row.utm_content],
      ['newsletter', 'email', 'spring', 'reading', 'footer-link'],
    );
    assert.deepEqual([Number(row.screen_width), Number(row.screen_height)], [1440, 900]);
    assert.equal(Number(row.time_on_page_ms), 12_500);
    assert.equal(Number(row.scroll_depth_centi), 3333);
    assert.equal(Number(row.exit_position), 20.5);
    assert.equal(Number(row.bounced), 0);
    assert.equal(row.country, 'US');
    assert.equal(row.source, 'direct');
    assert.deepEqual(JSON.parse(row.events), [
      { type: 'click', element: '#subscribe', timeOffset: 1500.5 },
      { type: 'copy', timeOffset: 0 },
    ]);
    assert.equal(Number(row.event_count), 2);
    assert.equal(row.day, row.created_at.slice(0, 10));
    assert.match(row.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const everything = JSON.stringify([
      await ctx.db.kysely.selectFrom('page_view_rows').selectAll().execute(),
      await ctx.db.kysely.selectFrom('analytics_daily_visitors').selectAll().execute(),
      await ctx.db.kysely.selectFrom('analytics_daily_totals').selectAll().execute(),
      await ctx.db.kysely.selectFrom('analytics_daily_articles').selectAll().execute(),
      await ctx.db.kysely.selectFrom('analytics_daily_countries').selectAll().execute(),
    ]);
    assert.ok(!everything.includes('8.8.8.8'), 'the IP is not stored');
    assert.ok(!response.body.includes('8.8.8.8'), 'the IP is not answered');
  });

  test('the same IP and User-Agent are one visitor on a day; another IP, browser or project is another', async () => {
    const a = await blog();
    const b = await blog();
    const visitor = async (headers: Record<string, string>, ip: string, userAgent?: string) =>
      (await track(ctx.app, { slug: 'hello' }, { headers, ip, userAgent })).json().visitorId;
    const first = await visitor(a.headers, '198.51.100.1');
    assert.equal(await visitor(a.headers, '198.51.100.1'), first);
    assert.notEqual(await visitor(a.headers, '198.51.100.2'), first);
    assert.notEqual(await visitor(a.headers, '198.51.100.1', otherBrowser), first);
    assert.notEqual(await visitor(b.headers, '198.51.100.1'), first);
  });

  // viewCount may lag behind the page views: they are counted by the roll-up that follows them
  // within rollupDelayMs, and cached answers show the new count once viewCountLagMs has passed.
  test("the article's viewCount grows by one per POST once rolled up, with no read of statistics to ask for it", async () => {
    const { project, headers } = await blog();
    const app = await buildApp({ db: ctx.db, viewCountLagMs: 0, rollupDelayMs: 20 });
    try {
      const before = await getJson(app, '/v1/articles/hello', headers); // now in the answer cache
      assert.equal(before.body.data.viewCount, 0);
      for (let i = 0; i < 3; i++)
        assert.equal((await track(app, { slug: 'hello' }, { headers })).statusCode, 201);
      // The roll-up's timer alone brings the count (polled for at most 5 s).
      const deadline = Date.now() + 5000;
      let after = await getJson(app, '/v1/articles/hello', headers);
      while (after.body.data.viewCount !== 3 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        after = await getJson(app, '/v1/articles/hello', headers);
      }
      assert.equal(after.body.data.viewCount, 3);
      assert.equal(await viewCountOf(ctx.db, project.id, 'other'), 0);
      const info = await getJson(app, '/v1/project', headers);
      assert.equal(info.body.data.stats.totalViews, 3);
    } finally {
      await app.close();
    }
  });

  test('another instance on the same database sees the new viewCount once told of it', async () => {
    const { headers } = await blog();
    const otherDb = openDatabase(ctx.url);
    const other = await buildApp({ db: otherDb, viewCountLagMs: 0 });
    try {
      // Twice: on PostgreSQL the first request starts the instance's LISTEN connection.
      for (let round = 0; round < 2; round++)
        assert.equal((await getJson(other, '/v1/articles/hello', headers)).body.data.viewCount, 0);
      assert.equal((await getJson(other, '/v1/articles?limit=5', headers)).status, 200);
      assert.equal((await track(ctx.app, { slug: 'hello' }, { headers })).statusCode, 201);
      await rollUpQueued(ctx.db);
      // PostgreSQL: its notification has arrived (no round trip per read); SQLite: data_version.
      await otherDb.changesSeen();
      assert.equal((await getJson(other, '/v1/articles/hello', headers)).body.data.viewCount, 1);
      assert.equal(
        (await getJson(other, '/v1/articles?limit=5', headers)).body.data.find((a: any) => a.slug === 'hello')
          .viewCount,
        1,
      );
    } finally {
      await other.close();
      await otherDb.close();
    }
  });

  test("an unknown slug, or the slug of another project's article, is 404 and writes nothing", async () => {
    const a = await blog();
    const b = await createTestProject(ctx.db);
    await importArticles(ctx.db, b.project, [articleInput({ slug: 'only-in-b' })]);
    for (const slug of ['nope', 'only-in-b', 'HELLO', 'hello ']) {
      const response = await track(ctx.app, { slug }, { headers: a.headers });
      assert.equal(response.statusCode, 404, slug);
      assert.deepEqual(response.json(), {
        error: 'Not Found',
        message: `Article '${slug}' not found`,
        statusCode: 404,
      });
    }
    assert.equal(await pageViewCount(ctx.db, a.project.id), 0);
    assert.equal(await viewCountOf(ctx.db, b.project.id, 'only-in-b'), 0);
  });

  test('each invalid member is a 400 naming it, and nothing is written', async () => {
    const { project, headers } = await blog();
    const long = (n: number) => 'x'.repeat(n);
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{}, ['slug']],
      [{ slug: '' }, ['slug']],
      [{ slug: 'hello', sessionId: long(129) }, ['sessionId']],
      [{ slug: 'hello', sessionId: '' }, ['sessionId']],
      [{ slug: 'hello', pageUrl: long(2049), referrer: long(2049) }, ['pageUrl', 'referrer']],
      [{ slug: 'hello', pageTitle: long(513) }, ['pageTitle']],
      [
        {
          slug: 'hello',
          utmSource: long(257),
          utmMedium: long(257),
          utmCampaign: long(257),
          utmTerm: long(257),
          utmContent: long(257),
        },
        ['utmSource', 'utmMedium', 'utmCampaign', 'utmTerm', 'utmContent'],
      ],
      [{ slug: 'hello', screenWidth: -1, screenHeight: 100_001 }, ['screenWidth', 'screenHeight']],
      [{ slug: 'hello', screenWidth: 1.5 }, ['screenWidth']],
      [{ slug: 'hello', timeOnPage: -0.001 }, ['timeOnPage']],
      [{ slug: 'hello', timeOnPage: 86_400.001 }, ['timeOnPage']],
      [{ slug: 'hello', scrollDepth: 100.01, exitPosition: -1 }, ['scrollDepth', 'exitPosition']],
      [{ slug: 'hello', bounced: 'yes' }, ['bounced']],
      [{ slug: 'hello', fetchGeo: 1 }, ['fetchGeo']],
      [
        { slug: 'hello', events: Array.from({ length: 101 }, () => ({ type: 'click', timeOffset: 0 })) },
        ['events'],
      ],
      [{ slug: 'hello', events: [{ timeOffset: 0 }] }, ['events.0.type']],
      [
        {
          slug: 'hello',
          events: [
            { type: 'ok', timeOffset: 0 },
            { type: '', timeOffset: 0 },
          ],
        },
        ['events.1.type'],
      ],
      [{ slug: 'hello', events: [{ type: long(65), timeOffset: 0 }] }, ['events.0.type']],
      [
        { slug: 'hello', events: [{ type: 'click', element: long(513), timeOffset: 0 }] },
        ['events.0.element'],
      ],
      [{ slug: 'hello', events: [{ type: 'click', timeOffset: -1 }] }, ['events.0.timeOffset']],
      [{ slug: 'hello', events: [{ type: 'click' }] }, ['events.0.timeOffset']],
      [{ slug: 'hello', events: ['click'] }, ['events.0']],
      [{ slug: 'hello', pageTitle: 'nul \u0000 inside' }, ['pageTitle']],
      [{ slug: 'hel\u0000lo' }, ['slug']],
    ];
    for (const [body, fields] of cases) {
      const response = await track(ctx.app, body, { headers });
      assert.equal(response.statusCode, 400, JSON.stringify(body).slice(0, 200));
      const error = response.json();
      assert.equal(error.error, 'Bad Request');
      assert.deepEqual(
        error.details.issues.map((issue: { field: string }) => issue.field),
        fields,
        JSON.stringify(error),
      );
    }
    assert.equal(await pageViewCount(ctx.db, project.id), 0);
    assert.equal(await viewCountOf(ctx.db, project.id, 'hello'), 0);
  });

  test('messages name the allowed range or length', async () => {
    const { headers } = await blog();
    const response = await track(
      ctx.app,
      { slug: 'hello', scrollDepth: 101, pageTitle: 'x'.repeat(513), screenWidth: 2.5 },
      { headers },
    );
    assert.deepEqual(response.json().details.issues, [
      { field: 'pageTitle', message: 'must be at most 512 characters' },
      { field: 'screenWidth', message: 'must be an integer from 0 to 100000' },
      { field: 'scrollDepth', message: 'must be a number from 0 to 100' },
    ]);
  });

  test('JSON types are strict: a numeric string is not a number, null not a boolean, an object not a list', async () => {
    const { project, headers } = await blog();
    const response = await track(
      ctx.app,
      {
        slug: 'hello',
        timeOnPage: '12',
        screenWidth: '800',
        bounced: null,
        fetchGeo: 'true',
        events: { type: 'click', timeOffset: 0 },
      },
      { headers },
    );
    assert.equal(response.statusCode, 400);
    assert.deepEqual(
      response.json().details.issues.map((issue: { field: string }) => issue.field),
      ['screenWidth', 'timeOnPage', 'bounced', 'events', 'fetchGeo'],
    );
    for (const body of [[{ slug: 'hello' }], 'hello', 42, null]) {
      const bad = await track(ctx.app, JSON.stringify(body), { headers });
      assert.equal(bad.statusCode, 400, JSON.stringify(body));
    }
    assert.equal(await pageViewCount(ctx.db, project.id), 0);
  });

  test('a crawler, a script or a request without User-Agent gets 202 { success: false, reason: "bot" } and nothing is stored', async () => {
    const { project, headers } = await blog();
    for (const userAgent of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'curl/8.5.0',
      null,
    ]) {
      const response = await track(ctx.app, { slug: 'hello' }, { headers, userAgent });
      assert.equal(response.statusCode, 202, String(userAgent));
      assert.deepEqual(response.json(), { success: false, reason: 'bot' });
    }
    assert.equal(await pageViewCount(ctx.db, project.id), 0);
    assert.equal(await viewCountOf(ctx.db, project.id, 'hello'), 0);
  });

  test('a request with X-Folio-Client counts as sdk, any other as direct', async () => {
    const { project, headers } = await blog();
    await track(ctx.app, { slug: 'hello' }, { headers: { ...headers, 'x-folio-client': 'folio-js/1.0' } });
    await track(ctx.app, { slug: 'hello' }, { headers });
    const sources = (await rawPageViews(ctx.db, project.id)).map((row) => row.source).sort();
    assert.deepEqual(sources, ['direct', 'sdk']);
  });

  test('fetchGeo: true stores the country of the client IP (offline); otherwise, or for a private IP, none', async () => {
    const { project, headers } = await blog();
    const cases: Array<[string, boolean | undefined, string | null]> = [
      ['8.8.8.8', true, 'US'],
      ['2a00:1450:4001:81b::200e', true, 'DE'],
      ['::ffff:8.8.8.8', true, 'US'],
      ['10.1.2.3', true, null],
      ['8.8.8.8', false, null],
      ['8.8.8.8', undefined, null],
    ];
    for (const [ip, fetchGeo, expected] of cases) {
      const id = (await track(ctx.app, { slug: 'hello', fetchGeo }, { headers, ip })).json().id;
      const row = (await rawPageViews(ctx.db, project.id)).find((view) => view.id === id)!;
      assert.equal(row.country, expected, `${ip} fetchGeo=${fetchGeo}`);
    }
  });

  test('X-Forwarded-For names the client only when TRUST_PROXY trusts the proxy', async () => {
    const { project, headers } = await blog();
    const proxied = await buildApp({ db: ctx.db, trustProxy: true });
    try {
      const forwarded = { ...headers, 'x-forwarded-for': '8.8.8.8' };
      const trusted = (
        await track(proxied, { slug: 'hello', fetchGeo: true }, { headers: forwarded, ip: '127.0.0.1' })
      ).json();
      const ignored = (
        await track(ctx.app, { slug: 'hello', fetchGeo: true }, { headers: forwarded, ip: '127.0.0.1' })
      ).json();
      const direct = (
        await track(ctx.app, { slug: 'hello', fetchGeo: true }, { headers, ip: '8.8.8.8' })
      ).json();
      const rows = await rawPageViews(ctx.db, project.id);
      const country = (id: string) => rows.find((row) => row.id === id)!.country;
      assert.equal(country(trusted.id), 'US');
      assert.equal(country(ignored.id), null);
      assert.equal(trusted.visitorId, direct.visitorId, 'the forwarded address is the visitor');
      assert.notEqual(ignored.visitorId, direct.visitorId);
    } finally {
      await proxied.close();
    }
  });

  test('GEOIP_DATABASE replaces the bundled database, and a file that cannot be read fails at start', async () => {
    const { project, headers } = await blog();
    const ipv4Only = bundledGeoDatabasePath().replace('dbip-country.mmdb', 'dbip-country-ipv4.mmdb');
    const app = await buildApp({ db: ctx.db, geoipDatabase: ipv4Only });
    try {
      const v4 = (await track(app, { slug: 'hello', fetchGeo: true }, { headers, ip: '8.8.8.8' })).json().id;
      const v6 = (
        await track(app, { slug: 'hello', fetchGeo: true }, { headers, ip: '2a00:1450:4001:81b::200e' })
      ).json().id;
      const rows = await rawPageViews(ctx.db, project.id);
      assert.equal(rows.find((row) => row.id === v4)!.country, 'US');
      assert.equal(
        rows.find((row) => row.id === v6)!.country,
        null,
        'an IPv4-only file knows no IPv6 address',
      );
    } finally {
      await app.close();
    }
    await assert.rejects(
      buildApp({ db: ctx.db, geoipDatabase: '/nonexistent/geo.mmdb' }),
      /GeoIP database '\/nonexistent\/geo.mmdb'/,
    );
  });
});
