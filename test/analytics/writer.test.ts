// The group commit of page-view writes: concurrent writes share transactions, each is answered
// only once committed, one refused or failing write does not take the others down, and two updates
// of one page view in one batch apply in order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';
import { openDatabase } from '../../src/db/database.ts';
import { postgresDriver } from '../../src/db/postgres-driver.ts';
import { HttpError } from '../../src/errors.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  importArticles,
  viewCountOf,
} from '../helpers.ts';
import { factoryRow, pageViewCount, rawPageViews, referenceRollups, storedRollups } from './support.ts';

describeEachDialect('page-view writer', (ctx) => {
  async function blog() {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'hello' })]);
    return owner;
  }

  test('forty concurrent page views share a few transactions, and all are stored when answered', async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db);
    const writes = Array.from({ length: 40 }, (_, i) =>
      writer.write({
        kind: 'create',
        row: factoryRow(project, { slug: 'hello', visitor: `v${i % 7}` }, i),
        slug: 'hello',
      }),
    );
    await Promise.all(writes);
    assert.ok(writer.commits < 40, `${writer.commits} transactions for 40 writes`);
    assert.ok(writer.commits >= 1);
    assert.equal(await pageViewCount(ctx.db, project.id), 40);
    assert.equal(await viewCountOf(ctx.db, project.id, 'hello'), 40);
    const rollups = await storedRollups(ctx.db, project.id);
    assert.deepEqual(rollups, await referenceRollups(ctx.db, project.id));
    assert.equal(Object.values(rollups.days)[0].visitors, 7);
  });

  test('in one batch, refused writes get their own error and the others are committed', async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db);
    const old = factoryRow(project, { slug: 'hello', at: new Date(Date.now() - 25 * 3_600_000) }, 0);
    await writer.write({ kind: 'create', row: old, slug: 'hello' });
    const now = new Date().toISOString();
    const results = await Promise.allSettled([
      writer.write({ kind: 'create', row: factoryRow(project, { slug: 'hello' }, 1), slug: 'hello' }),
      writer.write({ kind: 'create', row: factoryRow(project, { slug: 'missing' }, 2), slug: 'missing' }),
      writer.write({ kind: 'update', projectId: project.id, id: old.id, patch: { timeOnPageMs: 9000 }, now }),
      writer.write({
        kind: 'update',
        projectId: 'another-project',
        id: old.id,
        patch: { timeOnPageMs: 9000 },
        now,
      }),
      writer.write({ kind: 'create', row: factoryRow(project, { slug: 'hello' }, 3), slug: 'hello' }),
    ]);
    const statuses = results.map((result) =>
      result.status === 'fulfilled' ? 'ok' : (result.reason as HttpError).statusCode,
    );
    assert.deepEqual(statuses, ['ok', 404, 409, 404, 'ok']);
    assert.ok(results.every((result) => result.status === 'fulfilled' || result.reason instanceof HttpError));
    assert.equal(await pageViewCount(ctx.db, project.id), 3);
    assert.equal(await viewCountOf(ctx.db, project.id, 'hello'), 3);
    assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
  });

  test("one batch naming 250 articles of two projects counts each view on its own project's article", async () => {
    // The batch looks its slugs up together (200 at a time, padded): a slug that only the other
    // project has is refused, and the same slug in both projects counts twice, once each.
    const first = await createTestProject(ctx.db);
    const second = await createTestProject(ctx.db);
    const slugs = Array.from({ length: 250 }, (_, i) => `post-${i}`);
    await importArticles(
      ctx.db,
      first.project,
      slugs.map((slug) => articleInput({ slug })),
    );
    await importArticles(ctx.db, second.project, [
      articleInput({ slug: 'post-7' }),
      articleInput({ slug: 'only-here' }),
    ]);
    const writer = new PageViewWriter(ctx.db);
    const jobs = [
      ...slugs.map((slug, i) => ({ project: first.project, slug, index: i })),
      { project: first.project, slug: 'only-here', index: 300 },
      { project: second.project, slug: 'post-7', index: 301 },
      { project: second.project, slug: 'post-8', index: 302 },
      { project: second.project, slug: 'only-here', index: 303 },
    ];
    const results = await Promise.allSettled(
      jobs.map(({ project, slug, index }) =>
        writer.write({ kind: 'create', row: factoryRow(project, { slug }, index), slug }),
      ),
    );
    const refused = jobs.filter((_, i) => results[i]!.status === 'rejected').map((job) => job.slug);
    assert.deepEqual(refused, ['only-here', 'post-8']);
    assert.ok(writer.commits < 10, `${writer.commits} transactions`);
    assert.equal(await pageViewCount(ctx.db, first.project.id), 250);
    assert.equal(await pageViewCount(ctx.db, second.project.id), 2);
    for (const slug of ['post-0', 'post-7', 'post-199', 'post-200', 'post-249']) {
      assert.equal(await viewCountOf(ctx.db, first.project.id, slug), 1, slug);
    }
    assert.equal(await viewCountOf(ctx.db, second.project.id, 'post-7'), 1);
    assert.equal(await viewCountOf(ctx.db, second.project.id, 'only-here'), 1);
    assert.deepEqual(
      await storedRollups(ctx.db, first.project.id),
      await referenceRollups(ctx.db, first.project.id),
    );
  });

  test('a write the database refuses fails alone; the rest of its batch is committed', async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db);
    const first = factoryRow(project, { slug: 'hello' }, 0);
    await writer.write({ kind: 'create', row: first, slug: 'hello' });
    const results = await Promise.allSettled([
      writer.write({ kind: 'create', row: factoryRow(project, { slug: 'hello' }, 1), slug: 'hello' }),
      writer.write({
        kind: 'create',
        row: { ...factoryRow(project, { slug: 'hello' }, 2), id: first.id },
        slug: 'hello',
      }),
      writer.write({ kind: 'create', row: factoryRow(project, { slug: 'hello' }, 3), slug: 'hello' }),
    ]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.equal(await pageViewCount(ctx.db, project.id), 3);
    assert.equal(await viewCountOf(ctx.db, project.id, 'hello'), 3);
    assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
  });

  test('two updates of one page view in one batch apply in the order sent', async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db);
    const row = factoryRow(project, { slug: 'hello', timeOnPage: 1, scrollDepth: 10 }, 0);
    await writer.write({ kind: 'create', row, slug: 'hello' });
    const now = new Date().toISOString();
    const commitsBefore = writer.commits;
    await Promise.all([
      writer.write({
        kind: 'update',
        projectId: project.id,
        id: row.id,
        patch: { timeOnPageMs: 50_000, exitPosition: 80, bounced: false },
        now,
      }),
      writer.write({
        kind: 'update',
        projectId: project.id,
        id: row.id,
        patch: {
          timeOnPageMs: 20_000,
          scrollDepthCenti: 6000,
          exitPosition: 10,
          events: [{ type: 'a', timeOffset: 1 }],
        },
        now,
      }),
      writer.write({
        kind: 'update',
        projectId: project.id,
        id: row.id,
        patch: { bounced: true, events: [{ type: 'b', timeOffset: 2 }] },
        now,
      }),
    ]);
    assert.equal(writer.commits - commitsBefore, 1, 'one transaction');
    const [stored] = await rawPageViews(ctx.db, project.id);
    assert.equal(Number(stored.time_on_page_ms), 50_000);
    assert.equal(Number(stored.scroll_depth_centi), 6000);
    assert.equal(Number(stored.exit_position), 10);
    assert.equal(Number(stored.bounced), 1);
    assert.deepEqual(JSON.parse(stored.events), [
      { type: 'a', timeOffset: 1 },
      { type: 'b', timeOffset: 2 },
    ]);
    assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
  });

  test('two instances updating the same page views at once: every update applies, in one order', async () => {
    const { project } = await blog();
    const first = new PageViewWriter(ctx.db);
    const second = new PageViewWriter(ctx.db);
    const rows = [0, 1, 2].map((i) => factoryRow(project, { slug: 'hello', timeOnPage: 1 }, i));
    for (const row of rows) await first.write({ kind: 'create', row, slug: 'hello' });
    const now = new Date().toISOString();
    const update = (writer: PageViewWriter, id: string, round: number, from: string) =>
      writer.write({
        kind: 'update',
        projectId: project.id,
        id,
        patch: {
          timeOnPageMs: 1000 * (round + 2),
          scrollDepthCenti: 100 * round,
          events: [{ type: from, timeOffset: round }],
        },
        now,
      });
    const writes: Promise<void>[] = [];
    for (let round = 0; round < 10; round++) {
      // Each instance's batches hold both views, in opposite orders: locks taken in one order.
      for (const row of rows) writes.push(update(first, row.id, round, 'first'));
      for (const row of [...rows].reverse()) writes.push(update(second, row.id, round, 'second'));
    }
    await Promise.all(writes);
    for (const stored of await rawPageViews(ctx.db, project.id)) {
      const events = JSON.parse(stored.events) as Array<{ type: string; timeOffset: number }>;
      assert.equal(events.length, 20);
      assert.equal(Number(stored.event_count), 20);
      for (const from of ['first', 'second']) {
        const offsets = events.filter((event) => event.type === from).map((event) => event.timeOffset);
        assert.deepEqual(offsets, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], `${from}: in the order it sent them`);
      }
      assert.equal(Number(stored.time_on_page_ms), 11_000);
      assert.equal(Number(stored.scroll_depth_centi), 900);
    }
    await first.idle();
    await second.idle();
    assert.deepEqual(await storedRollups(ctx.db, project.id), await referenceRollups(ctx.db, project.id));
  });

  test('an update of a page view is one statement on PostgreSQL, none on its own to read or lock', async (t) => {
    if (ctx.dialect !== 'postgres') return t.skip('PostgreSQL only: SQLite runs its statements in process');
    const { project } = await blog();
    // Its own handle of one connection, so that its statements are those of that connection:
    // the other handles of the process (the suite's, its change listener's probes) send theirs
    // through the same prototype meanwhile.
    const client = postgresDriver().Client.prototype;
    const query = client.query;
    let sent: { by: unknown; text: string }[] = [];
    client.query = function (this: unknown, ...args: unknown[]) {
      const config = args[0] as string | { text: string };
      sent.push({ by: this, text: typeof config === 'string' ? config : config.text });
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const db = openDatabase(ctx.url, { poolSize: 1 });
    t.after(() => db.close());
    const writer = new PageViewWriter(db);
    const row = factoryRow(project, { slug: 'hello' }, 0);
    let writersConnection: unknown = null;
    try {
      await writer.write({ kind: 'create', row, slug: 'hello' });
      const writers = sent.filter((statement) => /insert into "?page_view_rows"?/.test(statement.text));
      assert.equal(writers.length, 1, 'the create is one insert');
      writersConnection = writers[0].by;
      sent = [];
      await writer.write({
        kind: 'update',
        projectId: project.id,
        id: row.id,
        patch: { timeOnPageMs: 5000, events: [{ type: 'click', timeOffset: 1 }] },
        now: new Date().toISOString(),
      });
    } finally {
      client.query = query;
    }
    const own = sent
      .filter((statement) => statement.by === writersConnection)
      .map((statement) => statement.text);
    assert.equal(own.length, 1, own.join('\n---\n'));
    const [stored] = await rawPageViews(ctx.db, project.id);
    assert.equal(Number(stored.time_on_page_ms), 5000);
    assert.equal(Number(stored.event_count), 1);
  });

  test('idle() resolves once every queued write is committed', async () => {
    const { project } = await blog();
    const writer = new PageViewWriter(ctx.db);
    for (let i = 0; i < 5; i++)
      void writer.write({ kind: 'create', row: factoryRow(project, { slug: 'hello' }, i), slug: 'hello' });
    await writer.idle();
    assert.equal(await pageViewCount(ctx.db, project.id), 5);
  });
});
