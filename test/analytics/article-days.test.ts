// One rollup row per article and day (migration 0024): an article's daily visitors, reach,
// hours and reading times sit in its analytics_daily_articles row, and a database of the former
// layout (analytics_series rows of articles, analytics_reading, analytics_read_times) is converted
// without losing a figure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { articleReach } from '../../src/analytics/reports/queries/article-reach.ts';
import { articleReadTimes } from '../../src/analytics/reports/queries/article-read-times.ts';
import { seriesPoints } from '../../src/analytics/reports/queries/series-points.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  describeEachDialect,
  importArticles,
  genericPlan,
  migrateBefore,
} from '../helpers.ts';
import { storedArticleDaysOnPostgres } from '../../src/analytics/rollups/queries/write-rollups.ts';
import { countsText, daysAgo, factoryRow, insertEmptyArticleDays, withCountsText } from './support.ts';
import { hourWidth, packCounts, readTimeWidth } from '../../src/analytics/rollups/packed-counts.ts';
import { emptyContribution } from '../../src/analytics/contribution.ts';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';

const counters = emptyContribution();
const reach = Object.fromEntries(Array.from({ length: 11 }, (_, decile) => [`reach${decile}`, 0]));

for (const dialect of configuredDialects()) {
  test(`migration 0024 [${dialect}]: articles' series, reach and reading times move into their daily rows`, async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    try {
      const db = database.db;
      await migrateBefore(db, '0024');
      const owner = await createTestProject(db);
      const projectId = owner.project.id;
      const executor = db.kysely as unknown as Kysely<any>;
      await executor
        .insertInto('analytics_daily_articles')
        .values([
          {
            project_id: projectId,
            day: '2026-01-01',
            article_id: 'a1',
            ...counters,
            views: 3,
            time_on_page_ms: 900,
          },
          { project_id: projectId, day: '2026-01-02', article_id: 'a1', ...counters, views: 1 },
        ])
        .execute();
      const series = (
        article_id: string,
        granularity: string,
        bucket: string,
        views: number,
        visitors: number,
      ) => ({
        project_id: projectId,
        article_id,
        granularity,
        bucket,
        views,
        visitors,
        time_on_page_ms: 0,
        scroll_depth_centi: 0,
      });
      await executor
        .insertInto('analytics_series')
        .values([
          series('a1', 'd', '2026-01-01', 3, 2),
          series('a1', 'd', '2026-01-02', 1, 1),
          series('a1', 'h', '2026-01-01T10', 2, 2),
          series('a1', 'h', '2026-01-01T09', 1, 1),
          series('a1', 'h', '2026-01-02T23', 1, 1),
          // An hour an update left at zero is no entry.
          series('a1', 'h', '2026-01-02T05', 0, 0),
          series('', 'd', '2026-01-01', 3, 2),
          series('', 'h', '2026-01-01T10', 3, 2),
        ])
        .execute();
      await executor
        .insertInto('analytics_reading')
        .values([
          { project_id: projectId, article_id: 'a1', day: '2026-01-01', ...reach, reach2: 2, reach10: 1 },
          // A reach without a daily row (none should exist, but none is lost either).
          { project_id: projectId, article_id: 'a2', day: '2026-01-01', ...reach, reach5: 4 },
        ])
        .execute();

      const readTime = (day: string, seconds: number, views: number, deep_views: number) => ({
        project_id: projectId,
        article_id: 'a1',
        day,
        seconds,
        views,
        deep_views,
      });
      await executor
        .insertInto('analytics_read_times')
        .values([
          readTime('2026-01-01', 150, 1, 1),
          readTime('2026-01-01', 7, 2, 0),
          readTime('2026-01-01', 30, 0, 0),
          readTime('2026-01-02', 7, 1, 1),
        ])
        .execute();

      await migrateToLatest(db);

      const rows = await db.kysely
        .selectFrom('analytics_daily_articles')
        .select([
          'article_id',
          'day',
          'views',
          'time_on_page_ms',
          'visitors',
          'reach2',
          'reach5',
          'reach10',
          'hours',
          'read_times',
        ])
        .where('project_id', '=', projectId)
        .orderBy('article_id')
        .orderBy('day')
        .execute();
      assert.deepEqual(
        rows.map((row) =>
          Object.fromEntries(
            Object.entries(withCountsText(row)).map(([k, v]) => [k, typeof v === 'string' ? v : Number(v)]),
          ),
        ),
        [
          {
            article_id: 'a1',
            day: '2026-01-01',
            views: 3,
            time_on_page_ms: 900,
            visitors: 2,
            reach2: 2,
            reach5: 0,
            reach10: 1,
            hours: '9:1:1:0:0,10:2:2:0:0',
            read_times: '7:2:0,150:1:1',
          },
          {
            article_id: 'a1',
            day: '2026-01-02',
            views: 1,
            time_on_page_ms: 0,
            visitors: 1,
            reach2: 0,
            reach5: 0,
            reach10: 0,
            hours: '23:1:1:0:0',
            read_times: '7:1:1',
          },
          {
            article_id: 'a2',
            day: '2026-01-01',
            views: 0,
            time_on_page_ms: 0,
            visitors: 0,
            reach2: 0,
            reach5: 4,
            reach10: 0,
            hours: '',
            read_times: '',
          },
        ],
      );
      const left = await db.kysely
        .selectFrom('analytics_series')
        .select(['article_id', 'granularity', 'bucket'])
        .where('project_id', '=', projectId)
        .orderBy('article_id')
        .orderBy('granularity')
        .orderBy('bucket')
        .execute();
      assert.deepEqual(
        left.map((row) => ({ ...row })),
        [
          { article_id: '', granularity: 'd', bucket: '2026-01-01' },
          { article_id: '', granularity: 'h', bucket: '2026-01-01T10' },
        ],
      );
      const hours = await seriesPoints(db.kysely, projectId, 'a1', 'h', '2026-01-01T10', '2026-01-02T23');
      assert.deepEqual(
        hours.map((point) => [point.bucket, point.views, point.visitors]),
        [
          ['2026-01-01T10', 2, 2],
          ['2026-01-02T23', 1, 1],
        ],
      );
      assert.deepEqual(await articleReadTimes(db.kysely, projectId, 'a1', '2026-01-01', '2026-01-02'), [
        { seconds: 7, views: 3, deepViews: 1 },
        { seconds: 150, views: 1, deepViews: 1 },
      ]);
      const points = await seriesPoints(db.kysely, projectId, 'a1', 'd', '2026-01-01', '2026-01-31');
      assert.deepEqual(
        points.map((point) => [point.bucket, point.views, point.visitors, point.time_on_page_ms]),
        [
          ['2026-01-01', 3, 2, 900],
          ['2026-01-02', 1, 1, 0],
        ],
      );
      const reached = await articleReach(db.kysely, projectId, 'a1', '2026-01-01', '2026-01-02');
      assert.deepEqual(reached, [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1]);
      await assert.rejects(sql`select 1 from analytics_reading`.execute(db.kysely));
      await assert.rejects(sql`select 1 from analytics_read_times`.execute(db.kysely));
    } finally {
      await database.drop();
    }
  });
}

