// Updating a page view: larger time and depth kept whatever the order, exit and bounce
// replaced, events appended; 404 for ids that are unknown or of another project, 409 after 24 hours;
// validation as for the POST; nothing half-written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CompiledQuery, sql } from 'kysely';
import { pageViewIdPrefix } from '../../src/analytics/page-view-ids.ts';
import { postgresStore } from '../../src/analytics/ingest/queries/write-postgres.ts';
import { StringIdCache } from '../../src/db/page-view-strings.ts';
import type { Executor } from '../../src/db/schema.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  describeEachDialect,
  importArticles,
} from '../helpers.ts';
import {
  assertLooksUpPageViewsByKey,
  factoryRow,
  fillDay,
  rawPageViews,
  referenceRollups,
  storedRollups,
  track,
  update,
  writePageViews,
} from './support.ts';

describeEachDialect('tracking: PUT /v1/analytics/track/:id', (ctx) => {
  async function pageView(body: Record<string, unknown> = {}) {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'hello' })]);
    const created = await track(ctx.app, { slug: 'hello', ...body }, { headers: owner.headers });
    assert.equal(created.statusCode, 201, created.body);
    const id: string = created.json().id;
    const row = async () => (await rawPageViews(ctx.db, owner.project.id)).find((view) => view.id === id)!;
    return { ...owner, id, row };
  }

  const measures = (row: any) => ({
    time: Number(row.time_on_page_ms),
    depth: Number(row.scroll_depth_centi),
    exit: row.exit_position === null ? null : Number(row.exit_position),
    bounced: row.bounced === null ? null : Number(row.bounced),
    events: JSON.parse(row.events),
  });

  test('larger time and depth are kept, exitPosition and bounced take the new value, events are appended', async () => {
    const view = await pageView({
      timeOnPage: 2,
      scrollDepth: 10,
      events: [{ type: 'open', timeOffset: 0 }],
    });
    const response = await update(
      ctx.app,
      view.id,
      {
        timeOnPage: 31.5,
        scrollDepth: 64,
        exitPosition: 60,
        bounced: false,
        events: [{ type: 'click', element: 'a', timeOffset: 900 }],
      },
      { headers: view.headers },
    );
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { data: { success: true } });
    assert.deepEqual(measures(await view.row()), {
      time: 31_500,
      depth: 6400,
      exit: 60,
      bounced: 0,
      events: [
        { type: 'open', timeOffset: 0 },
        { type: 'click', element: 'a', timeOffset: 900 },
      ],
    });
    const stored = await view.row();
    assert.ok(stored.updated_at > stored.created_at || stored.updated_at === stored.created_at);
  });

  test('updates arriving out of order cannot lower time or depth, but exit and bounce follow the last one', async () => {
    const view = await pageView();
    for (const body of [
      { timeOnPage: 90, scrollDepth: 75, exitPosition: 70, bounced: false },
      { timeOnPage: 30, scrollDepth: 40, exitPosition: 35, bounced: true },
      { timeOnPage: 60 },
    ]) {
      assert.equal((await update(ctx.app, view.id, body, { headers: view.headers })).statusCode, 200);
    }
    assert.deepEqual(measures(await view.row()), {
      time: 90_000,
      depth: 7500,
      exit: 35,
      bounced: 1,
      events: [],
    });
    assert.deepEqual(
      await storedRollups(ctx.db, view.project.id),
      await referenceRollups(ctx.db, view.project.id),
    );
  });

  test('an empty update, or none at all, succeeds and changes no measure', async () => {
    const view = await pageView({ timeOnPage: 7, scrollDepth: 30, exitPosition: 10 });
    assert.equal((await update(ctx.app, view.id, {}, { headers: view.headers })).statusCode, 200);
    assert.equal((await update(ctx.app, view.id, undefined, { headers: view.headers })).statusCode, 200);
    assert.deepEqual(measures(await view.row()), {
      time: 7000,
      depth: 3000,
      exit: 10,
      bounced: null,
      events: [],
    });
  });

  test('an unknown id, a malformed id, or the id of another project is 404, and changes nothing', async () => {
    const view = await pageView({ timeOnPage: 1 });
    const other = await createTestProject(ctx.db);
    const cases: Array<[string, Record<string, string>]> = [
      [view.id, other.headers],
      [`${view.id.slice(0, -1)}${view.id.endsWith('A') ? 'B' : 'A'}`, view.headers],
      ['0123456789abAAAAAAAAAAAAAAAAAAAAAA', view.headers],
      ['not-an-id', view.headers],
      ["1'%20or%20'1'='1", view.headers],
    ];
    for (const [id, headers] of cases) {
      for (const method of ['PUT', 'POST'] as const) {
        const response = await update(ctx.app, id, { timeOnPage: 500 }, { headers, method });
        assert.equal(response.statusCode, 404, `${method} ${id}`);
        const body = response.json();
        assert.equal(body.error, 'Not Found');
        assert.match(body.message, /^Page view '.*' not found$/);
      }
    }
    assert.equal(measures(await view.row()).time, 1000);
  });

  test('an id longer than any page-view id, or holding a NUL, is a 400 naming the id', async () => {
    const view = await pageView();
    for (const id of ['a'.repeat(201), 'abc%00def']) {
      const response = await update(ctx.app, id, { timeOnPage: 5 }, { headers: view.headers });
      assert.equal(response.statusCode, 400, id);
      assert.deepEqual(
        response.json().details.issues.map((issue: { field: string }) => issue.field),
        ['id'],
      );
    }
  });

  test('a page view created more than 24 hours ago is 409 Conflict and unchanged', async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'hello' })]);
    // Created at those instants (an id names its creation time), then updated now.
    const [recent, old] = await writePageViews(ctx.db, owner.project, [
      { slug: 'hello', at: new Date(Date.now() - 24 * 3_600_000 + 60_000), timeOnPage: 3 },
      { slug: 'hello', at: new Date(Date.now() - 24 * 3_600_000 - 1000), timeOnPage: 4 },
    ]);
    assert.equal(
      (await update(ctx.app, recent, { timeOnPage: 4 }, { headers: owner.headers })).statusCode,
      200,
      'under 24 hours',
    );
    const response = await update(ctx.app, old, { timeOnPage: 500 }, { headers: owner.headers });
    assert.equal(response.statusCode, 409);
    assert.deepEqual(Object.keys(response.json()).sort(), ['error', 'message', 'statusCode']);
    assert.equal(response.json().error, 'Conflict');
    const stored = (await rawPageViews(ctx.db, owner.project.id)).find((view) => view.id === old)!;
    assert.equal(measures(stored).time, 4000);
  });

  test('each invalid member is a 400 naming it, and nothing of the update is applied', async () => {
    const view = await pageView({ timeOnPage: 5, scrollDepth: 5 });
    const cases: Array<[unknown, string[]]> = [
      [{ timeOnPage: -1 }, ['timeOnPage']],
      [{ timeOnPage: 100_000, scrollDepth: 50 }, ['timeOnPage']],
      [{ scrollDepth: 150, exitPosition: 101 }, ['scrollDepth', 'exitPosition']],
      [{ scrollDepth: '50' }, ['scrollDepth']],
      [{ bounced: 'false' }, ['bounced']],
      [{ timeOnPage: 60, events: [{ type: 'click', timeOffset: 'soon' }] }, ['events.0.timeOffset']],
      [{ events: Array.from({ length: 101 }, () => ({ type: 'x', timeOffset: 1 })) }, ['events']],
      [[{ timeOnPage: 60 }], ['body']],
    ];
    for (const [body, fields] of cases) {
      const response = await update(ctx.app, view.id, body, { headers: view.headers });
      assert.equal(response.statusCode, 400, JSON.stringify(body).slice(0, 100));
      assert.deepEqual(
        response.json().details.issues.map((issue: { field: string }) => issue.field),
        fields,
      );
    }
    assert.deepEqual(measures(await view.row()), {
      time: 5000,
      depth: 500,
      exit: null,
      bounced: null,
      events: [],
    });
  });

  test('a page view keeps at most 1000 events: an update past that is a 400 and changes nothing', async () => {
    const view = await pageView();
    const events = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ type: 'tick', timeOffset: i }));
    for (let i = 0; i < 10; i++) {
      assert.equal(
        (await update(ctx.app, view.id, { events: events(100) }, { headers: view.headers })).statusCode,
        200,
      );
    }
    const refused = await update(
      ctx.app,
      view.id,
      { timeOnPage: 70, events: events(1) },
      { headers: view.headers },
    );
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(
      refused.json().details.issues.map((issue: { field: string }) => issue.field),
      ['events'],
    );
    const row = await view.row();
    assert.equal(Number(row.event_count), 1000);
    assert.equal(JSON.parse(row.events).length, 1000);
    assert.equal(Number(row.time_on_page_ms), 0);
    assert.equal(
      (await update(ctx.app, view.id, { timeOnPage: 70 }, { headers: view.headers })).statusCode,
      200,
    );
  });

  test('POST /v1/analytics/track/:id does exactly what the PUT does', async () => {
    const view = await pageView({ scrollDepth: 20 });
    const response = await update(
      ctx.app,
      view.id,
      { scrollDepth: 55, bounced: true, events: [{ type: 'x', timeOffset: 1 }] },
      {
        headers: view.headers,
        method: 'POST',
      },
    );
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { data: { success: true } });
    assert.deepEqual(measures(await view.row()), {
      time: 0,
      depth: 5500,
      exit: null,
      bounced: 1,
      events: [{ type: 'x', timeOffset: 1 }],
    });
  });

  test('an update from a bot is answered 202 and applied to nothing', async () => {
    const view = await pageView({ timeOnPage: 1 });
    const response = await update(
      ctx.app,
      view.id,
      { timeOnPage: 50 },
      { headers: view.headers, userAgent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' },
    );
    assert.equal(response.statusCode, 202);
    assert.deepEqual(response.json(), { success: false, reason: 'bot' });
    assert.equal(measures(await view.row()).time, 1000);
  });
});

