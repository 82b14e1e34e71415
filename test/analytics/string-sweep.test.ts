// The sweep of page-view strings (db/page-view-string-sweep.ts): a URL, title, referrer or UTM value
// goes once no page view names it (after the retention, and after a project's deletion), in bounded
// batches, and never while a writer may still name it by an id it keeps.
import assert from 'node:assert/strict';
import { insertPageViewRows } from '../../src/db/page-view-move.ts';
import { test } from 'node:test';
import { sql } from 'kysely';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';
import { runCleanup } from '../../src/analytics/rollups/retention.ts';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { sweepUnnamedStrings } from '../../src/db/page-view-string-sweep.ts';
import {
  cacheLifeMs,
  StringIdCache,
  stringHash,
  stringIdColumns,
  stringIds,
  stringsOf,
  sweepGraceMs,
  withStringIds,
} from '../../src/db/page-view-strings.ts';
import type { PageViewTable, Project } from '../../src/db/schema.ts';
import { deleteProject } from '../../src/projects/service.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  describeEachDialect,
  importArticles,
  migrateBefore,
  uniqueSlug,
} from '../helpers.ts';
import { daysAgo, endsWithin, factoryRow, holdRows, rawPageViews } from './support.ts';

const minute = 60_000;
const seconds = (ms: number) => Math.floor(ms / 1000);

/** A cache whose clock stands at `at` (a Date, or a function for a clock the test moves). */
function cacheAt(at: Date | (() => number)): StringIdCache {
  return new StringIdCache({ now: typeof at === 'function' ? at : () => at.getTime() });
}

type Strings = Partial<Pick<PageViewTable, 'page_url' | 'page_title' | 'referrer' | 'utm_source'>>;

/** Writes a page view of `project` for each of `views`, their strings through `cache`, as a writer does. */
async function writeViews(
  db: Db,
  project: Project,
  views: Strings[],
  cache: StringIdCache,
  at = new Date(),
): Promise<void> {
  const rows = views.map((strings, index) => ({
    ...factoryRow(project, { slug: 'x', at }, index),
    ...strings,
  }));
  const ids = await stringIds(db.kysely, rows.flatMap(stringsOf), cache);
  await insertPageViewRows(
    db.kysely,
    db.dialect,
    rows.map((row) => withStringIds(row, ids)),
  );
}

/** The ids of the stored strings among `values`. */
async function storedIds(db: Db, values: string[]): Promise<Map<string, number>> {
  const rows = await db.kysely
    .selectFrom('page_view_strings')
    .select(['id', 'value'])
    .where('value', 'in', values)
    .execute();
  return new Map(rows.map((row) => [row.value, Number(row.id)]));
}

/** Ids that page views name and no string has: must always be none. */
async function danglingIds(db: Db): Promise<number[]> {
  const found: number[] = [];
  for (const column of stringIdColumns) {
    const { rows } = await sql<{ id: number }>`select v.${sql.ref(column)} as id from page_view_rows as v
      where v.${sql.ref(column)} is not null
      and not exists (select 1 from page_view_strings as s where s.id = v.${sql.ref(column)})`.execute(
      db.kysely,
    );
    found.push(...rows.map((row) => Number(row.id)));
  }
  return found;
}

/** `count` strings no page view names, stamped as last read at `at`; returns their values. */
async function orphanStrings(db: Db, count: number, at: Date): Promise<string[]> {
  const prefix = `https://orphan.example/${uniqueSlug()}/`;
  const values = Array.from({ length: count }, (_, index) => `${prefix}${index}`);
  await stringIds(db.kysely, values, cacheAt(at));
  return values;
}