for (const dialect of configuredDialects()) {
  test(`migration 0042 [${dialect}]: article days keyed by numbers, read through the view as before`, async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    try {
      const db = database.db;
      await migrateBefore(db, '0042');
      const [first, second] = [await createTestProject(db), await createTestProject(db)];
      await importArticles(db, first.project, [articleInput({ slug: 'kept' })]);
      const kept = await db.kysely
        .selectFrom('articles')
        .select('id')
        .where('project_id', '=', first.project.id)
        .executeTakeFirstOrThrow();
      // Every column a value of its own; an article deleted before numbers existed has none.
      const row = (projectId: string, day: string, articleId: string, base: number) => ({
        project_id: projectId,
        day,
        article_id: articleId,
        ...Object.fromEntries(
          Object.keys({ ...counters, ...reach }).map((name, index) => [name, base + index]),
        ),
        visitors: base + 40,
        time_on_page_ms: 3_000_000_000 + base,
        hours: `${base % 24}:1:1:100:50`,
        read_times: `7:${base}:0`,
      });
      const rows = [
        row(first.project.id, '2026-01-01', kept.id, 1),
        row(first.project.id, '2026-01-02', kept.id, 100),
        row(first.project.id, '2026-01-02', 'deleted-before-0039', 200),
        row(second.project.id, '2026-01-01', 'another-gone', 300),
      ];
      const executor = db.kysely as unknown as Kysely<any>;
      await executor.insertInto('analytics_daily_articles').values(rows).execute();
      const read = async () =>
        (
          await sql<Record<string, unknown>>`select * from analytics_daily_articles
            order by project_id, day, article_id`.execute(db.kysely)
        ).rows.map((stored) =>
          Object.fromEntries(
            Object.entries(withCountsText(stored))
              .map(([k, v]) => [k, typeof v === 'string' ? v : Number(v)] as const)
              .sort(([a], [b]) => (a < b ? -1 : 1)),
          ),
        );
      const before = await read();
      assert.equal(before.length, 4);

      await migrateToLatest(db);

      assert.deepEqual(await read(), before);
      const stored = await sql<{
        count: number;
      }>`select count(*) as count from analytics_article_days`.execute(db.kysely);
      assert.equal(Number(stored.rows[0].count), 4);
      // A view tracked afterwards adds to the moved row of its article and day.
      const at = new Date('2026-01-02T10:00:00Z');
      const writer = new PageViewWriter(db);
      await writer.write({
        kind: 'create',
        row: factoryRow(first.project, { slug: 'kept', at }, 0),
        slug: 'kept',
      });
      await writer.idle();
      await writer.close();
      await rollUpQueued(db);
      const after = await db.kysely
        .selectFrom('analytics_daily_articles')
        .select(['views', 'hours'])
        .where('project_id', '=', first.project.id)
        .where('article_id', '=', kept.id)
        .where('day', '=', '2026-01-02')
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [Number(after.views), countsText(after.hours, hourWidth)],
        [101, '4:1:1:100:50,10:1:1:0:0'],
      );
      // Deleting a project deletes its rows.
      await db.kysely.deleteFrom('projects').where('id', '=', second.project.id).execute();
      const left = await read();
      assert.equal(left.length, 3);
      assert.ok(left.every((stored) => stored.project_id === first.project.id));
    } finally {
      await database.drop();
    }
  });
}

