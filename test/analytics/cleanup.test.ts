// The cleanup (retention.ts): visitor ids and salts of the days before yesterday, and raw page views
// past the retention, are deleted in short batches until none is left, outside any request, with
// its work in the metrics and its failures in the log. FOLIO_CLEANUP_ROWS sets the size of the
// bulk test (CI: 20,000; `FOLIO_CLEANUP_ROWS=2000000` is the run reported in bench/README.md).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { Registry } from 'prom-client';
import { registerCleanupMetrics } from '../../src/analytics/rollups/cleanup-metrics.ts';
import { delayUntilNextRun, runCleanup, startCleanup } from '../../src/analytics/rollups/retention.ts';
import { utcDay } from '../../src/analytics/days.ts';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { articleInput, createTestProject, describeEachDialect, importArticles } from '../helpers.ts';
import {
  awayFromMidnight,
  daysAgo,
  endsWithin,
  factoryRow,
  holdRows,
  insertRawPageViews,
  pageViewCount,
  track,
  rawPageViews,
} from './support.ts';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';

const bulkRows = Number(process.env.FOLIO_CLEANUP_ROWS ?? 20_000);
const bulkBatch = Number(process.env.FOLIO_CLEANUP_BATCH ?? (bulkRows >= 1_000_000 ? 0 : 500)) || undefined;

const day = (days: number) => utcDay(daysAgo(days));

type VisitorTable = 'analytics_visitor_sets' | 'analytics_daily_visitors';

