// The insights read side must equal a computation from the raw page views: after random tracking
// traffic (referrers, UTM fields, screens, countries, events) with updates sent out of order and
// concurrently, across days, and after rebuilding its rollups from the raw rows. The reference below
// restates the documented rules independently of src/analytics/insight-rules.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';
import { rebuildRollups } from '../../src/analytics/rollups/queries/rebuild-rollups.ts';
import { KnownVisitors } from '../../src/analytics/rollups/known-visitors.ts';
import type { Db } from '../../src/db/database.ts';
import type { PageViewTable, Project } from '../../src/db/schema.ts';
import { articleInput, createTestProject, describeEachDialect, getJson, importArticles } from '../helpers.ts';
import {
  awayFromMidnight,
  browser,
  factoryRow,
  ips,
  otherBrowser,
  random,
  rawPageViews,
  storedRollups,
  track,
  update,
  withCountsText,
} from './support.ts';
import { projectNumSql } from '../../src/db/id-numbers.ts';

const slugs = ['alpha', 'beta', 'gamma'];
const referrers = [
  undefined,
  '',
  'https://www.Google.com/search?q=x',
  'https://google.com./',
  'https://news.ycombinator.com/item?id=1',
  'https://blog.example.com/other-post',
  'https://www.blog.example.com/',
  'not a url',
  'android-app://com.slack/',
];
const utm = [undefined, '', ' newsletter ', 'twitter', '=cmd|x', 'a,b "c"'];
const widths = [undefined, 0, 320, 767, 768, 1023, 1024, 2560];
const eventTypes = ['click', 'copy', 'share'];

// ---- the reference, from the raw rows and the documented rules ----

function host(url: string | null): string | null {
  if (!url) return null;
  try {
    const name = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
    return name.replace(/^www\./, '') || null;
  } catch {
    return null;
  }
}
const referenceValues: Record<string, (row: PageViewTable) => string[]> = {
  source: (row) => {
    const from = host(row.referrer);
    return [from === null || from === host(row.page_url) ? '(direct)' : from];
  },
  utm_source: (row) => [row.utm_source?.trim() || '(none)'],
  utm_medium: (row) => [row.utm_medium?.trim() || '(none)'],
  utm_campaign: (row) => [row.utm_campaign?.trim() || '(none)'],
  country: (row) => [row.country ?? '(unknown)'],
  device: (row) => {
    const width = row.screen_width === null ? 0 : Number(row.screen_width);
    return [width <= 0 ? '(unknown)' : width < 768 ? 'mobile' : width < 1024 ? 'tablet' : 'desktop'];
  },
  event: (row) => [...new Set((JSON.parse(row.events) as Array<{ type: string }>).map((e) => e.type))],
};

const round1 = (numerator: number, denominator: number) =>
  denominator === 0 ? 0 : Math.round((numerator / denominator) * 10) / 10;

function point(rows: PageViewTable[]) {
  const views = rows.length;
  return {
    views,
    visitors: new Set(rows.map((row) => row.visitor_id)).size,
    avgTimeOnPage: round1(rows.reduce((s, r) => s + Number(r.time_on_page_ms), 0) / 1000, views),
    avgScrollDepth: round1(rows.reduce((s, r) => s + Number(r.scroll_depth_centi), 0) / 100, views),
  };
}

