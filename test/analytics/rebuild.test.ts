// The rebuild of the derived analytics from the raw page views: it equals the build kept by the
// writes and roll-ups, row for row, in every derived table; tracking goes on while it runs, each
// view answered counted exactly once; and a running server answers the rebuilt figures next.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import {
  firstRebuiltDay,
  recordedRetention,
  recordRetentionDays,
} from '../../src/analytics/rollups/queries/retention-setting.ts';
import { packCounts } from '../../src/analytics/rollups/packed-counts.ts';
import { firstRetainedDay, runCleanup } from '../../src/analytics/rollups/retention.ts';
import { rebuildRollups } from '../../src/analytics/rollups/queries/rebuild-rollups.ts';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { utcDay } from '../../src/analytics/days.ts';
import { buildApp } from '../../src/app.ts';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { articleInput, createTestProject, describeEachDialect, getJson, importArticles } from '../helpers.ts';
import {
  awayFromMidnight,
  browser,
  daysAgo,
  ips,
  otherBrowser,
  random,
  referenceRollups,
  storedRollups,
  track,
  update,
  writePageViews,
  rawPageViews,
} from './support.ts';
import { projectNumSql } from '../../src/db/id-numbers.ts';

/** Every table derived from the raw page views (the catalog check below keeps this list whole). */
const derivedTables = [
  'analytics_daily_totals',
  'analytics_daily_articles',
  'analytics_daily_countries',
  'analytics_daily_visitors',
  'analytics_series',
  'analytics_breakdowns',
  'analytics_visitor_entries',
  // The rows of the view analytics_daily_articles, as stored (migration 0042).
  'analytics_article_days',
  'article_views',
  'rollup_queue',
];
/** Analytics tables that are not derived from page views, and the visitor sets of releases before 0041 (never written now; a rebuild empties its days). */
const sourceTables = ['analytics_salts', 'analytics_settings', 'analytics_visitor_sets'];
/** Derived tables that name the project by its number. */
const byProjectNum = new Set(['analytics_visitor_entries', 'analytics_article_days']);

/** Numeric columns that are part of a table's key, not counts. */
const numericKeys = new Set(['seconds']);

/**
 * Every derived row of the project, as sorted JSON lines per table, once the queue is rolled up.
 * A row whose counts are all zero is no row: an update that moves a page view out of a bucket
 * (its reading time, its depth) leaves the old bucket's row at zero, where a rebuild has none.
 */
async function derivedRows(db: Db, projectId: string): Promise<Record<string, string[]>> {
  await rollUpQueued(db);
  const snapshot: Record<string, string[]> = {};
  for (const table of derivedTables) {
    const project = byProjectNum.has(table)
      ? sql`project_num = ${projectNumSql(projectId)}`
      : sql`project_id = ${projectId}`;
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}
      where ${project}`.execute(db.kysely);
    snapshot[table] = rows
      .filter((row) => {
        const counts = Object.entries(row).filter(
          ([key, value]) => typeof value !== 'string' && !numericKeys.has(key) && key !== 'seq',
        );
        return counts.length === 0 || counts.some(([, value]) => Number(value) !== 0);
      })
      .map((row) => {
        const { seq: _seq, ...rest } = row;
        return JSON.stringify(
          Object.fromEntries(
            Object.entries(rest)
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value]),
          ),
        );
      })
      .sort();
  }
  return snapshot;
}

async function tableNames(db: Db): Promise<string[]> {
  const query =
    db.dialect === 'postgres'
      ? sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = current_schema()`
      : sql<{ name: string }>`select name from sqlite_master where type = 'table'`;
  return (await query.execute(db.kysely)).rows.map((row) => row.name);
}

const slugs = ['alpha', 'beta', 'gamma', 'delta'];