// PostgreSQL: the statement that updates page views one each (a batch of PUTs), and the one that
// locks them for a batch mixing writes, find each by its whole key, (project_id, day, id). Found
// by arrays of projects, days and ids, the days became the index's condition and the ids a filter:
// each batch read every page view of the project's day (18 ms a batch at 24,000 a day; PUTs at
// saturation 870 to 1,000 a second, against 4,900 to 6,900 now).
test('PUT batches on PostgreSQL: a page view is read and locked by its whole key, not among the project’s day', async (t) => {
  if (!configuredDialects().includes('postgres')) return t.skip('PostgreSQL is not configured');
  const { db, drop } = await createTestDatabase('postgres');
  try {
    const { project } = await createTestProject(db);
    const day = new Date().toISOString().slice(0, 10);
    await fillDay(db, project.id, day, 2000);
    // The statement is recorded, not run: it is explained below.
    const id = `${pageViewIdPrefix(Date.now())}${'A'.repeat(22)}`;
    let statement: CompiledQuery | undefined;
    // Records the statement on page_view_rows; no page view is found, none is in page_views either.
    const recorder = {
      executeQuery: async (query: CompiledQuery) => {
        if (query.sql.includes('page_view_rows')) statement = query;
        return { rows: query.sql.includes('outcome') ? [{ id, outcome: 'missing', event_count: null }] : [] };
      },
    } as unknown as Executor;
    const now = new Date().toISOString();
    await postgresStore.updateAlone!(
      recorder,
      [
        {
          projectId: project.id,
          id,
          day,
          now,
          oldest: now,
          timeOnPageMs: 1000,
          scrollDepthCenti: 100,
          exitPosition: null,
          bounced: null,
          events: '[]',
          added: 0,
        },
      ],
      100,
    );
    const soleUpdates = statement!;
    // A batch mixing writes locks the rows it updates first, then updates them.
    await postgresStore.lockPageViews(recorder, { projectIds: [project.id], days: [day], ids: [id] });
    const lock = statement!;
    const stored = { ...factoryRow(project, { slug: 'hello' }), id, day };
    await postgresStore.updatePageViews(recorder, [
      { before: stored, after: { ...stored, time_on_page_ms: 1000 } },
    ]);
    for (const query of [soleUpdates, lock, statement!]) await assertLooksUpPageViewsByKey(db, query, day);
  } finally {
    await drop();
  }
});

