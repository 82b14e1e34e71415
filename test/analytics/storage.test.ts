// How page views are stored: the indexes they carry, and the queries that rely on their ids
// beginning with the creation time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { dayOfPageViewId, pageViewIdPrefix } from '../../src/analytics/page-view-ids.ts';
import { newPageViewId } from '../../src/analytics/ingest/visitor.ts';
import { realtime } from '../../src/analytics/reports/insights.ts';
import type { Db } from '../../src/db/database.ts';
import { articleInput, createTestProject, describeEachDialect, importArticles } from '../helpers.ts';
import { runCleanup } from '../../src/analytics/rollups/retention.ts';
import { makeMonthPartition, preparePageViewPartitions } from '../../src/db/page-view-partitions.ts';
import { StringIdCache, stringIds } from '../../src/db/page-view-strings.ts';
import { nextMonth } from '../../src/db/migrations/frozen/0020-keyed-page-views.ts';
import { daysAgo, rawPageViews, storedRollups, track, writePageViews } from './support.ts';

test('page-view ids: their text order is the order of their creation times', () => {
  const times = [0, 1, 15, 16, 255, 256, Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, 2 ** 44];
  const ids = times.map((ms) => newPageViewId(ms));
  assert.deepEqual([...ids].sort(), ids);
  for (const [index, ms] of times.entries()) assert.ok(ids[index].startsWith(pageViewIdPrefix(ms)));
});

test('page-view ids: the day of an id is the UTC day of its creation; an id without a time has none', () => {
  const midnight = Date.parse('2026-03-10T00:00:00.000Z');
  assert.equal(dayOfPageViewId(newPageViewId(midnight - 1)), '2026-03-09');
  assert.equal(dayOfPageViewId(newPageViewId(midnight)), '2026-03-10');
  assert.equal(dayOfPageViewId(newPageViewId(0)), '1970-01-01');
  for (const id of ['', 'zz', 'ffffffffffffAAAAAAAAAAAAAAAAAAAAAA', 'g0000000000aAAAAAAAAAAAAAAAAAAAAAA'])
    assert.equal(dayOfPageViewId(id), '', id);
});