/** Inserts `rows` visitor ids of `onDay` into `table` in one statement. */
async function insertVisitors(db: Db, table: VisitorTable, projectId: string, onDay: string, rows: number) {
  const scope = table === 'analytics_visitor_sets' ? sql`'project', ` : sql``;
  const columns = table === 'analytics_visitor_sets' ? sql`scope, ` : sql``;
  const into = sql`insert into ${sql.table(table)} (project_id, day, ${columns}visitor_id)`;
  if (db.dialect === 'postgres') {
    await sql`${into} select ${projectId}, ${onDay}, ${scope}'v' || i from generate_series(1, ${rows}) as i`.execute(
      db.kysely,
    );
  } else {
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
      ${into} select ${projectId}, ${onDay}, ${scope}'v' || i from n`.execute(db.kysely);
  }
}

function percentile(values: number[], rank: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(rank * sorted.length))] ?? 0);
}

async function rowsByDay(db: Db, table: VisitorTable | 'page_views', projectId: string) {
  if (table === 'page_views') {
    const counts: Record<string, number> = {};
    for (const view of await rawPageViews(db, projectId)) counts[view.day] = (counts[view.day] ?? 0) + 1;
    return Object.fromEntries(Object.entries(counts).sort());
  }
  const rows = await db.kysely
    .selectFrom(table)
    .select(['day', (eb) => eb.fn.countAll<number>().as('rows')])
    .where('project_id', '=', projectId)
    .groupBy('day')
    .orderBy('day')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.day, Number(row.rows)]));
}

describeEachDialect('cleanup', (ctx) => {
  test('visitor ids before yesterday go in batches, from every project; later ones and daily counts stay', async () => {
    await awayFromMidnight();
    const first = (await createTestProject(ctx.db)).project.id;
    const second = (await createTestProject(ctx.db)).project.id;
    for (const projectId of [first, second]) {
      for (const days of [30, 2, 1, 0]) {
        await insertVisitors(ctx.db, 'analytics_visitor_sets', projectId, day(days), 7);
        await insertVisitors(ctx.db, 'analytics_daily_visitors', projectId, day(days), 5);
      }
    }
    const deleted = await runCleanup(ctx.db, { retentionDays: null, batchSize: 3 });
    assert.equal(deleted.analytics_visitor_sets, 2 * 2 * 7);
    assert.equal(deleted.analytics_daily_visitors, 2 * 2 * 5);
    for (const projectId of [first, second]) {
      assert.deepEqual(await rowsByDay(ctx.db, 'analytics_visitor_sets', projectId), {
        [day(1)]: 7,
        [day(0)]: 7,
      });
      assert.deepEqual(await rowsByDay(ctx.db, 'analytics_daily_visitors', projectId), {
        [day(1)]: 5,
        [day(0)]: 5,
      });
    }
    const again = await runCleanup(ctx.db, { retentionDays: null, batchSize: 3 });
    assert.equal(again.analytics_visitor_sets + again.analytics_daily_visitors, 0);
  });

  test('raw page views past the retention go only when a retention is set', async () => {
    await awayFromMidnight();
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'alpha' })]);
    const writer = new PageViewWriter(ctx.db);
    for (const [index, days] of [12, 11, 10, 9, 0].entries())
      await writer.write({
        kind: 'create',
        row: factoryRow(owner.project, { slug: 'alpha', at: daysAgo(days) }, index),
        slug: 'alpha',
      });
    await writer.idle();
    assert.equal((await runCleanup(ctx.db, { retentionDays: null })).page_views, 0);
    assert.equal(await pageViewCount(ctx.db, owner.project.id), 5);
    assert.equal((await runCleanup(ctx.db, { retentionDays: 10, batchSize: 2 })).page_views, 3);
    assert.deepEqual(await rowsByDay(ctx.db, 'page_views', owner.project.id), { [day(9)]: 1, [day(0)]: 1 });
  });

  test("retention deletes only the expired views, not this month's ones that share their place in another partition", async () => {
    await awayFromMidnight();
    const { project } = await createTestProject(ctx.db);
    // PostgreSQL: the first rows of two month partitions (or of the default one and a month's)
    // have the same address in each.
    const old = daysAgo(40);
    await insertRawPageViews(ctx.db.kysely, [
      factoryRow(project, { slug: 'x', at: old }, 0),
      factoryRow(project, { slug: 'x', at: old }, 1),
    ]);
    await insertRawPageViews(ctx.db.kysely, [factoryRow(project, { slug: 'x', at: daysAgo(0) }, 2)]);
    assert.equal((await runCleanup(ctx.db, { retentionDays: 30 })).page_views, 2);
    assert.deepEqual(await rowsByDay(ctx.db, 'page_views', project.id), { [day(0)]: 1 });
  });

  test(`${bulkRows} visitor-set rows older than a day are all gone after one run, while tracking answers 201`, async (t) => {
    await awayFromMidnight();
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'hello' })]);
    const projectId = owner.project.id;
    const oldDays = [day(2), day(3), day(40)];
    const inserting = Date.now();
    for (const [index, onDay] of oldDays.entries()) {
      const rows = Math.floor(bulkRows / oldDays.length) + (index === 0 ? bulkRows % oldDays.length : 0);
      await insertVisitors(ctx.db, 'analytics_visitor_sets', projectId, onDay, rows);
    }
    await insertVisitors(ctx.db, 'analytics_visitor_sets', projectId, day(1), 100);
    t.diagnostic(`inserted ${bulkRows} rows in ${Date.now() - inserting} ms`);

    // PostgreSQL: the cleanup's own handle, with the query timeout of the server's pool.
    const cleanupDb =
      ctx.dialect === 'postgres' ? openDatabase(ctx.url, { poolSize: 2, queryTimeoutMs: 1500 }) : ctx.db;
    const statuses: number[] = [];
    let running = true;
    const tracking = (async () => {
      for (let i = 0; running; i++) {
        const response = await track(
          ctx.app,
          { slug: 'hello' },
          { headers: owner.headers, ip: `198.51.100.${i % 250}` },
        );
        statuses.push(response.statusCode);
      }
    })();
    const started = Date.now();
    const batchMs: number[] = [];
    const deleted = await runCleanup(cleanupDb, {
      retentionDays: null,
      batchSize: bulkBatch,
      onBatch: (_table, _rows, batchTime) => {
        batchMs.push(batchTime);
      },
    }).finally(() => {
      running = false;
    });
    const ms = Date.now() - started;
    await tracking;
    if (cleanupDb !== ctx.db) await cleanupDb.close();

    const left = await rowsByDay(ctx.db, 'analytics_visitor_sets', projectId);
    const oldLeft = oldDays.reduce((sum, onDay) => sum + (left[onDay] ?? 0), 0);
    t.diagnostic(
      `${ctx.dialect}: deleted ${deleted.analytics_visitor_sets} in ${ms} ms, ${oldLeft} old rows left; ` +
        `${batchMs.length} batches, median ${percentile(batchMs, 0.5)} ms, longest ${percentile(batchMs, 1)} ms; ` +
        `${statuses.length} track requests meanwhile, ${statuses.filter((s) => s === 201).length} answered 201`,
    );
    assert.equal(oldLeft, 0);
    assert.equal(deleted.analytics_visitor_sets, bulkRows);
    assert.equal(left[day(1)], 100, "yesterday's set stays");
    assert.ok(statuses.length > 0);
    assert.deepEqual(
      statuses.filter((status) => status !== 201),
      [],
    );
  });

  test('two runs at once delete every row once and leave none', async () => {
    await awayFromMidnight();
    const projectId = (await createTestProject(ctx.db)).project.id;
    await insertVisitors(ctx.db, 'analytics_visitor_sets', projectId, day(5), 3000);
    await insertVisitors(ctx.db, 'analytics_daily_visitors', projectId, day(5), 1000);
    const other = ctx.dialect === 'postgres' ? openDatabase(ctx.url, { poolSize: 2 }) : ctx.db;
    const runs = await Promise.all([
      runCleanup(ctx.db, { retentionDays: null, batchSize: 100 }),
      runCleanup(other, { retentionDays: null, batchSize: 100 }),
    ]);
    if (other !== ctx.db) await other.close();
    assert.equal(runs[0].analytics_visitor_sets + runs[1].analytics_visitor_sets, 3000);
    assert.equal(runs[0].analytics_daily_visitors + runs[1].analytics_daily_visitors, 1000);
    assert.deepEqual(await rowsByDay(ctx.db, 'analytics_visitor_sets', projectId), {});
    assert.deepEqual(await rowsByDay(ctx.db, 'analytics_daily_visitors', projectId), {});
  });

  test("PostgreSQL: a run never waits for rows another transaction holds (another instance's batch): it leaves them and ends", async (t) => {
    if (ctx.dialect !== 'postgres') return t.skip('SQLite has one writer at a time');
    await awayFromMidnight();
    const projectId = (await createTestProject(ctx.db)).project.id;
    await insertVisitors(ctx.db, 'analytics_visitor_sets', projectId, day(5), 300);
    // Another transaction holds 20 rows from the middle of the walk, as another instance's batch does.
    const release = await holdRows(ctx.url, (trx) =>
      // Named first, then locked: rows an OFFSET passes over would be locked too.
      sql`select 1 from analytics_visitor_sets where (project_id, day, scope, visitor_id) in (
          select project_id, day, scope, visitor_id from analytics_visitor_sets where project_id = ${projectId}
          order by day, scope, visitor_id offset 100 limit 20)
        for update`.execute(trx),
    );
    try {
      const run = runCleanup(ctx.db, { retentionDays: null, batchSize: 50 });
      assert.ok(await endsWithin(run, 10_000), 'the run ended while the rows were held');
      assert.equal((await run).analytics_visitor_sets, 280);
      assert.deepEqual(await rowsByDay(ctx.db, 'analytics_visitor_sets', projectId), { [day(5)]: 20 });
    } finally {
      await release();
    }
    // Once they are free, the next run takes them.
    assert.equal(
      (await runCleanup(ctx.db, { retentionDays: null, batchSize: 50 })).analytics_visitor_sets,
      20,
    );
    assert.deepEqual(await rowsByDay(ctx.db, 'analytics_visitor_sets', projectId), {});
  });

  test('rows written behind the walk while it runs are deleted by the same run', async () => {
    await awayFromMidnight();
    const projectId = (await createTestProject(ctx.db)).project.id;
    await insertVisitors(ctx.db, 'analytics_visitor_sets', projectId, day(5), 50);
    let written = false;
    const deleted = await runCleanup(ctx.db, {
      retentionDays: null,
      batchSize: 10,
      onBatch: async () => {
        if (written) return;
        written = true;
        // An older day sorts before every row walked so far.
        await insertVisitors(ctx.db, 'analytics_visitor_sets', projectId, day(9), 1);
      },
    });
    assert.equal(deleted.analytics_visitor_sets, 51);
    assert.deepEqual(await rowsByDay(ctx.db, 'analytics_visitor_sets', projectId), {});
  });

  test('metrics: rows deleted by table, the age of the oldest row kept, and runs by outcome', async () => {
    await awayFromMidnight();
    const projectId = (await createTestProject(ctx.db)).project.id;
    await insertVisitors(ctx.db, 'analytics_visitor_sets', projectId, day(4), 9);
    await insertVisitors(ctx.db, 'analytics_visitor_sets', projectId, day(1), 2);
    const text = async () => (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
    const value = (exposition: string, series: string) => {
      const line = exposition.split('\n').find((candidate) => candidate.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    const deletedBefore =
      value(await text(), 'folio_cleanup_deleted_rows_total{table="analytics_visitor_sets"}') ?? 0;
    const completedBefore = value(await text(), 'folio_cleanup_runs_total{outcome="completed"}') ?? 0;
    await runCleanup(ctx.db, { retentionDays: null, batchSize: 4 });
    const exposition = await text();
    assert.equal(
      value(exposition, 'folio_cleanup_deleted_rows_total{table="analytics_visitor_sets"}'),
      deletedBefore + 9,
    );
    assert.equal(value(exposition, 'folio_cleanup_runs_total{outcome="completed"}'), completedBefore + 1);
    const ageOf = (onDay: string) => (Date.now() - Date.parse(`${onDay}T00:00:00Z`)) / 1000;
    const age = value(exposition, 'folio_cleanup_oldest_row_age_seconds{table="analytics_visitor_sets"}');
    assert.ok(age !== undefined && Math.abs(age - ageOf(day(1))) < 60, String(age));
    // Page views are kept without a retention; the oldest (of any project) is still reported.
    const oldestView = value(exposition, 'folio_cleanup_oldest_row_age_seconds{table="page_views"}');
    const stored = await ctx.db.kysely
      .selectFrom('page_view_rows')
      .select((eb) => eb.cast<string>('day', 'text').as('day'))
      .orderBy('day')
      .limit(1)
      .executeTakeFirst();
    if (stored === undefined) assert.equal(oldestView, undefined);
    else
      assert.ok(
        oldestView !== undefined && Math.abs(oldestView - ageOf(stored.day)) < 60,
        String(oldestView),
      );
  });
});

test('a failed run is logged as an error and counted, and the next run is scheduled', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-cleanup-'));
  const db = openDatabase(join(dir, 'folio.db'));
  // Never migrated: the cleanup's first statement fails (no such table).
  const registry = new Registry();
  registerCleanupMetrics(registry, db);
  const errors: Array<{ message: string; err: unknown }> = [];
  let logged: () => void = () => {};
  const nextError = () => new Promise<void>((resolve) => (logged = resolve));
  const log = {
    info() {},
    error(object: { err: unknown }, message: string) {
      errors.push({ message, err: object.err });
      logged();
    },
  } as unknown as FastifyBaseLogger;
  let error = nextError();
  const stop = startCleanup(db, 30, log, { firstAfterMs: 0, everyMs: 10 });
  try {
    await error;
    error = nextError();
    await error;
  } finally {
    await stop();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(errors.length, 2);
  assert.equal(errors[0].message, 'analytics cleanup failed');
  assert.match(String(errors[0].err), /no such table/);
  const runs = await registry.getSingleMetricAsString('folio_cleanup_runs_total');
  assert.match(runs, /folio_cleanup_runs_total\{outcome="failed"\} 2/);
});

test('runs are due hourly, and a minute after each UTC midnight', () => {
  assert.equal(delayUntilNextRun(new Date('2031-03-04T10:00:00Z')), 60 * 60 * 1000);
  assert.equal(delayUntilNextRun(new Date('2031-03-04T23:30:00Z')), 31 * 60 * 1000);
  assert.equal(delayUntilNextRun(new Date('2031-03-04T23:59:59Z')), 61 * 1000);
  assert.equal(delayUntilNextRun(new Date('2031-03-05T00:00:30Z')), 60 * 60 * 1000);
});
