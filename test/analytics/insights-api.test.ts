// The insights endpoints as a client sees them: periods and their validation, paging, CSV export
// with quoting and the formula guard, access, and the retention of raw page views.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guardCell, wantsCsv } from '../../src/analytics/reports/csv.ts';
import {
  deviceClass,
  readTimeBucket,
  reachDecile,
  referrerSource,
} from '../../src/analytics/insight-rules.ts';
import { rebuildRollups } from '../../src/analytics/rollups/queries/rebuild-rollups.ts';
import { deleteExpired, firstRetainedDay } from '../../src/analytics/rollups/retention.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
} from '../helpers.ts';
import { awayFromMidnight, daysAgo, factoryRow, pageViewCount, track } from './support.ts';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';

test('referrer sources: host in lower case without www., (direct) for none, non-URLs and the same site', () => {
  const page = 'https://blog.example.com/post';
  const cases: Array<[string | null, string]> = [
    [null, '(direct)'],
    ['', '(direct)'],
    ['   ', '(direct)'],
    ['nonsense', '(direct)'],
    ['https://www.google.com/search?q=folio', 'google.com'],
    ['https://WWW.Google.COM./', 'google.com'],
    ['https://news.ycombinator.com/item?id=1', 'news.ycombinator.com'],
    ['http://t.co/abc', 't.co'],
    ['https://blog.example.com/other', '(direct)'],
    ['https://www.blog.example.com/', '(direct)'],
    ['https://example.com/', 'example.com'],
    ['android-app://com.google.android.gm/', 'com.google.android.gm'],
  ];
  for (const [referrer, source] of cases)
    assert.equal(referrerSource(referrer, page), source, String(referrer));
  assert.equal(referrerSource('https://blog.example.com/', null), 'blog.example.com');
});

test('device classes from screen width: mobile < 768 ≤ tablet < 1024 ≤ desktop', () => {
  const cases: Array<[number | null, string]> = [
    [null, '(unknown)'],
    [0, '(unknown)'],
    [1, 'mobile'],
    [767, 'mobile'],
    [768, 'tablet'],
    [1023, 'tablet'],
    [1024, 'desktop'],
    [100000, 'desktop'],
  ];
  for (const [width, device] of cases) assert.equal(deviceClass(width), device, String(width));
});

test('reach deciles and reading-time buckets', () => {
  assert.equal(reachDecile(0, null), 0);
  assert.equal(reachDecile(999, null), 0);
  assert.equal(reachDecile(1000, null), 1);
  assert.equal(reachDecile(3000, 45.5), 4);
  assert.equal(reachDecile(9999, null), 9);
  assert.equal(reachDecile(10000, null), 10);
  assert.equal(reachDecile(0, 100), 10);
  const cases: Array<[number, number]> = [
    [0, 0],
    [999, 0],
    [1000, 1],
    [119_999, 119],
    [120_000, 120],
    [129_999, 120],
    [1_199_999, 1190],
    [1_200_000, 1200],
    [1_229_999, 1200],
    [1_230_000, 1230],
    [86_400_000, 86_400],
  ];
  for (const [ms, bucket] of cases) assert.equal(readTimeBucket(ms), bucket, String(ms));
  // Every half of an estimate (a multiple of 30 s) is the lower bound of its own bucket.
  for (let half = 0; half <= 86_400; half += 30) assert.equal(readTimeBucket(half * 1000), half);
});

test('CSV: the formula guard and content negotiation', () => {
  for (const cell of ['=SUM(A1)', '+1', '-1', '@x', '\tx', '\rx']) assert.equal(guardCell(cell), `'${cell}`);
  for (const cell of ['google.com', '(direct)', 'a=b', 5]) assert.equal(guardCell(cell), cell);
  assert.equal(wantsCsv('csv', undefined), true);
  assert.equal(wantsCsv('json', 'text/csv'), false);
  assert.equal(wantsCsv(undefined, 'text/csv'), true);
  assert.equal(wantsCsv(undefined, 'application/json, text/csv'), false);
  assert.equal(wantsCsv(undefined, 'application/json;q=0.5, text/csv'), true);
  assert.equal(wantsCsv(undefined, '*/*'), false);
  assert.equal(wantsCsv(undefined, undefined), false);
});