/** The plans made for this connection's prepared statements whose text is like every pattern. */
async function preparedPlans(connection: Executor, patterns: string[]) {
  const like = sql.join(
    patterns.map((pattern) => sql`statement like ${pattern}`),
    sql` and `,
  );
  const { rows } = await sql<{ generic_plans: number; custom_plans: number }>`
    select generic_plans, custom_plans from pg_prepared_statements where ${like}`.execute(connection);
  return rows;
}

// PostgreSQL: the insert of new page views (a batch of POSTs, usually of one) runs from its generic
// plan once prepared. Over its arrays a custom plan counts their real length and the generic plan
// ten rows, so the generic one never looked cheaper and the statement was planned at every run:
// 0.36 to 0.45 ms of PostgreSQL's CPU a POST, twice its execution.
test('POST batches on PostgreSQL: the insert of page views is planned once per connection, not at every run', async (t) => {
  if (!configuredDialects().includes('postgres')) return t.skip('PostgreSQL is not configured');
  const { db, drop } = await createTestDatabase('postgres');
  try {
    const { project } = await createTestProject(db);
    // A blog's articles, analyzed: over a few, any plan is cheap.
    await importArticles(
      db,
      project,
      Array.from({ length: 500 }, (_, n) => articleInput({ slug: n === 0 ? 'hello' : `article-${n}` })),
    );
    await sql`analyze articles`.execute(db.kysely);
    const plans = await db.kysely.connection().execute(async (connection) => {
      for (let run = 0; run < 8; run++) {
        const row = factoryRow(project, { slug: 'hello' }, run);
        const inserted = await postgresStore.insertPageViews(
          connection,
          [{ row, slug: 'hello' }],
          new StringIdCache(),
        );
        assert.equal(inserted.size, 1);
      }
      return preparedPlans(connection, ['with u as materialized (%insert into page_view_rows%']);
    });
    assert.equal(plans.length, 1);
    assert.ok(Number(plans[0].generic_plans) >= 3, JSON.stringify(plans[0]));
  } finally {
    await drop();
  }
});