for (const dialect of configuredDialects()) {
  test(`migration 0043 [${dialect}]: an article day's hours and reading times become the bytes the roll-ups write`, async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    try {
      const db = database.db;
      await migrateBefore(db, '0043');
      const owner = await createTestProject(db);
      await importArticles(db, owner.project, [articleInput({ slug: 'one' }), articleInput({ slug: 'two' })]);
      const executor = db.kysely as unknown as Kysely<any>;
      const nums = await sql<{ num: number; slug: string }>`select n.num, a.slug from article_nums as n
        join articles as a on a.id = n.article_id order by a.slug`.execute(db.kysely);
      const [projectNum] = (
        await sql<{
          num: number;
        }>`select num from project_nums where project_id = ${owner.project.id}`.execute(db.kysely)
      ).rows.map((row) => row.num);
      // As the roll-ups wrote them before: one entry, several, values needing 1 to 5 bytes (and
      // past 2^32), no entry at all.
      const texts = [
        { hours: '0:1:1:0:0', read_times: '7:1:0' },
        {
          hours: '3:64:63:8191:8192,12:1:1:1048576:9999,23:300:200:6000000000:10000',
          read_times: '0:2:0,150:3:1,1800:70000:5',
        },
        { hours: '', read_times: '' },
      ];
      const day = (index: number) => `2026-01-0${index + 1}`;
      await executor
        .insertInto('analytics_article_days')
        .values(
          texts.map((text, index) => ({
            project_num: projectNum,
            day: day(index),
            article_num: nums.rows[index % 2].num,
            ...counters,
            ...reach,
            views: index + 1,
            visitors: 1,
            ...text,
          })),
        )
        .execute();

      await migrateToLatest(db);

      const rows = await db.kysely
        .selectFrom('analytics_daily_articles')
        .select(['day', 'views', 'hours', 'read_times'])
        .where('project_id', '=', owner.project.id)
        .orderBy('day')
        .execute();
      assert.equal(rows.length, texts.length);
      for (const [index, row] of rows.entries()) {
        assert.equal(row.day, day(index));
        assert.equal(Number(row.views), index + 1);
        assert.ok(row.hours instanceof Uint8Array && row.read_times instanceof Uint8Array);
        // The bytes packCounts writes for the text's counts, and so read back as the same text.
        assert.deepEqual(
          [...row.hours],
          [...packCounts(countsOfText(texts[index].hours))],
          `hours of ${day(index)}`,
        );
        assert.deepEqual([...row.read_times], [...packCounts(countsOfText(texts[index].read_times))]);
        assert.equal(countsText(row.hours, hourWidth), texts[index].hours);
        assert.equal(countsText(row.read_times, readTimeWidth), texts[index].read_times);
      }
      // The first hour: 0, 1, 1, 0, 0 as one byte each.
      assert.deepEqual([...rows[0].hours], [0, 2, 2, 0, 0]);
      assert.ok(rows[1].hours.length < texts[1].hours.length / 2);
    } finally {
      await database.drop();
    }
  });
}

/** The counts of the text that analytics_article_days held before migration 0043. */
function countsOfText(text: string): Map<number, number[]> {
  const counts = new Map<number, number[]>();
  if (text === '') return counts;
  for (const entry of text.split(',')) {
    const [key, ...values] = entry.split(':').map(Number);
    counts.set(key, values);
  }
  return counts;
}