/** The names of the indexes of `page_view_rows`, whatever their database. */
async function pageViewIndexes(db: Db): Promise<string[]> {
  const query =
    db.dialect === 'postgres'
      ? sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'page_view_rows'`
      : sql<{ name: string }>`select name from pragma_index_list('page_view_rows')`;
  return (await query.execute(db.kysely)).rows.map((row) => row.name).sort();
}

describeEachDialect('page-view storage', (ctx) => {
  test('strings: a URL, title, referrer or UTM value tracked many times is stored once, and read back', async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'repeated' })]);
    const body = (i: number) => ({
      slug: 'repeated',
      pageUrl: 'https://blog.example.com/repeated',
      pageTitle: 'Repeated — a title',
      referrer: i % 2 === 0 ? 'https://news.example.com/' : undefined,
      utmSource: 'newsletter',
      utmCampaign: `campaign-${i % 3}`,
    });
    // At once (one batch) and one after another (batches that find the strings stored).
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => track(ctx.app, body(i), { headers: owner.headers })),
    );
    for (let i = 6; i < 12; i++) answers.push(await track(ctx.app, body(i), { headers: owner.headers }));
    for (const answer of answers) assert.equal(answer.statusCode, 201, answer.body);

    const { rows } = await sql<{
      value: string;
      n: number;
    }>`select value, count(*) as n from page_view_strings
      where value in ('https://blog.example.com/repeated', 'Repeated — a title', 'https://news.example.com/',
        'newsletter', 'campaign-0', 'campaign-1', 'campaign-2') group by value`.execute(ctx.db.kysely);
    assert.equal(rows.length, 7);
    for (const row of rows) assert.equal(Number(row.n), 1, row.value);
    const views = await rawPageViews(ctx.db, owner.project.id);
    assert.equal(views.length, 12);
    for (const view of views) {
      assert.equal(view.page_url, 'https://blog.example.com/repeated');
      assert.equal(view.page_title, 'Repeated — a title');
      assert.equal(view.utm_source, 'newsletter');
      assert.match(view.utm_campaign ?? '', /^campaign-[0-2]$/);
      assert.equal(view.utm_medium, null);
    }
    assert.equal(views.filter((view) => view.referrer === 'https://news.example.com/').length, 6);
  });

  test('strings: the cache keeps no id inserted by a transaction that rolled back', async () => {
    const cache = new StringIdCache();
    const gone = `rolled back ${ctx.dialect}`;
    await assert.rejects(
      ctx.db.kysely.transaction().execute(async (trx) => {
        await stringIds(trx, [gone], cache);
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    // SQLite gives the next string the id the rolled-back one had.
    await stringIds(ctx.db.kysely, [`another ${ctx.dialect}`], cache);
    const ids = await stringIds(ctx.db.kysely, [gone], cache);
    const stored = await ctx.db.kysely
      .selectFrom('page_view_strings')
      .select('value')
      .where('id', '=', ids.get(gone)!)
      .executeTakeFirst();
    assert.equal(stored?.value, gone);
  });

  test('page views are keyed by (project_num, day, created_ms, rid), with no other index but the partial one of test views', async () => {
    // The test views' index holds test keys' rows alone: normal writes never touch it.
    const all = await pageViewIndexes(ctx.db);
    assert.ok(all.includes('page_view_rows_test'), all.join());
    const indexes = all.filter((name) => name !== 'page_view_rows_test');
    assert.equal(indexes.length, 1, all.join());
    if (ctx.dialect === 'sqlite') {
      // The key of a WITHOUT ROWID table is the table itself, not an index beside it.
      const { rows } = await sql<{
        sql: string;
      }>`select sql from sqlite_schema where name = 'page_view_rows'`.execute(ctx.db.kysely);
      assert.match(rows[0].sql, /without rowid/i);
    }
    const key =
      ctx.dialect === 'postgres'
        ? sql<{ columns: string }>`select pg_get_indexdef(${indexes[0]}::regclass) as columns`
        : sql<{
            columns: string;
          }>`select group_concat(name, ', ') as columns from pragma_index_info(${indexes[0]})`;
    const { rows } = await key.execute(ctx.db.kysely);
    assert.match(rows[0].columns, /project_num, day, created_ms, rid/);
  });

  test('realtime: a window across midnight counts the views of both days, and none outside it', async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'alpha' })]);
    const midnight = Date.parse('2026-03-10T00:00:00.000Z');
    const at = (seconds: number) => new Date(midnight + seconds * 1000);
    await writePageViews(ctx.db, owner.project, [
      { slug: 'alpha', at: at(-301), visitor: 'too-early' },
      { slug: 'alpha', at: at(-299), visitor: 'a' },
      { slug: 'alpha', at: at(-1), visitor: 'b' },
      { slug: 'alpha', at: at(0), visitor: 'a' },
      { slug: 'alpha', at: at(1), visitor: 'c' },
      { slug: 'alpha', at: at(2), visitor: 'too-late' },
    ]);
    const answer = await realtime(ctx.db, owner.project, at(1));
    assert.deepEqual(
      { pageViews: answer.data.pageViews, visitors: answer.data.visitors },
      { pageViews: 4, visitors: 3 },
    );
    assert.equal(answer.data.since, at(-299).toISOString());
  });

  test('PostgreSQL: months are partitions, made ahead, taking the rows the default one held; the retention drops them whole', async (t) => {
    if (ctx.dialect !== 'postgres') return t.skip('partitions are PostgreSQL');
    const partitions = async (table: string) =>
      (
        await sql<{ name: string; n: string }>`select c.relname as name,
          (select count(*) from page_view_rows p where p.tableoid = c.oid) as n
          from pg_inherits i join pg_class c on c.oid = i.inhrelid
          where i.inhparent = ${table}::regclass order by 1`.execute(ctx.db.kysely)
      ).rows.map((row) => `${row.name}:${row.n}`);
    const now = new Date();
    const month = (offset: number) =>
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1))
        .toISOString()
        .slice(0, 7)
        .replace('-', '_');
    await preparePageViewPartitions(ctx.db.kysely, now);
    const made = await partitions('page_view_rows');
    for (const offset of [0, 1, 2])
      assert.ok(
        made.some((name) => name.startsWith(`page_view_rows_m${month(offset)}:`)),
        made.join(),
      );

    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'alpha' })]);
    // Fourteen months ago has no partition: its views go to the default one.
    const old = daysAgo(425);
    await writePageViews(ctx.db, owner.project, [
      { slug: 'alpha', at: old },
      { slug: 'alpha', at: old },
      { slug: 'alpha', at: daysAgo(0) },
    ]);
    const oldMonth = `${old.toISOString().slice(0, 7)}-01`;
    const oldName = `page_view_rows_m${oldMonth.slice(0, 4)}_${oldMonth.slice(5, 7)}`;
    assert.ok(
      (await partitions('page_view_rows')).some(
        (name) => name.startsWith('page_view_rows_mdefault:') && !name.endsWith(':0'),
      ),
    );
    await makeMonthPartition(ctx.db.kysely, oldMonth);
    const moved = await partitions('page_view_rows');
    assert.ok(moved.includes(`${oldName}:2`), moved.join());
    const { rows } = await sql<{ n: string }>`select count(*) as n from page_view_rows_mdefault
      where day >= ${oldMonth} and day < ${nextMonth(oldMonth)}`.execute(ctx.db.kysely);
    assert.equal(Number(rows[0].n), 0);

    const rollupsBefore = await storedRollups(ctx.db, owner.project.id);
    const deleted = await runCleanup(ctx.db, { retentionDays: 400, batchSize: 1 });
    assert.ok(deleted.page_views >= 2, JSON.stringify(deleted));
    assert.ok(!(await partitions('page_view_rows')).some((name) => name.startsWith(`${oldName}:`)));
    assert.deepEqual(await storedRollups(ctx.db, owner.project.id), rollupsBefore);
    assert.equal((await rawPageViews(ctx.db, owner.project.id)).length, 1);
  });
});