describeEachDialect('page-view string sweep', (ctx) => {
  test('retention: strings only views past the retention named are deleted; one a recent view names stays', async () => {
    const { project } = await createTestProject(ctx.db);
    const tag = uniqueSlug();
    const [oldOnly, oldTitle, shared] = [
      `https://a.example/${tag}/old`,
      `Old ${tag}`,
      `https://a.example/${tag}`,
    ];
    // Views of 40 days ago were written, and their strings read, 40 days ago.
    const old = daysAgo(40);
    await writeViews(
      ctx.db,
      project,
      [{ page_url: oldOnly, page_title: oldTitle }, { page_url: shared }],
      cacheAt(old),
      old,
    );
    await writeViews(ctx.db, project, [{ page_url: shared, referrer: oldOnly }], new StringIdCache());
    // Before the retention: every string is named.
    assert.equal((await storedIds(ctx.db, [oldOnly, oldTitle, shared])).size, 3);

    const deleted = await runCleanup(ctx.db, { retentionDays: 30 });
    assert.equal(deleted.page_views, 2, JSON.stringify(deleted));
    const left = await storedIds(ctx.db, [oldOnly, oldTitle, shared]);
    // The old URL is still named by the recent view, as its referrer.
    assert.deepEqual([...left.keys()].sort(), [shared, oldOnly].sort());
    assert.ok(deleted.page_view_strings >= 1);
    const views = await rawPageViews(ctx.db, project.id);
    assert.deepEqual(
      views.map((view) => [view.page_url, view.referrer]),
      [[shared, oldOnly]],
    );
    assert.deepEqual(await danglingIds(ctx.db), []);
  });

  test("project deletion: its strings go once past the grace; one another project's views share stays", async () => {
    const [first, second] = [await createTestProject(ctx.db), await createTestProject(ctx.db)];
    const tag = uniqueSlug();
    const [own, ownUtm, shared] = [`https://b.example/${tag}/own`, `utm-${tag}`, `https://b.example/${tag}`];
    await writeViews(
      ctx.db,
      first.project,
      [{ page_url: own, utm_source: ownUtm }, { page_url: shared }],
      new StringIdCache(),
    );
    await writeViews(ctx.db, second.project, [{ page_url: shared }], new StringIdCache());

    await deleteProject(ctx.db, first.project.slug);
    // A writer may hold the strings' ids for a while yet: the next cleanup leaves them.
    await runCleanup(ctx.db, { retentionDays: null });
    assert.equal((await storedIds(ctx.db, [own, ownUtm, shared])).size, 3);

    const later = new Date(Date.now() + sweepGraceMs + 2 * minute);
    const deleted = await runCleanup(ctx.db, { retentionDays: null, now: later });
    assert.ok(deleted.page_view_strings >= 2, String(deleted.page_view_strings));
    assert.deepEqual([...(await storedIds(ctx.db, [own, ownUtm, shared])).keys()], [shared]);
    assert.deepEqual(
      (await rawPageViews(ctx.db, second.project.id)).map((view) => view.page_url),
      [shared],
    );
    // The request is served: the next run walks nothing.
    assert.deepEqual(await ctx.db.kysely.selectFrom('page_view_string_sweeps').selectAll().execute(), []);
    assert.deepEqual(await danglingIds(ctx.db), []);
  });

  test('writer race: an id a writer keeps is never swept; once swept, the writer stores the string again under a new id', async () => {
    const { project } = await createTestProject(ctx.db);
    const value = `https://race.example/${uniqueSlug()}`;
    // Stored a day ago, and named by no page view since (its views deleted, say).
    await stringIds(ctx.db.kysely, [value], cacheAt(new Date(Date.now() - 24 * 60 * minute)));
    let clock = Date.now();
    const writer = cacheAt(() => clock);
    await stringIds(ctx.db.kysely, [value], writer);
    const [firstId] = (await storedIds(ctx.db, [value])).values();
    assert.equal(writer.get(value), firstId, 'the writer keeps the id it read');

    // Just before its cached id expires, a sweep runs and the writer names the string from its cache.
    clock += cacheLifeMs - 1;
    assert.equal(await sweepUnnamedStrings(ctx.db, seconds(clock - sweepGraceMs)), 0);
    await writeViews(ctx.db, project, [{ page_url: value }], writer, new Date(clock));
    assert.deepEqual(await danglingIds(ctx.db), []);
    assert.deepEqual(await storedIds(ctx.db, [value]), new Map([[value, firstId]]));

    // Its view deleted, the string unread for the grace: swept, while the writer's id has expired.
    await sql`delete from page_view_rows
      where project_num = (select num from project_nums where project_id = ${project.id})`.execute(
      ctx.db.kysely,
    );
    clock += sweepGraceMs;
    assert.equal(await sweepUnnamedStrings(ctx.db, seconds(clock - sweepGraceMs)), 1);
    assert.equal((await storedIds(ctx.db, [value])).size, 0);
    await writeViews(ctx.db, project, [{ page_url: value }], writer, new Date(clock));
    assert.deepEqual(await danglingIds(ctx.db), []);
    const [secondId] = (await storedIds(ctx.db, [value])).values();
    assert.ok(secondId > firstId, `a new id (${secondId}), never the swept one (${firstId})`);
    assert.deepEqual(
      (await rawPageViews(ctx.db, project.id)).map((view) => view.page_url),
      [value],
    );
  });

  test('a string a writer stamps and names while a sweep deletes it stays: the delete finds the new stamp', async () => {
    const { project } = await createTestProject(ctx.db);
    const [value] = await orphanStrings(ctx.db, 1, new Date(Date.now() - 24 * 60 * minute));
    const sweeper = openDatabase(ctx.url, { poolSize: 2 });
    try {
      let sweep: Promise<number> | null = null;
      await ctx.db.kysely.transaction().execute(async (trx) => {
        // The writer has read (stamped) the string and named it, not yet committed: the sweep sees
        // neither, chooses the string, and its delete waits for the writer's lock.
        const ids = await stringIds(trx, [value], new StringIdCache());
        const row = { ...factoryRow(project, { slug: 'x' }), page_url: value };
        await insertPageViewRows(trx, ctx.dialect, [withStringIds(row, ids)]);
        sweep = sweepUnnamedStrings(sweeper, seconds(Date.now() - sweepGraceMs));
        await new Promise((resolve) => setTimeout(resolve, 500));
      });
      assert.equal(await sweep, 0);
    } finally {
      await sweeper.close();
    }
    assert.deepEqual(await danglingIds(ctx.db), []);
    assert.deepEqual(
      (await rawPageViews(ctx.db, project.id)).map((view) => view.page_url),
      [value],
    );
  });

  test('PostgreSQL: a sweep never waits for a string another transaction holds (a writer stamping it): it leaves it and ends', async (t) => {
    if (ctx.dialect !== 'postgres') return t.skip('SQLite has one writer at a time');
    const values = await orphanStrings(ctx.db, 5, daysAgo(40));
    // Another transaction holds one of them, as a writer stamping it does.
    const release = await holdRows(ctx.url, (trx) =>
      sql`select 1 from page_view_strings where value = ${values[2]} for update`.execute(trx),
    );
    try {
      const run = runCleanup(ctx.db, { retentionDays: 30 });
      assert.ok(await endsWithin(run, 10_000), 'the sweep ended while the string was held');
      await run;
      assert.deepEqual([...(await storedIds(ctx.db, values)).keys()], [values[2]]);
    } finally {
      await release();
    }
    await runCleanup(ctx.db, { retentionDays: 30 });
    assert.equal((await storedIds(ctx.db, values)).size, 0);
  });

  test('a write rolled back keeps none of the ids it read: their stamps went with it', async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'rolled' })]);
    const [value] = await orphanStrings(ctx.db, 1, daysAgo(40));
    // A view of visitor 'boom' fails after its strings were read.
    if (ctx.dialect === 'postgres') {
      await sql`create function boom() returns trigger language plpgsql as $$ begin
        if new.visitor_text = 'boom' then raise exception 'boom'; end if; return null; end $$`.execute(
        ctx.db.kysely,
      );
      await sql`create trigger boom after insert on page_view_rows for each row execute function boom()`.execute(
        ctx.db.kysely,
      );
    } else {
      await sql`create trigger boom after insert on page_view_rows when new.visitor_text = 'boom'
        begin select raise(abort, 'boom'); end`.execute(ctx.db.kysely);
    }
    const writer = new PageViewWriter(ctx.db);
    const view = (visitor: string) => ({
      kind: 'create' as const,
      row: { ...factoryRow(owner.project, { slug: 'rolled', visitor }), page_url: value },
      slug: 'rolled',
    });
    try {
      await assert.rejects(writer.write(view('boom')));
    } finally {
      await sql`drop trigger boom${sql.raw(ctx.dialect === 'postgres' ? ' on page_view_rows' : '')}`.execute(
        ctx.db.kysely,
      );
    }
    // The next write reads the string again, and stamps it: the retention's sweep leaves it.
    await writer.write(view('visitor'));
    await writer.idle();
    await runCleanup(ctx.db, { retentionDays: 30 });
    assert.equal((await storedIds(ctx.db, [value])).size, 1);
    assert.deepEqual(await danglingIds(ctx.db), []);
  });

  test('writers and sweeps at once: no page view ever names a deleted string', async () => {
    const { project } = await createTestProject(ctx.db);
    const values = await orphanStrings(ctx.db, 200, new Date(Date.now() - 24 * 60 * minute));
    const other = ctx.dialect === 'postgres' ? openDatabase(ctx.url, { poolSize: 4 }) : ctx.db;
    try {
      let random = 7;
      const pick = () => values[(random = (random * 48271) % 2147483647) % values.length];
      const sweeps = Array.from({ length: 4 }, (_, index) =>
        sweepUnnamedStrings(index % 2 === 0 ? ctx.db : other, seconds(Date.now() - sweepGraceMs), {
          batchSize: 5,
          walkSize: 3,
        }),
      );
      const writers = Array.from({ length: 4 }, async () => {
        for (let round = 0; round < 25; round++) {
          await writeViews(ctx.db, project, [{ page_url: pick(), referrer: pick() }], new StringIdCache());
        }
      });
      const swept = await Promise.all(sweeps);
      await Promise.all(writers);
      assert.ok(
        swept.some((count) => count > 0),
        'the sweeps deleted strings',
      );
      assert.deepEqual(await danglingIds(ctx.db), []);
      for (const view of await rawPageViews(ctx.db, project.id)) {
        assert.ok(view.page_url?.startsWith('https://orphan.example/'), String(view.page_url));
        assert.ok(view.referrer?.startsWith('https://orphan.example/'), String(view.referrer));
      }
    } finally {
      if (other !== ctx.db) await other.close();
    }
  });

  test('batches: many strings go in bounded batches, and two instances sweeping at once delete each once', async () => {
    const values = await orphanStrings(ctx.db, 1000, daysAgo(40));
    const other = ctx.dialect === 'postgres' ? openDatabase(ctx.url, { poolSize: 2 }) : ctx.db;
    const batches: number[] = [];
    const onBatch = (table: string, rows: number) => {
      if (table === 'page_view_strings') batches.push(rows);
    };
    try {
      const runs = await Promise.all([
        runCleanup(ctx.db, { retentionDays: 30, batchSize: 100, onBatch }),
        runCleanup(other, { retentionDays: 30, batchSize: 100, onBatch }),
      ]);
      assert.equal((await storedIds(ctx.db, values)).size, 0);
      const total = runs[0].page_view_strings + runs[1].page_view_strings;
      assert.equal(
        total,
        batches.reduce((sum, rows) => sum + rows, 0),
      );
      assert.ok(total >= 1000 && total < 1100, String(total));
      assert.ok(batches.length >= 10, `${batches.length} batches`);
      assert.ok(Math.max(...batches) <= 100);
    } finally {
      if (other !== ctx.db) await other.close();
    }
  });
});

for (const dialect of configuredDialects()) {
  test(`migration 0023 [${dialect}]: the strings stored keep their ids and count as read at the migration`, async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    try {
      const db = database.db;
      await migrateBefore(db, '0023');
      const values = ['https://m.example/a', 'https://m.example/b'];
      // As the code before it stored them.
      await db.kysely
        .insertInto('page_view_strings')
        .values(values.map((value) => ({ hash: stringHash(value), value }) as never))
        .execute();
      const ids = await storedIds(db, values);
      const migrated = Math.floor(Date.now() / 1000);
      await migrateToLatest(db);
      assert.deepEqual(await storedIds(db, values), ids);
      const rows = await db.kysely.selectFrom('page_view_strings').select('used_at').execute();
      for (const row of rows) assert.ok(Math.abs(Number(row.used_at) - migrated) <= 5, String(row.used_at));
    } finally {
      await database.drop();
    }
  });
}