describeEachDialect('one rollup row per article and day', (ctx) => {
  test("tracked views add to their article's daily row (visitors, reach, hours, reading times) and to no article series row", async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'alpha' })]);
    const at = daysAgo(1);
    const writer = new PageViewWriter(ctx.db);
    await Promise.all(
      ['v1', 'v2', 'v1'].map((visitor, index) =>
        writer.write({
          kind: 'create',
          row: factoryRow(
            owner.project,
            {
              slug: 'alpha',
              at: new Date(at.getTime() + index * 3_600_000),
              visitor,
              scrollDepth: 25 * index,
              timeOnPage: 7,
            },
            index,
          ),
          slug: 'alpha',
        }),
      ),
    );
    await writer.idle();
    await rollUpQueued(ctx.db);
    const rows = await ctx.db.kysely
      .selectFrom('analytics_daily_articles')
      .selectAll()
      .where('project_id', '=', owner.project.id)
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(Number(rows[0].views), 3);
    assert.equal(Number(rows[0].visitors), 2);
    assert.deepEqual([rows[0].reach0, rows[0].reach2, rows[0].reach5].map(Number), [1, 1, 1]);
    // daysAgo's views are at 12:00, 13:00 and 14:00.
    assert.equal(countsText(rows[0].hours, hourWidth), '12:1:1:7000:0,13:1:1:7000:2500,14:1:1:7000:5000');
    assert.equal(countsText(rows[0].read_times, readTimeWidth), '7:3:0');
    const articleSeries = await ctx.db.kysely
      .selectFrom('analytics_series')
      .select('bucket')
      .where('project_id', '=', owner.project.id)
      .where('article_id', '<>', '')
      .execute();
    assert.deepEqual(articleSeries, []);
  });
});

describeEachDialect('the article-day rows are narrow', (ctx) => {
  test("an article's days are found by an index of the article and the day alone", async () => {
    const columns =
      ctx.dialect === 'postgres'
        ? (
            await sql<{ name: string }>`select a.attname as name
              from pg_index x join pg_class i on i.oid = x.indexrelid
              join lateral unnest(x.indkey) with ordinality as k(attnum, position) on true
              join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum
              where i.relname = 'analytics_article_days_article' order by k.position`.execute(ctx.db.kysely)
          ).rows
        : (
            await sql<{
              name: string;
            }>`select name from pragma_index_info('analytics_article_days_article') order by seqno`.execute(
              ctx.db.kysely,
            )
          ).rows;
    assert.deepEqual(
      columns.map((column) => column.name),
      ['article_num', 'day'],
    );
  });

  // The roll-ups read the stored hours and reading times of a batch's article days (PostgreSQL: one
  // prepared statement, run by its generic plan after five runs). Each must be found by its key:
  // through the view, that plan searched the project's days by the project alone and read every
  // one of them for every row of the batch.
  test("PostgreSQL: the roll-ups read a batch's stored article days by their keys, whatever the project holds", async () => {
    if (ctx.dialect !== 'postgres') return;
    const { project } = await createTestProject(ctx.db);
    await importArticles(
      ctx.db,
      project,
      Array.from({ length: 40 }, (_, i) => articleInput({ slug: `days-${i}` })),
    );
    // 40 articles, 60 days each: 2,400 article days of one project.
    await insertEmptyArticleDays(ctx.db, [project.id], 60);
    await sql`analyze analytics_article_days`.execute(ctx.db.kysely);
    const articles = await ctx.db.kysely
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', project.id)
      .limit(20)
      .execute();
    const query = storedArticleDaysOnPostgres(
      articles.map((article) => ({ project_id: project.id, day: '2026-02-01', article_id: article.id })),
    );
    const plan = await genericPlan(ctx.db, query);
    assert.match(plan, /Index Cond: .*(article_num = .*day = |day = .*article_num = )/, plan);
    assert.doesNotMatch(plan, /Seq Scan on analytics_article_days/, plan);
    const { rows } = await ctx.db.kysely.executeQuery(query);
    assert.equal(rows.length, 20);
  });

  test('PostgreSQL stores the counts of an article day in 4 bytes, its sums of times and depths in 8', async () => {
    if (ctx.dialect !== 'postgres') return;
    const { rows } = await sql<{ name: string; type: string }>`select column_name as name, data_type as type
      from information_schema.columns where table_schema = current_schema() and table_name = 'analytics_article_days'
        and data_type in ('integer', 'bigint') order by column_name`.execute(ctx.db.kysely);
    const wide = rows.filter((row) => row.type === 'bigint').map((row) => row.name);
    assert.deepEqual(wide, ['scroll_depth_centi', 'time_on_page_ms']);
    // The 20 counted columns, and the project's and article's numbers.
    assert.equal(rows.length, 22 + 2);
  });
});