describeEachDialect('rebuild', (ctx) => {
  test('every analytics table but the salts and settings is one the rebuild recomputes', async () => {
    const analytics = (await tableNames(ctx.db)).filter((name) => name.startsWith('analytics_'));
    assert.ok(analytics.length >= 9);
    for (const name of analytics) {
      assert.ok(derivedTables.includes(name) || sourceTables.includes(name), `${name} is not rebuilt`);
    }
  });

  test('the retention recorded by servers: a longer one rebuilds only what the shorter one left complete', async () => {
    // Recorded in the test database by this suite only (one database per suite).
    const now = new Date();
    await recordRetentionDays(ctx.db.kysely, 30, now);
    let recorded = await recordedRetention(ctx.db.kysely);
    assert.deepEqual(
      { ...recorded, recordedAt: undefined },
      { days: 30, completeFrom: null, recordedAt: undefined },
    );
    assert.equal(firstRebuiltDay(recorded!, now), firstRetainedDay(30, now));
    await recordRetentionDays(ctx.db.kysely, 10, now);
    recorded = await recordedRetention(ctx.db.kysely);
    assert.equal(firstRebuiltDay(recorded!, now), firstRetainedDay(10, now));
    // Raised to 400: the days the 10-day setting trimmed stay out until the window passes them.
    await recordRetentionDays(ctx.db.kysely, 400, now);
    recorded = await recordedRetention(ctx.db.kysely);
    assert.equal(recorded!.days, 400);
    assert.equal(firstRebuiltDay(recorded!, now), firstRetainedDay(10, now));
    const later = new Date(now.getTime() + 400 * 86_400_000);
    assert.equal(firstRebuiltDay(recorded!, later), firstRetainedDay(400, later));
  });

  test('a rebuild equals the build of the writes and roll-ups, row for row, in every derived table', async () => {
    await awayFromMidnight();
    const rng = random(11);
    const owner = await createTestProject(ctx.db);
    await importArticles(
      ctx.db,
      owner.project,
      slugs.map((slug) => articleInput({ slug })),
    );
    await writePageViews(ctx.db, owner.project, [
      { slug: 'alpha', at: daysAgo(5), timeOnPage: 40, scrollDepth: 95, country: 'FR' },
      { slug: 'beta', at: daysAgo(5, '13:30:00.000'), timeOnPage: 2, visitor: 'x' },
      { slug: 'alpha', at: daysAgo(2), scrollDepth: 30, sdk: true, visitor: 'x' },
      { slug: 'gamma', at: new Date(Date.now() - 20 * 3_600_000), bounced: false, country: 'DE' },
    ]);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const body: Record<string, unknown> = { slug: rng.pick(slugs), fetchGeo: rng.chance(0.6) };
      if (rng.chance(0.5)) body.timeOnPage = rng.measure(30);
      if (rng.chance(0.5)) body.scrollDepth = rng.measure(100);
      if (rng.chance(0.4)) body.referrer = rng.pick(['https://www.google.com/', 'https://t.co/x']);
      if (rng.chance(0.4)) body.utmSource = rng.pick(['newsletter', 'twitter']);
      if (rng.chance(0.3)) body.events = [{ type: 'click', timeOffset: rng.below(5000) }];
      const response = await track(ctx.app, body, {
        headers: owner.headers,
        ip: rng.pick(ips),
        userAgent: rng.pick([browser, otherBrowser]),
      });
      assert.equal(response.statusCode, 201, response.body);
      ids.push(response.json().id);
    }
    for (let i = 0; i < 20; i++) {
      const response = await update(
        ctx.app,
        rng.pick(ids),
        { timeOnPage: rng.measure(90), scrollDepth: rng.measure(100), bounced: rng.chance(0.5) },
        { headers: owner.headers },
      );
      assert.equal(response.statusCode, 200, response.body);
    }
    // As the server keeps them: the cleanup forgets the visitor sets of the days whose salt is gone.
    await runCleanup(ctx.db, { retentionDays: null });
    const built = await derivedRows(ctx.db, owner.project.id);
    for (const table of derivedTables.filter((name) => name !== 'rollup_queue')) {
      assert.ok(built[table].length > 0, `${table} holds rows to compare`);
    }

    // Rollups in doubt: view counts, series, articles' visitors and reach, a visitor set, all wrong.
    await ctx.db.kysely.updateTable('article_views').set({ view_count: 1000 }).execute();
    await ctx.db.kysely.updateTable('analytics_series').set({ views: 99 }).execute();
    await ctx.db.kysely
      .updateTable('analytics_article_days')
      .set({
        visitors: 99,
        reach3: 7,
        hours: packCounts(new Map([[1, [2, 3, 4, 5]]])),
        read_times: new Uint8Array(0),
      })
      .execute();
    await ctx.db.kysely.deleteFrom('analytics_visitor_entries').execute();
    const summary = await rebuildRollups(ctx.db.kysely, owner.project.id, utcDay(Date.now()));
    assert.equal(summary.firstDay, utcDay(daysAgo(5)));
    assert.deepEqual(await derivedRows(ctx.db, owner.project.id), built);
  });

  test('a rebuild with writes still queued counts each once, view counts included', async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [
      articleInput({ slug: 'alpha' }),
      articleInput({ slug: 'beta' }),
    ]);
    const app = await buildApp({ db: ctx.db, rollupDelayMs: 3_600_000 });
    try {
      for (const slug of ['alpha', 'alpha', 'beta'])
        assert.equal((await track(app, { slug }, { headers: owner.headers })).statusCode, 201);
      await rebuildRollups(ctx.db.kysely, owner.project.id, utcDay(Date.now()));
      const project = await getJson(app, '/v1/project', owner.headers);
      assert.equal(project.body.data.stats.totalViews, 3);
      const alpha = await getJson(app, '/v1/articles/alpha', owner.headers);
      assert.equal(alpha.body.data.viewCount, 2);
      const stats = await getJson(app, '/v1/analytics/stats?days=1', owner.headers);
      assert.equal(stats.body.data.summary.totalViews, 3);
    } finally {
      await app.close();
    }
  });

  test('tracking goes on during a rebuild, and every view answered 201 is counted exactly once', async () => {
    await awayFromMidnight();
    const owner = await createTestProject(ctx.db);
    await importArticles(
      ctx.db,
      owner.project,
      slugs.map((slug) => articleInput({ slug })),
    );
    // Forty days of history, so that the rebuild runs for many short transactions.
    await writePageViews(
      ctx.db,
      owner.project,
      Array.from({ length: 80 }, (_, i) => ({
        slug: slugs[i % 4],
        at: daysAgo(1 + (i % 40)),
        visitor: `v${i % 7}`,
      })),
    );
    const app = await buildApp({ db: ctx.db, rollupDelayMs: 5 });
    // The rebuild through a handle of its own, as the CLI's process would.
    const cli = openDatabase(ctx.url);
    try {
      // One view first, so that the app's first-request work (threads, caches) is not what the
      // rebuild races against on a loaded machine.
      const warm = await track(app, { slug: slugs[0] }, { headers: owner.headers, ip: ips[0] });
      assert.equal(warm.statusCode, 201, warm.body);
      let rebuilding = true;
      let answeredDuring = 0;
      const answered: string[] = [warm.json().id];
      const rebuild = rebuildRollups(cli.kysely, owner.project.id, utcDay(Date.now())).finally(() => {
        rebuilding = false;
      });
      const trackers = Array.from({ length: 3 }, async (_, lane) => {
        for (let i = 0; rebuilding || i < 5; i++) {
          // Sent while the rebuild runs: the rebuild must not hold it back or refuse it.
          const sentDuring = rebuilding;
          const response = await track(
            app,
            { slug: slugs[(lane + i) % 4], scrollDepth: (i * 17) % 100 },
            { headers: owner.headers, ip: ips[(lane + i) % ips.length] },
          );
          assert.equal(response.statusCode, 201, response.body);
          answered.push(response.json().id);
          if (sentDuring) answeredDuring++;
          if (i % 3 === 0) {
            const updated = await update(
              app,
              answered[answered.length - 1],
              { timeOnPage: 12 },
              { headers: owner.headers },
            );
            assert.equal(updated.statusCode, 200, updated.body);
          }
        }
      });
      await Promise.all([rebuild, ...trackers]);
      assert.ok(answeredDuring > 0, 'views sent while the rebuild ran were answered 201');

      const stored = new Set((await rawPageViews(ctx.db, owner.project.id)).map((view) => view.id));
      assert.equal(answered.filter((id) => stored.has(id)).length, answered.length);
      assert.deepEqual(
        await storedRollups(ctx.db, owner.project.id),
        await referenceRollups(ctx.db, owner.project.id),
      );
      const counts = await ctx.db.kysely
        .selectFrom('articles')
        .leftJoin('article_views', 'article_views.article_id', 'articles.id')
        .select(['articles.id', 'article_views.view_count'])
        .where('articles.project_id', '=', owner.project.id)
        .execute();
      const viewed = await rawPageViews(ctx.db, owner.project.id);
      for (const { id, view_count } of counts) {
        const views = viewed.filter((view) => view.article_id === id).length;
        assert.equal(Number(view_count ?? 0), views, `view count of ${id}`);
      }
      const today = (await storedRollups(ctx.db, owner.project.id)).days[utcDay(Date.now())];
      assert.equal(today.views, answered.length);
    } finally {
      await app.close();
      await cli.close();
    }
  });

  test('a running server answers the rebuilt figures on its next request', async () => {
    await awayFromMidnight();
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [
      articleInput({ slug: 'alpha' }),
      articleInput({ slug: 'beta' }),
    ]);
    await writePageViews(ctx.db, owner.project, [
      { slug: 'alpha', at: daysAgo(5) },
      { slug: 'alpha', at: daysAgo(5) },
      { slug: 'alpha', at: daysAgo(4) },
      { slug: 'beta', at: daysAgo(5) },
    ]);
    await rollUpQueued(ctx.db);
    // Rollups in doubt, then read (and cached) by the server: beta looks like the most read.
    const beta = await ctx.db.kysely
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', owner.project.id)
      .where('slug', '=', 'beta')
      .executeTakeFirstOrThrow();
    await ctx.db.kysely
      .updateTable('analytics_article_days')
      .set({ views: 10 })
      .where('article_num', '=', (eb) =>
        eb.selectFrom('article_nums').select('num').where('article_id', '=', beta.id),
      )
      .execute();
    await ctx.db.kysely
      .updateTable('article_views')
      .set({ view_count: 10 })
      .where('article_id', '=', beta.id)
      .execute();
    const app = await buildApp({ db: ctx.db });
    const cli = openDatabase(ctx.url);
    try {
      const topOf = async () =>
        (await getJson(app, '/v1/analytics/stats?days=30', owner.headers)).body.data.topArticles.map(
          (article: { slug: string; views: number }) => `${article.slug} ${article.views}`,
        );
      const viewCountOf = async () =>
        (await getJson(app, '/v1/articles/beta', owner.headers)).body.data.viewCount;
      assert.deepEqual(await topOf(), ['beta 10', 'alpha 3']);
      assert.equal(await viewCountOf(), 10);
      assert.equal(await viewCountOf(), 10);

      await rebuildRollups(cli.kysely, owner.project.id, utcDay(Date.now()));
      // PostgreSQL: the notification of the rebuild has reached this instance's listener.
      await ctx.db.changesSeen();
      assert.deepEqual(await topOf(), ['alpha 3', 'beta 1']);
      assert.equal(await viewCountOf(), 1);
    } finally {
      await app.close();
      await cli.close();
    }
  });
});
