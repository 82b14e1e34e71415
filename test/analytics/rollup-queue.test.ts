// The rollup queue: tracking writes commit the raw page view and a queue entry, and the rollups and
// view counts are summed later in batches; every read of statistics rolls up first, so it stays
// exact. Each entry counts once: across out-of-order updates, concurrent roll-ups of two instances,
// a rebuild, and a roll-up the database refuses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';
import { queueEntryOf } from '../../src/analytics/ingest/queries/write-store.ts';
import { withStringIds } from '../../src/db/page-view-strings.ts';
import { visitorEntryOf } from '../../src/db/visitor-entries.ts';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { rebuildRollups } from '../../src/analytics/rollups/queries/rebuild-rollups.ts';
import {
  deleteEntries,
  queuedPageViewsQuery,
  queuedUpTo,
} from '../../src/analytics/rollups/queries/rollup-queue-entries.ts';
import { utcDay } from '../../src/analytics/days.ts';
import { buildApp } from '../../src/app.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  describeEachDialect,
  eventually,
  getJson,
  importArticles,
  migrateBefore,
} from '../helpers.ts';
import {
  assertLooksUpPageViewsByKey,
  factoryRow,
  fillDay,
  referenceRollups,
  storedRollups,
  track,
  update,
} from './support.ts';
import { projectNumSql } from '../../src/db/id-numbers.ts';

// Long enough that no timer rolls up during a test: only reads and explicit calls do.
const noTimer = 3_600_000;