describeEachDialect('insights endpoints', (ctx) => {
  async function projectWithViews() {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'alpha' })]);
    return owner;
  }

  test('periods: each invalid combination is a 400 naming its parameter', async () => {
    const owner = await projectWithViews();
    const today = new Date().toISOString().slice(0, 10);
    const cases: Array<[string, string]> = [
      [`from=${today}&to=${daysAgo(1).toISOString().slice(0, 10)}`, 'from'],
      [`from=2020-01-01&to=2021-06-01`, 'from'],
      [`from=2999-01-01`, 'from'],
      [`from=${today}&to=2999-01-01`, 'to'],
      [`to=${today}`, 'from'],
      [`days=7&from=${today}`, 'days'],
      [`from=2026-02-30`, 'from'],
      [`from=20260101`, 'from'],
      [`days=0`, 'days'],
      [`days=366`, 'days'],
      [`days=7&interval=hour`, 'interval'],
      [`interval=week`, 'interval'],
    ];
    for (const [query, field] of cases) {
      const answer = await getJson(ctx.app, `/v1/analytics/timeseries?${query}`, owner.headers);
      assert.equal(answer.status, 400, query);
      assert.equal(answer.body.error, 'Bad Request');
      assert.ok(
        answer.body.details.issues.some((issue: { field: string }) => issue.field.includes(field)),
        `${query}: ${JSON.stringify(answer.body)}`,
      );
    }
    const span = await getJson(
      ctx.app,
      `/v1/analytics/timeseries?from=${daysAgo(365).toISOString().slice(0, 10)}&to=${today}`,
      owner.headers,
    );
    assert.equal(span.status, 200);
    assert.equal(span.body.data.period.days, 366);
    assert.equal(span.body.data.points.length, 366);
    for (const path of [
      '/v1/analytics/breakdown/source?to=2026-01-01',
      '/v1/analytics/articles/alpha/reading?from=x',
    ]) {
      assert.equal((await getJson(ctx.app, path, owner.headers)).status, 400, path);
    }
  });

  test('a past period by dates ends at the end of its last day; hours by default for two days', async () => {
    const owner = await projectWithViews();
    const first = daysAgo(3).toISOString().slice(0, 10);
    const last = daysAgo(2).toISOString().slice(0, 10);
    const answer = await getJson(ctx.app, `/v1/analytics/timeseries?from=${first}&to=${last}`, owner.headers);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.data.period, {
      days: 2,
      from: first,
      to: last,
      startDate: `${first}T00:00:00.000Z`,
      endDate: `${last}T23:59:59.999Z`,
    });
    assert.equal(answer.body.data.interval, 'hour');
    assert.equal(answer.body.data.points.length, 48);
    assert.equal(answer.body.data.points[47].time, `${last}T23:00:00.000Z`);
    const daily = await getJson(
      ctx.app,
      `/v1/analytics/timeseries?from=${first}&to=${last}&interval=day`,
      owner.headers,
    );
    assert.equal(daily.body.data.points.length, 2);
  });

  test('unknown slugs are 404, unknown dimensions 400, public keys 403', async () => {
    const owner = await projectWithViews();
    const missing = await getJson(ctx.app, '/v1/analytics/articles/nope/reading', owner.headers);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, "Article 'nope' not found");
    assert.equal((await getJson(ctx.app, '/v1/analytics/timeseries?slug=nope', owner.headers)).status, 404);
    const dimension = await getJson(ctx.app, '/v1/analytics/breakdown/browser', owner.headers);
    assert.equal(dimension.status, 400);
    assert.equal(dimension.body.details.issues[0].field, 'dimension');
    const other = await createTestProject(ctx.db);
    await importArticles(ctx.db, other.project, [articleInput({ slug: 'mine' })]);
    assert.equal((await getJson(ctx.app, '/v1/analytics/articles/mine/reading', owner.headers)).status, 404);
    const publicKey = await createTestKey(ctx.db, owner.project, { kind: 'public' });
    for (const path of [
      '/v1/analytics/timeseries',
      '/v1/analytics/breakdown/source',
      '/v1/analytics/articles/alpha/reading',
      '/v1/analytics/realtime',
    ]) {
      assert.equal((await getJson(ctx.app, path, publicKey.headers)).status, 403, path);
      assert.equal((await getJson(ctx.app, path)).status, 401, path);
    }
  });

  test('breakdown paging: views desc, ties by value, a page past the end is empty with the right meta', async () => {
    await awayFromMidnight();
    const owner = await projectWithViews();
    const referrers = [
      'https://b.example/',
      'https://a.example/',
      'https://c.example/',
      'https://a.example/x',
    ];
    for (const referrer of referrers) {
      assert.equal(
        (await track(ctx.app, { slug: 'alpha', referrer }, { headers: owner.headers })).statusCode,
        201,
      );
    }
    const page1 = await getJson(ctx.app, '/v1/analytics/breakdown/source?limit=2', owner.headers);
    assert.deepEqual(
      page1.body.data.map((row: { value: string; views: number }) => [row.value, row.views]),
      [
        ['a.example', 2],
        ['b.example', 1],
      ],
    );
    assert.equal(page1.body.meta.total, 3);
    assert.equal(page1.body.meta.totalPages, 2);
    const page2 = await getJson(ctx.app, '/v1/analytics/breakdown/source?limit=2&page=2', owner.headers);
    assert.deepEqual(
      page2.body.data.map((row: { value: string }) => row.value),
      ['c.example'],
    );
    const past = await getJson(ctx.app, '/v1/analytics/breakdown/source?limit=2&page=5', owner.headers);
    assert.deepEqual(past.body.data, []);
    assert.deepEqual(
      {
        page: past.body.meta.page,
        limit: past.body.meta.limit,
        total: past.body.meta.total,
        totalPages: past.body.meta.totalPages,
      },
      { page: 5, limit: 2, total: 3, totalPages: 2 },
    );
  });

  test('CSV export: format=csv or Accept: text/csv, RFC 4180 quoting, formula guard, every value', async () => {
    await awayFromMidnight();
    const owner = await projectWithViews();
    const campaigns = ['=HYPERLINK("x")', 'spring, "big" sale', '-2', 'plain', 'line\nbreak'];
    for (const utmCampaign of campaigns) {
      assert.equal(
        (await track(ctx.app, { slug: 'alpha', utmCampaign }, { headers: owner.headers })).statusCode,
        201,
      );
    }
    const byFormat = await ctx.app.inject({
      method: 'GET',
      url: '/v1/analytics/breakdown/utm_campaign?format=csv',
      headers: owner.headers,
    });
    const byAccept = await ctx.app.inject({
      method: 'GET',
      url: '/v1/analytics/breakdown/utm_campaign',
      headers: { ...owner.headers, accept: 'text/csv' },
    });
    for (const response of [byFormat, byAccept]) {
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/csv/);
      assert.match(
        String(response.headers['content-disposition']),
        /^attachment; filename="folio-utm_campaign-/,
      );
      assert.ok(response.headers.etag);
      assert.equal(
        response.body,
        [
          'value,views,visitors',
          `'-2,1,1`,
          `"'=HYPERLINK(""x"")",1,1`,
          '"line\nbreak",1,1',
          'plain,1,1',
          '"spring, ""big"" sale",1,1',
          '',
        ].join('\r\n'),
      );
    }
    const limited = await ctx.app.inject({
      method: 'GET',
      url: '/v1/analytics/breakdown/utm_campaign?format=csv&limit=2',
      headers: owner.headers,
    });
    assert.equal(limited.body.split('\r\n').length, 4);
    const bad = await ctx.app.inject({
      method: 'GET',
      url: '/v1/analytics/breakdown/utm_campaign?format=csv&from=nope',
      headers: owner.headers,
    });
    assert.equal(bad.statusCode, 400);
    assert.match(String(bad.headers['content-type']), /^application\/json/);
  });

  test('realtime counts the page views of the window only, not those stamped later than now', async () => {
    await awayFromMidnight();
    const owner = await projectWithViews();
    const writer = new PageViewWriter(ctx.db);
    const at = (minutes: number) => new Date(Date.now() + minutes * 60_000);
    const rows = [
      factoryRow(owner.project, { slug: 'alpha', at: at(-1), visitor: 'a' }, 0),
      factoryRow(owner.project, { slug: 'alpha', at: at(-2), visitor: 'a' }, 1),
      factoryRow(owner.project, { slug: 'alpha', at: at(-3), visitor: 'b' }, 2),
      factoryRow(owner.project, { slug: 'alpha', at: at(-6), visitor: 'before' }, 3),
      // A clock that stepped back, or a row written by a tool: not yet in any window.
      factoryRow(owner.project, { slug: 'alpha', at: at(10), visitor: 'later' }, 4),
    ];
    await Promise.all(rows.map((row) => writer.write({ kind: 'create', row, slug: 'alpha' })));
    await writer.idle();
    const { body } = await getJson(ctx.app, '/v1/analytics/realtime', owner.headers);
    assert.equal(body.data.pageViews, 3);
    assert.equal(body.data.visitors, 2);
  });

  test('retention: expired raw page views go in small batches; rollups and answers stay', async () => {
    await awayFromMidnight();
    const owner = await projectWithViews();
    const writer = new PageViewWriter(ctx.db);
    const old = daysAgo(10);
    const rows = [
      ...Array.from({ length: 7 }, (_, i) =>
        factoryRow(owner.project, { slug: 'alpha', at: old, visitor: `o${i}` }, i),
      ),
      factoryRow(owner.project, { slug: 'alpha', at: daysAgo(9), visitor: 'kept' }, 8),
      factoryRow(owner.project, { slug: 'alpha', at: new Date(), visitor: 'now' }, 9),
    ].map((row) => ({ ...row, referrer: 'https://news.ycombinator.com/' }));
    await Promise.all(rows.map((row) => writer.write({ kind: 'create', row, slug: 'alpha' })));
    await writer.idle();
    const other = await projectWithViews();
    const otherRow = factoryRow(other.project, { slug: 'alpha', at: old }, 0);
    await writer.write({ kind: 'create', row: otherRow, slug: 'alpha' });

    const before = await getJson(ctx.app, '/v1/analytics/breakdown/source?days=30', owner.headers);
    const series = await getJson(ctx.app, '/v1/analytics/timeseries?days=30', owner.headers);
    assert.equal(firstRetainedDay(10, new Date()), daysAgo(9).toISOString().slice(0, 10));
    assert.equal(await deleteExpired(ctx.db, 10, new Date(), { batchSize: 3 }), 8);
    assert.equal(await pageViewCount(ctx.db, owner.project.id), 2);
    assert.equal(await pageViewCount(ctx.db, other.project.id), 0);
    const source = async () =>
      (await getJson(ctx.app, '/v1/analytics/breakdown/source?days=30', owner.headers)).body.data;
    const points = async () =>
      (await getJson(ctx.app, '/v1/analytics/timeseries?days=30', owner.headers)).body.data.points;
    assert.deepEqual(before.body.data, [{ value: 'news.ycombinator.com', views: 9, visitors: 9 }]);
    assert.deepEqual(await source(), before.body.data);
    // Rebuilding the retained days keeps the rollups of the expired ones.
    const today = new Date().toISOString().slice(0, 10);
    await rebuildRollups(ctx.db.kysely, owner.project.id, today, firstRetainedDay(10, new Date()));
    assert.deepEqual(await points(), series.body.data.points);
    assert.deepEqual(await source(), before.body.data);
    assert.equal(await deleteExpired(ctx.db, 10, new Date()), 0);
  });
});