function referenceBreakdown(rows: PageViewTable[], dimension: string) {
  const byValue = new Map<string, { views: number; events: number; visitors: Set<string> }>();
  for (const row of rows) {
    for (const value of referenceValues[dimension](row)) {
      const entry = byValue.get(value) ?? { views: 0, events: 0, visitors: new Set() };
      entry.views++;
      entry.events += (JSON.parse(row.events) as Array<{ type: string }>).filter(
        (e) => e.type === value,
      ).length;
      entry.visitors.add(`${row.day} ${row.visitor_id}`);
      byValue.set(value, entry);
    }
  }
  return [...byValue]
    .map(([value, entry]) => ({
      value,
      views: entry.views,
      visitors: entry.visitors.size,
      ...(dimension === 'event' ? { events: entry.events } : {}),
    }))
    .sort((a, b) => b.views - a.views || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

function referenceReading(rows: PageViewTable[], readTimeMinutes: number) {
  const furthest = rows.map((row) =>
    Math.max(
      Number(row.scroll_depth_centi) / 100,
      row.exit_position === null ? 0 : Number(row.exit_position),
    ),
  );
  const times = rows.map((row) => Math.floor(Number(row.time_on_page_ms) / 1000)).sort((a, b) => a - b);
  const lower = times.length === 0 ? null : times[Math.ceil(times.length / 2) - 1];
  const bucket =
    lower === null ? null : lower < 120 ? lower : lower < 1200 ? lower - (lower % 10) : lower - (lower % 30);
  const reads = rows.filter(
    (row) =>
      Number(row.scroll_depth_centi) >= 9000 && Number(row.time_on_page_ms) >= readTimeMinutes * 30_000,
  ).length;
  return {
    pageViews: rows.length,
    dropOff: [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((position) => {
      // Positions are compared on the stored hundredths, as exitPosition is kept to 0.01 here.
      const readers = furthest.filter((reach) => Math.round(reach * 100) >= position * 100).length;
      return { position, readers, percentage: round1(readers * 100, rows.length) };
    }),
    medianSeconds: bucket,
    reads,
  };
}

// ---- helpers ----

async function writeRows(db: Db, rows: Array<{ row: PageViewTable; slug: string }>): Promise<void> {
  const writer = new PageViewWriter(db);
  await Promise.all(rows.map(({ row, slug }) => writer.write({ kind: 'create', row, slug })));
  await writer.idle();
}

function dayOf(offset: number): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

async function storedInsights(db: Db, projectId: string) {
  const numbers = (row: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' ? v : Number(v)]));
  const nonZero = (row: Record<string, unknown>) =>
    Object.entries(row).some(([k, v]) => typeof v === 'number' && v !== 0 && k !== 'seconds');
  const tables = [
    'analytics_series',
    'analytics_breakdowns',
    // An article's day: its counters, visitors, reach deciles, hours and reading times.
    'analytics_daily_articles',
  ] as const;
  const result: Record<string, string[]> = {};
  for (const table of tables) {
    const rows = await db.kysely.selectFrom(table).selectAll().where('project_id', '=', projectId).execute();
    result[table] = rows
      .map((row) => numbers(withCountsText(row as Record<string, unknown>)))
      .filter(nonZero)
      .map((row) => JSON.stringify(row))
      .sort();
  }
  return result;
}

async function setupTraffic(db: Db, app: Parameters<typeof track>[0], seed: number) {
  const rng = random(seed);
  const owner = await createTestProject(db);
  await importArticles(db, owner.project, [
    articleInput({ slug: 'alpha', content: 'word '.repeat(550) }), // 2 minutes
    articleInput({ slug: 'beta', content: 'word '.repeat(1100) }), // 4 minutes
    articleInput({ slug: 'gamma', content: 'Short.' }), // 1 minute
  ]);
  const factory = (slug: string, at: Date, extra: Partial<PageViewTable>, index: number) => ({
    slug,
    row: { ...factoryRow(owner.project, { slug, at, visitor: `v${index % 3}` }, index), ...extra },
  });
  await writeRows(db, [
    factory(
      'alpha',
      new Date(Date.now() - 20 * 3_600_000),
      {
        referrer: 'https://duckduckgo.com/',
        screen_width: 400,
        time_on_page_ms: 70_000,
        scroll_depth_centi: 9500,
      },
      1,
    ),
    factory(
      'beta',
      new Date(Date.now() - 3 * 86_400_000),
      { country: 'FR', utm_source: 'mail', events: '[{"type":"click","timeOffset":1}]', event_count: 1 },
      2,
    ),
    factory('beta', new Date(Date.now() - 40 * 86_400_000), { time_on_page_ms: 2_000_000 }, 3),
  ]);
  const earlier = (await rawPageViews(db, owner.project.id)).find((row) => row.time_on_page_ms === 70_000)!;
  const ids: string[] = [earlier.id];
  for (let i = 0; i < 50; i++) {
    const slug = rng.pick(slugs);
    const body: Record<string, unknown> = {
      slug,
      fetchGeo: rng.chance(0.6),
      pageUrl: `https://blog.example.com/${slug}`,
    };
    const referrer = rng.pick(referrers);
    if (referrer !== undefined) body.referrer = referrer;
    for (const field of ['utmSource', 'utmMedium', 'utmCampaign']) {
      const value = rng.pick(utm);
      if (value !== undefined) body[field] = value;
    }
    const width = rng.pick(widths);
    if (width !== undefined) body.screenWidth = width;
    if (rng.chance(0.5)) body.timeOnPage = rng.measure(400);
    if (rng.chance(0.5)) body.scrollDepth = rng.measure(100);
    if (rng.chance(0.3)) body.exitPosition = rng.measure(100);
    if (rng.chance(0.3)) body.events = [{ type: rng.pick(eventTypes), timeOffset: 5 }];
    const response = await track(app, body, {
      headers: owner.headers,
      ip: rng.pick(ips),
      userAgent: rng.pick([browser, otherBrowser]),
    });
    assert.equal(response.statusCode, 201, response.body);
    ids.push(response.json().id);
  }
  for (let round = 0; round < 25; round++) {
    const sends = Array.from({ length: 1 + rng.below(6) }, () => {
      const body: Record<string, unknown> = {};
      if (rng.chance(0.7)) body.timeOnPage = rng.measure(400);
      if (rng.chance(0.7)) body.scrollDepth = rng.measure(100);
      if (rng.chance(0.4)) body.exitPosition = rng.measure(100);
      if (rng.chance(0.4)) body.events = [{ type: rng.pick(eventTypes), timeOffset: rng.below(10_000) }];
      if (rng.chance(0.05)) body.scrollDepth = 101; // refused: must change nothing
      return update(app, rng.pick(ids), body, { headers: owner.headers });
    });
    for (const response of await Promise.all(sends))
      assert.ok([200, 400].includes(response.statusCode), response.body);
  }
  return owner;
}

async function assertEndpointsMatch(
  ctx: { db: Db; app: any },
  owner: { project: Project; headers: Record<string, string> },
) {
  const rows = await rawPageViews(ctx.db, owner.project.id);
  const articles = await ctx.db.kysely
    .selectFrom('articles')
    .select(['id', 'slug', 'read_time_minutes'])
    .where('project_id', '=', owner.project.id)
    .execute();
  await assertSeriesMatch(ctx, owner, rows, articles);
  await assertBreakdownsAndReadingMatch(ctx, owner, rows, articles);
  const since = new Date(Date.now() - 5 * 60_000).toISOString();
  const live = rows.filter((row) => row.created_at >= since);
  const realtime = await getJson(ctx.app, '/v1/analytics/realtime', owner.headers);
  assert.equal(realtime.body.data.pageViews, live.length);
  assert.equal(realtime.body.data.visitors, new Set(live.map((row) => row.visitor_id)).size);
}

type RawRows = Awaited<ReturnType<typeof rawPageViews>>;
type ArticleRows = Array<{ id: string; slug: string; read_time_minutes: number }>;

/** The daily series (project and one article), the hourly one and one by dates. */
async function assertSeriesMatch(
  ctx: { db: Db; app: any },
  owner: { project: Project; headers: Record<string, string> },
  rows: RawRows,
  articles: ArticleRows,
) {
  // Daily series of 30 days, project and one article.
  for (const slug of [undefined, 'beta']) {
    const article = articles.find((a) => a.slug === slug);
    const scoped = article ? rows.filter((r) => r.article_id === article.id) : rows;
    const answer = await getJson(
      ctx.app,
      `/v1/analytics/timeseries?days=30${slug ? `&slug=${slug}` : ''}`,
      owner.headers,
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.data.interval, 'day');
    assert.equal(answer.body.data.points.length, 30);
    assert.deepEqual(
      answer.body.data.points,
      Array.from({ length: 30 }, (_, i) => {
        const day = dayOf(i - 29);
        return { time: `${day}T00:00:00.000Z`, ...point(scoped.filter((r) => r.day === day)) };
      }),
    );
  }
  // Hourly series of yesterday and today (the default for two days), up to the current hour.
  const hourly = await getJson(ctx.app, '/v1/analytics/timeseries?days=2&slug=alpha', owner.headers);
  const alpha = articles.find((a) => a.slug === 'alpha')!;
  const currentHour = new Date().toISOString().slice(0, 13);
  const hours: string[] = [];
  for (const day of [dayOf(-1), dayOf(0)])
    for (let h = 0; h < 24; h++) {
      const hour = `${day}T${String(h).padStart(2, '0')}`;
      if (hour <= currentHour) hours.push(hour);
    }
  assert.equal(hourly.body.data.interval, 'hour');
  assert.deepEqual(
    hourly.body.data.points,
    hours.map((hour) => ({
      time: `${hour}:00:00.000Z`,
      ...point(rows.filter((r) => r.article_id === alpha.id && r.created_at.slice(0, 13) === hour)),
    })),
  );
  // The 41-day window by dates reaches the oldest page view.
  const byDates = await getJson(
    ctx.app,
    `/v1/analytics/timeseries?from=${dayOf(-40)}&to=${dayOf(-38)}`,
    owner.headers,
  );
  assert.deepEqual(
    byDates.body.data.points.map((p: { views: number }) => p.views),
    [dayOf(-40), dayOf(-39), dayOf(-38)].map((day) => rows.filter((r) => r.day === day).length),
  );
}

/** Every breakdown dimension and the reading of every article, over 30 days. */
async function assertBreakdownsAndReadingMatch(
  ctx: { db: Db; app: any },
  owner: { project: Project; headers: Record<string, string> },
  rows: RawRows,
  articles: ArticleRows,
) {
  const inDays = (first: string, last: string, list = rows) =>
    list.filter((r) => r.day >= first && r.day <= last);
  for (const dimension of Object.keys(referenceValues)) {
    const answer = await getJson(
      ctx.app,
      `/v1/analytics/breakdown/${dimension}?days=30&limit=1000`,
      owner.headers,
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const expected = referenceBreakdown(inDays(dayOf(-29), dayOf(0)), dimension);
    assert.deepEqual(answer.body.data, expected, dimension);
    assert.equal(answer.body.meta.total, expected.length);
  }

  for (const article of articles) {
    const answer = await getJson(
      ctx.app,
      `/v1/analytics/articles/${article.slug}/reading?days=30`,
      owner.headers,
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const expected = referenceReading(
      inDays(dayOf(-29), dayOf(0)).filter((r) => r.article_id === article.id),
      Number(article.read_time_minutes),
    );
    const data = answer.body.data;
    assert.equal(data.pageViews, expected.pageViews, article.slug);
    assert.deepEqual(data.dropOff, expected.dropOff, article.slug);
    assert.equal(data.readingTime.estimatedSeconds, Number(article.read_time_minutes) * 60);
    assert.equal(data.readingTime.medianSeconds, expected.medianSeconds, article.slug);
    assert.deepEqual(data.readRatio, {
      reads: expected.reads,
      pageViews: expected.pageViews,
      percentage: round1(expected.reads * 100, expected.pageViews),
    });
  }
}

describeEachDialect('insights agree with the raw page views', (ctx) => {
  for (const seed of [11, 2027]) {
    test(`every endpoint equals the reference after random traffic and out-of-order updates (seed ${seed})`, async () => {
      await awayFromMidnight();
      const owner = await setupTraffic(ctx.db, ctx.app, seed);
      const bystander = await createTestProject(ctx.db);
      await importArticles(ctx.db, bystander.project, [articleInput({ slug: 'alpha' })]);
      await track(
        ctx.app,
        { slug: 'alpha', referrer: 'https://google.com/' },
        { headers: bystander.headers },
      );
      await assertEndpointsMatch(ctx, owner);

      // Rebuilding from the raw rows gives the same rollups, and the visitor sets of the days that
      // can still get page views.
      const before = await storedInsights(ctx.db, owner.project.id);
      const setsOf = async () =>
        (
          await sql`select cast(day as text) as day, entry from analytics_visitor_entries
            where project_num = ${projectNumSql(owner.project.id)}
              and day >= ${dayOf(-1)} order by day, entry`.execute(ctx.db.kysely)
        ).rows;
      const setsBefore = await setsOf();
      await rebuildRollups(ctx.db.kysely, owner.project.id, dayOf(0));
      assert.deepEqual(await storedInsights(ctx.db, owner.project.id), before);
      assert.deepEqual(await setsOf(), setsBefore);
      await assertEndpointsMatch(ctx, owner);
    });
  }
});

describeEachDialect('the rebuild states the rules in SQL', (ctx) => {
  test('its reach deciles, reading-time buckets and hours agree with the writes at every bound', async () => {
    await awayFromMidnight();
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'alpha' })]);
    // Times on both sides of each bucket width's change, depths and exits on both sides of decile
    // bounds (an exit of 9.995% rounds to 10.00%), and the deep-view threshold.
    const timesMs = [0, 999, 1000, 119_999, 120_000, 125_000, 1_199_999, 1_200_000, 1_215_000, 1_230_000];
    const exits = [null, 0, 9.994, 9.995, 19.9949, 89.995, 99.994, 99.995, 100];
    const depths = [0, 999, 1000, 8999, 9000, 9999, 10_000];
    const writer = new PageViewWriter(ctx.db);
    const writes: Promise<void>[] = [];
    let index = 0;
    for (const time of timesMs) {
      for (const exit of exits) {
        const depth = depths[index % depths.length];
        const at = new Date(Date.now() - (index % 3) * 3_600_000);
        const row = { ...factoryRow(owner.project, { slug: 'alpha', at }, index), exit_position: exit };
        row.time_on_page_ms = time;
        row.scroll_depth_centi = depth;
        writes.push(writer.write({ kind: 'create', row, slug: 'alpha' }));
        index++;
      }
    }
    await Promise.all(writes);
    await writer.idle();
    const before = await storedInsights(ctx.db, owner.project.id);
    await rebuildRollups(ctx.db.kysely, owner.project.id, dayOf(0));
    assert.deepEqual(await storedInsights(ctx.db, owner.project.id), before);
  });
});

describeEachDialect('returning visitors', (ctx) => {
  test('count once per scope across roll-ups, a rebuild, and a memo of stored visitors that starts again', async () => {
    await awayFromMidnight();
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [
      articleInput({ slug: 'alpha' }),
      articleInput({ slug: 'beta' }),
    ]);
    const view = (slug: string, visitor: string, index: number) => ({
      slug,
      row: {
        ...factoryRow(owner.project, { slug, visitor }, index),
        referrer: 'https://news.ycombinator.com/',
      },
    });
    const visitorsOf = async () => {
      const days = (await storedRollups(ctx.db, owner.project.id)).days;
      return Object.values(days).map((day) => day.visitors);
    };
    // A first roll-up stores v0 and v1 in every set of the day (and this process remembers them).
    await writeRows(ctx.db, [view('alpha', 'v0', 0), view('alpha', 'v1', 1)]);
    assert.deepEqual(await visitorsOf(), [2]);
    // They return, to the same and to another article, beside a new visitor.
    await writeRows(ctx.db, [view('alpha', 'v0', 2), view('beta', 'v0', 3), view('alpha', 'v2', 4)]);
    assert.deepEqual(await visitorsOf(), [3]);
    // After a rebuild (which stores the sets anew), and again.
    await rebuildRollups(ctx.db.kysely, owner.project.id, dayOf(0));
    await writeRows(ctx.db, [view('beta', 'v1', 5), view('beta', 'v2', 6), view('alpha', 'v3', 7)]);
    assert.deepEqual(await visitorsOf(), [4]);
    const stored = await storedInsights(ctx.db, owner.project.id);
    await rebuildRollups(ctx.db.kysely, owner.project.id, dayOf(0));
    assert.deepEqual(await storedInsights(ctx.db, owner.project.id), stored);
    const visitorsByScope = stored.analytics_breakdowns
      .map((text) => JSON.parse(text) as { dimension: string; visitors: number; views: number })
      .filter((row) => row.dimension === 'source');
    assert.deepEqual(
      visitorsByScope.map(({ views, visitors }) => ({ views, visitors })),
      [{ views: 8, visitors: 4 }],
    );
  });
});

describe('KnownVisitors', () => {
  test("keeps one day's entries, and forgets them when the day changes or it is full", () => {
    const known = new KnownVisitors().at('2026-01-01');
    known.learn(['a', 'b']);
    assert.ok(known.has('a') && known.has('b') && !known.has('c'));
    assert.equal(known.at('2026-01-01').has('a'), true);
    assert.equal(known.at('2026-01-02').has('a'), false);
    assert.equal(known.day, '2026-01-02');
    known.learn(Array.from({ length: 200_000 }, (_, i) => `k${i}`));
    assert.ok(known.has('k0'));
    known.learn(['one more']);
    assert.ok(known.has('one more') && !known.has('k0'));
  });
});