describeEachDialect('rollup queue', (ctx) => {
  async function blog() {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [
      articleInput({ slug: 'hello' }),
      articleInput({ slug: 'world' }),
    ]);
    return owner;
  }

  const queued = async (projectId: string) =>
    Number(
      (
        await ctx.db.kysely
          .selectFrom('rollup_queue')
          .select((eb) => eb.fn.countAll().as('count'))
          .where('project_id', '=', projectId)
          .executeTakeFirstOrThrow()
      ).count,
    );
  const storedViews = async (projectId: string) =>
    Number(
      (
        await ctx.db.kysely
          .selectFrom('analytics_daily_totals')
          .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('views'), eb.lit(0)).as('views'))
          .where('project_id', '=', projectId)
          .executeTakeFirstOrThrow()
      ).views,
    );

  test('a tracking write leaves the rollups and view counts alone; the roll-up adds it exactly once', async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db, { rollupDelayMs: noTimer });
    const rows = [0, 1, 2].map((i) => factoryRow(project, { slug: 'hello', scrollDepth: 30 * i }, i));
    await Promise.all(rows.map((row) => writer.write({ kind: 'create', row, slug: 'hello' })));
    assert.equal(await queued(project.id), 3);
    assert.equal(await storedViews(project.id), 0);
    const counted = await ctx.db.kysely.selectFrom('article_views').selectAll().execute();
    assert.equal(counted.filter((row) => row.project_id === project.id).length, 0);

    assert.equal(await rollUpQueued(ctx.db), 3);
    assert.equal(await queued(project.id), 0);
    assert.equal(await storedViews(project.id), 3);
    assert.equal(await rollUpQueued(ctx.db), 0);
    assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
  });

  test('updates queued before their page view was rolled up count once, with their last measures', async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db, { rollupDelayMs: noTimer });
    const row = factoryRow(project, { slug: 'hello', timeOnPage: 1 }, 0);
    await writer.write({ kind: 'create', row, slug: 'hello' });
    const now = new Date().toISOString();
    for (const patch of [{ timeOnPageMs: 12_000, scrollDepthCenti: 8000 }, { bounced: false }]) {
      await writer.write({ kind: 'update', projectId: project.id, id: row.id, patch, now });
    }
    assert.equal(await queued(project.id), 3);
    assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
    const day = Object.values((await storedRollups(ctx.db, project.id)).days)[0];
    assert.equal(day.views, 1);
    assert.equal(day.engaged, 1);
    assert.equal(day.bounced, 0);
    // And an update after the roll-up adds its difference only.
    await writer.write({ kind: 'update', projectId: project.id, id: row.id, patch: { bounced: true }, now });
    assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
    assert.equal(Object.values((await storedRollups(ctx.db, project.id)).days)[0].bounced, 1);
  });

  test('every statistics endpoint reads what was answered before it, with no roll-up timer', async () => {
    const { project, headers } = await blog();
    const app = await buildApp({ db: ctx.db, rollupDelayMs: noTimer });
    try {
      const created = await track(app, { slug: 'hello', scrollDepth: 95, timeOnPage: 30 }, { headers });
      assert.equal(created.statusCode, 201);
      assert.equal(await queued(project.id), 1);
      const stats = await getJson(app, '/v1/analytics/stats?days=1', headers);
      assert.equal(stats.body.data.summary.totalViews, 1);
      assert.equal(stats.body.data.topArticles[0].slug, 'hello');
      assert.equal(await queued(project.id), 0);

      const id = created.json().id as string;
      assert.equal((await update(app, id, { scrollDepth: 100 }, { headers })).statusCode, 200);
      assert.equal((await track(app, { slug: 'world' }, { headers })).statusCode, 201);
      const funnel = await getJson(app, '/v1/analytics/funnel?days=1', headers);
      assert.equal(funnel.body.funnel.pageViews, 2);
      assert.equal(funnel.body.funnel.reached90, 1);

      assert.equal((await track(app, { slug: 'world' }, { headers })).statusCode, 201);
      const series = await getJson(app, '/v1/analytics/timeseries?days=1&interval=day', headers);
      assert.equal(
        series.body.data.points.reduce((sum: number, point: { views: number }) => sum + point.views, 0),
        3,
      );
      assert.equal((await track(app, { slug: 'world' }, { headers })).statusCode, 201);
      const sources = await getJson(app, '/v1/analytics/breakdown/device?days=1', headers);
      assert.equal(
        sources.body.data.reduce((sum: number, row: { views: number }) => sum + row.views, 0),
        4,
      );
      assert.equal((await update(app, id, { timeOnPage: 300 }, { headers })).statusCode, 200);
      const reading = await getJson(app, '/v1/analytics/articles/hello/reading?days=1', headers);
      assert.equal(reading.status, 200);
      assert.equal(reading.body.data.pageViews, 1);
      assert.equal(reading.body.data.readingTime.medianSeconds, 300);
      assert.equal(await queued(project.id), 0);
    } finally {
      await app.close();
    }
  });

  test('two instances rolling up at once count every entry once', async () => {
    const { project } = await blog();
    const other = openDatabase(ctx.url);
    try {
      const writer = new PageViewWriter(ctx.db, { rollupDelayMs: noTimer });
      const otherWriter = new PageViewWriter(other, { rollupDelayMs: noTimer });
      const writes = Array.from({ length: 60 }, (_, i) =>
        (i % 2 === 0 ? writer : otherWriter).write({
          kind: 'create',
          row: factoryRow(project, { slug: i % 3 === 0 ? 'world' : 'hello', visitor: `v${i % 9}` }, i),
          slug: i % 3 === 0 ? 'world' : 'hello',
        }),
      );
      await Promise.all(writes);
      const rolled = await Promise.all([rollUpQueued(ctx.db), rollUpQueued(other), rollUpQueued(ctx.db)]);
      assert.ok(rolled.reduce((sum, count) => sum + count, 0) >= 60);
      assert.equal(await queued(project.id), 0);
      const stored = await storedRollups(ctx.db, project.id);
      assert.deepEqual(stored, await referenceRollups(ctx.db, project.id));
      assert.equal(Object.values(stored.days)[0].views, 60);
      assert.equal(Object.values(stored.days)[0].visitors, 9);
    } finally {
      await other.close();
    }
  });

  test('a roll-up of more rows than one statement holds sums every one of them', async () => {
    const owner = await createTestProject(ctx.db);
    const slugs = Array.from({ length: 45 }, (_, i) => `post-${i}`);
    await importArticles(
      ctx.db,
      owner.project,
      slugs.map((slug) => articleInput({ slug })),
    );
    const writer = new PageViewWriter(ctx.db, { rollupDelayMs: noTimer });
    await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        writer.write({
          kind: 'create',
          row: factoryRow(owner.project, { slug: slugs[i % 45], country: i % 3 === 0 ? 'FR' : 'DE' }, i),
          slug: slugs[i % 45],
        }),
      ),
    );
    const stored = await storedRollups(ctx.db, owner.project.id);
    assert.equal(Object.keys(stored.articles).length, 45);
    assert.deepEqual(stored, await referenceRollups(ctx.db, owner.project.id));
  });

  test('one pass rolls up more entries than one transaction takes, each once', async () => {
    // 2,100 entries: two transactions on SQLite (2,000 each), five on PostgreSQL (500).
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db, { rollupDelayMs: noTimer });
    await Promise.all(
      Array.from({ length: 2100 }, (_, i) =>
        writer.write({
          kind: 'create',
          row: factoryRow(project, { slug: i % 4 === 0 ? 'world' : 'hello', visitor: `v${i % 300}` }, i),
          slug: i % 4 === 0 ? 'world' : 'hello',
        }),
      ),
    );
    assert.equal(await queued(project.id), 2100);
    assert.equal(await rollUpQueued(ctx.db), 2100);
    assert.equal(await queued(project.id), 0);
    const stored = await storedRollups(ctx.db, project.id);
    assert.deepEqual(stored, await referenceRollups(ctx.db, project.id));
    assert.equal(Object.values(stored.days)[0].views, 2100);
    assert.equal(Object.values(stored.days)[0].visitors, 300);
  });

  test('entries left queued by a stopped process are rolled up once a server starts listening', async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db, { rollupDelayMs: noTimer });
    await writer.write({ kind: 'create', row: factoryRow(project, { slug: 'hello' }, 0), slug: 'hello' });
    assert.equal(await queued(project.id), 1);
    const app = await buildApp({ db: ctx.db, rollupDelayMs: 10 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(await queued(project.id), 1, 'nothing is rolled up before the server listens');
      await app.listen({ port: 0, host: '127.0.0.1' });
      const deadline = Date.now() + 5000;
      while ((await queued(project.id)) > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(await queued(project.id), 0);
      assert.equal(await storedViews(project.id), 1);
    } finally {
      await app.close();
    }
  });

  test("PostgreSQL: a timer's pass does not wait to hear its notifications; a caller's pass does", async (t) => {
    if (ctx.dialect !== 'postgres') return t.skip('PostgreSQL only: SQLite sends no notifications');
    const { project } = await blog();
    // A handle of its own: its roll-ups, and the waits for its notifications, counted.
    const db = openDatabase(ctx.url);
    t.after(() => db.close());
    const stopListening = db.onViews(() => {});
    t.after(stopListening);
    await eventually(async () => db.hearsChanges() === true, 5000);
    let waits = 0;
    const changesSeen = db.changesSeen;
    db.changesSeen = () => {
      waits++;
      return changesSeen();
    };
    const timed = new PageViewWriter(db, { rollupDelayMs: 10 });
    await timed.write({ kind: 'create', row: factoryRow(project, { slug: 'hello' }, 0), slug: 'hello' });
    await eventually(async () => (await storedViews(project.id)) === 1, 5000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(waits, 0, "the timer's pass committed without waiting for its notifications");
    const untimed = new PageViewWriter(db, { rollupDelayMs: noTimer });
    await untimed.write({ kind: 'create', row: factoryRow(project, { slug: 'world' }, 1), slug: 'world' });
    await rollUpQueued(db);
    assert.equal(waits, 1, "a caller's pass waits once, for both passes' notifications");
    assert.equal(await storedViews(project.id), 2);
  });

  test('a rebuild with writes still queued counts each of them once', async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db, { rollupDelayMs: noTimer });
    await Promise.all(
      [0, 1, 2, 3].map((i) =>
        writer.write({ kind: 'create', row: factoryRow(project, { slug: 'hello' }, i), slug: 'hello' }),
      ),
    );
    assert.equal(await queued(project.id), 4);
    await rebuildRollups(ctx.db.kysely, project.id, utcDay(Date.now()));
    assert.equal(await queued(project.id), 0);
    assert.equal(await storedViews(project.id), 4);
    assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
  });

  test("the project's day visitors are counted from its day set, with no visitor-set row of their own", async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db, { rollupDelayMs: noTimer });
    const views = [
      { slug: 'hello', visitor: 'a' },
      { slug: 'world', visitor: 'a' },
      { slug: 'world', visitor: 'b' },
    ];
    for (const [i, view] of views.entries()) {
      await writer.write({ kind: 'create', row: factoryRow(project, view, i), slug: view.slug });
      // One roll-up each: the second view of `a` finds it in the day's set.
      await rollUpQueued(ctx.db);
    }
    const day = utcDay(Date.now());
    const series = await ctx.db.kysely
      .selectFrom('analytics_series')
      .select(['views', 'visitors'])
      .where('project_id', '=', project.id)
      .where('article_id', '=', '')
      .where('granularity', '=', 'd')
      .where('bucket', '=', day)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { views: Number(series.views), visitors: Number(series.visitors) },
      { views: 3, visitors: 2 },
    );
    // The entries of the project's sets: none for its day row's scope, one for its first hour's.
    const entries = (
      await sql<{ entry: Uint8Array | string }>`select entry from analytics_visitor_entries
        where project_num = ${projectNumSql(project.id)}`.execute(ctx.db.kysely)
    ).rows.map(({ entry }) =>
      typeof entry === 'string' ? entry.replaceAll('-', '') : Buffer.from(entry).toString('hex'),
    );
    const entryOf = (scope: string) => visitorEntryOf(project.id, scope, 'a').toString('hex');
    assert.ok(!entries.includes(entryOf(`s::d:${day}`)), 'no entry of the project day row');
    const hour = factoryRow(project, views[0], 0).created_at.slice(0, 13);
    assert.ok(entries.includes(entryOf(`s::h:${hour}`)), `an entry of the project's hour ${hour}`);
    assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
  });

  test('entries a roll-up read and a rebuild took meanwhile are told from the entries queued after', async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db, { rollupDelayMs: noTimer });
    const row = factoryRow(project, { slug: 'hello' }, 0);
    await writer.write({ kind: 'create', row, slug: 'hello' });
    // What a roll-up reads before its transaction: here the newest entry of the queue.
    const read = (await queuedUpTo(ctx.db.kysely, Number.MAX_SAFE_INTEGER, 10_000)).filter(
      (entry) => entry.project_id === project.id,
    );
    assert.equal(read.length, 1);
    await rebuildRollups(ctx.db.kysely, project.id, utcDay(Date.now()));
    const patch = { timeOnPageMs: 12_000 };
    await writer.write({
      kind: 'update',
      projectId: project.id,
      id: row.id,
      patch,
      now: new Date().toISOString(),
    });
    const [next] = (await queuedUpTo(ctx.db.kysely, Number.MAX_SAFE_INTEGER, 10_000)).filter(
      (entry) => entry.project_id === project.id,
    );
    assert.ok(Number(next.seq) > Number(read[0].seq), `entry ${next.seq} queued after entry ${read[0].seq}`);
    // The roll-up's transaction finds its entries taken, whatever was queued since.
    assert.equal(await ctx.db.kysely.transaction().execute((trx) => deleteEntries(trx, read)), 0);
    await rollUpQueued(ctx.db);
    assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
  });

  if (ctx.dialect !== 'postgres') {
    test('a roll-up the database refuses writes nothing; statistics are still answered, and exact once it can write', async () => {
      const { project, headers } = await blog();
      // Rolled up on this handle's own connection (no task thread), which query_only makes refuse
      // writes as a read-only file would.
      const db = openDatabase(ctx.url, { tasks: false });
      const app = await buildApp({ db, rollupDelayMs: noTimer });
      try {
        assert.equal((await track(app, { slug: 'hello' }, { headers })).statusCode, 201);
        await sql`PRAGMA query_only = 1`.execute(db.kysely);
        try {
          await assert.rejects(rollUpQueued(db), /read-only|readonly/i);
          const funnel = await getJson(app, '/v1/analytics/funnel?days=1', headers);
          assert.equal(funnel.status, 200, JSON.stringify(funnel.body));
          assert.equal(funnel.body.funnel.pageViews, 0);
          assert.equal(await queued(project.id), 1);
        } finally {
          await sql`PRAGMA query_only = 0`.execute(db.kysely);
        }
        const stats = await getJson(app, '/v1/analytics/stats?days=1', headers);
        assert.equal(stats.body.data.summary.totalViews, 1);
        assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
      } finally {
        await app.close();
        await db.close();
      }
    });
  }
});