// PostgreSQL: an update of page views alone (a batch of PUTs, usually of one) runs from its generic
// plan once prepared. Without the limit of its rows to their own number, the custom plan of one row
// always looked cheaper, and every PUT was planned again: 0.69 ms of PostgreSQL's CPU each.
test('PUT batches on PostgreSQL: the update of page views alone is planned once per connection, not at every run', async (t) => {
  if (!configuredDialects().includes('postgres')) return t.skip('PostgreSQL is not configured');
  const { db, drop } = await createTestDatabase('postgres');
  try {
    const { project } = await createTestProject(db);
    await importArticles(
      db,
      project,
      Array.from({ length: 50 }, (_, n) => articleInput({ slug: n === 0 ? 'hello' : `article-${n}` })),
    );
    const plans = await db.kysely.connection().execute(async (connection) => {
      for (let run = 0; run < 8; run++) {
        const row = factoryRow(project, { slug: 'hello' }, run);
        await postgresStore.insertPageViews(connection, [{ row, slug: 'hello' }], new StringIdCache());
        const now = new Date().toISOString();
        const [outcome] = await postgresStore.updateAlone!(
          connection,
          [
            {
              projectId: project.id,
              id: row.id,
              day: row.day,
              now,
              oldest: new Date(Date.parse(now) - 86_400_000).toISOString(),
              timeOnPageMs: 1000 * run,
              scrollDepthCenti: null,
              exitPosition: null,
              bounced: null,
              events: '[]',
              added: 0,
            },
          ],
          100,
        );
        assert.deepEqual(outcome, { outcome: 'updated' });
      }
      return preparedPlans(connection, ['%update page_view_rows%', '%matched%']);
    });
    assert.equal(plans.length, 1);
    assert.ok(Number(plans[0].generic_plans) >= 3, JSON.stringify(plans[0]));
  } finally {
    await drop();
  }
});