test('migration 0034 [sqlite]: the entries queued before it are kept, and rolled up once with those queued after', async () => {
  const { db, drop } = await createTestDatabase('sqlite', { migrate: false });
  try {
    await migrateBefore(db, '0034');
    const { project } = await createTestProject(db);
    await importArticles(db, project, [articleInput({ slug: 'hello' })]);
    const writer = new PageViewWriter(db, { rollupDelayMs: noTimer });
    const row = (i: number) => factoryRow(project, { slug: 'hello', scrollDepth: 20 * i }, i);
    const write = (i: number) => writer.write({ kind: 'create', row: row(i), slug: 'hello' });
    // As that release wrote them: in page_views, each with its queue entry.
    const [article] = await db.kysely
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', project.id)
      .execute();
    for (const i of [0, 1, 2]) {
      const stored = { ...withStringIds(row(i), new Map()), article_id: article.id };
      await db.kysely.insertInto('page_views').values(stored).execute();
      await db.kysely.insertInto('rollup_queue').values(queueEntryOf(stored, null)).execute();
    }
    const before = await db.kysely.selectFrom('rollup_queue').selectAll().orderBy('seq').execute();
    // The first of the migrations it applies (later ones follow).
    assert.equal((await migrateToLatest(db))[0], '0034-queue-seq-never-reused');
    assert.deepEqual(await db.kysely.selectFrom('rollup_queue').selectAll().orderBy('seq').execute(), before);
    await write(3);
    const [latest] = await db.kysely
      .selectFrom('rollup_queue')
      .select('seq')
      .orderBy('seq', 'desc')
      .limit(1)
      .execute();
    assert.ok(Number(latest.seq) > Number(before[2].seq), `entry ${latest.seq} after entry ${before[2].seq}`);
    assert.equal(await rollUpQueued(db), 4);
    assert.deepEqual(await storedRollups(db, project.id), await referenceRollups(db, project.id));
  } finally {
    await drop();
  }
});

// PostgreSQL: the roll-up reads the page views of its queued entries each by its whole key. Found
// among lists of projects, days and ids, PostgreSQL read every page view of the batch's days and
// filtered the ids (10 to 20 ms a batch of 500 at 20,000 views a day, growing with them).
test('roll-up on PostgreSQL: the queued page views are read by their whole key, not among their days', async (t) => {
  if (!configuredDialects().includes('postgres')) return t.skip('PostgreSQL is not configured');
  const { db, drop } = await createTestDatabase('postgres');
  try {
    const { project } = await createTestProject(db);
    const day = utcDay(Date.now());
    await fillDay(db, project.id, day, 2000);
    const entries = ['a', 'b'].map((suffix) => ({
      page_view_id: `id-${suffix}`,
      project_id: project.id,
      day,
    }));
    await assertLooksUpPageViewsByKey(db, queuedPageViewsQuery(db.kysely, 'postgres', entries), day);
  } finally {
    await drop();
  }
});
