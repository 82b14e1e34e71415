// Recomputes a project's insights rollups of one day from its raw page views, inside the day's
// transaction of rebuild-rollups.ts. The series and read-time rollups are sums over the
// rows, grouped in the database (insight-sql.ts states their rules in SQL), each table written in
// key order by one INSERT … SELECT. The breakdowns need the rules that parse URLs and event lists,
// and go through the same InsightChanges as the writes: rows are read in pages, so the day's
// distinct visitors are counted in memory and the memory used stays bounded. The visitor sets are
// written again for the days whose ids can still arrive (yesterday, today).
import { sql } from 'kysely';
import { withPageViewStrings } from '../../../db/page-view-strings.ts';
import type { Executor } from '../../../db/schema.ts';
import { InsightChanges, type VisitorCandidate } from '../insight-changes.ts';
import { breakdownDimensions } from '../../insight-rules.ts';
import { deepViewSql, hourSql, readTimeBucketSql } from './insight-sql.ts';
import { shiftDay } from '../../days.ts';
import { addToVisitorSets, writeInsightRollups } from './write-rollups.ts';

const pageSize = 5000;
/** Article ids named by one delete statement. */
const idsPerStatement = 1000;

/**
 * Inside the caller's transaction: replaces the insights rollups of `day`, and with `withSets` its
 * visitor sets (a day whose salt is gone keeps none). `articleIds`: every article with rollup rows
 * or page views that day. The deletes name them, so that each is a range of a table's primary key
 * (which starts with the article, not the day) rather than a scan of all the project's rows.
 */
export async function rebuildInsightsOfDay(
  trx: Executor,
  projectId: string,
  day: string,
  articleIds: string[],
  withSets: boolean,
): Promise<void> {
  await deleteInsightsOfDay(trx, projectId, day, articleIds);
  await sumInDatabase(trx, projectId, day, withSets);
  await sumBreakdowns(trx, projectId, day, withSets);
}

/** Deletes the insights rollups and visitor sets of `day` (see rebuildInsightsOfDay). */
async function deleteInsightsOfDay(
  trx: Executor,
  projectId: string,
  day: string,
  articleIds: string[],
): Promise<void> {
  await trx
    .deleteFrom('analytics_breakdowns')
    .where('project_id', '=', projectId)
    .where('dimension', 'in', breakdownDimensions)
    .where('day', '=', day)
    .execute();
  await trx
    .deleteFrom('analytics_visitor_sets')
    .where('project_id', '=', projectId)
    .where('day', '=', day)
    .execute();
  for (let start = 0; start < articleIds.length; start += idsPerStatement) {
    const ids = articleIds.slice(start, start + idsPerStatement);
    await trx
      .deleteFrom('analytics_read_times')
      .where('project_id', '=', projectId)
      .where('article_id', 'in', ids)
      .where('day', '=', day)
      .execute();
    // The day's bucket and its hours' `YYYY-MM-DDTHH`, which sort between it and the next day;
    // the project's own series ('') with the first group.
    await trx
      .deleteFrom('analytics_series')
      .where('project_id', '=', projectId)
      .where('article_id', 'in', start === 0 ? ['', ...ids] : ids)
      .where('granularity', 'in', ['d', 'h'])
      .where('bucket', '>=', day)
      .where('bucket', '<', shiftDay(day, 1))
      .execute();
  }
  if (articleIds.length === 0) {
    await trx
      .deleteFrom('analytics_series')
      .where('project_id', '=', projectId)
      .where('article_id', '=', '')
      .where('granularity', 'in', ['d', 'h'])
      .where('bucket', '>=', day)
      .where('bucket', '<', shiftDay(day, 1))
      .execute();
  }
}

/**
 * The breakdowns of `day`, through the same InsightChanges as the writes, reading the page views
 * a page at a time; the distinct visitors of each breakdown value are counted in memory.
 */
async function sumBreakdowns(
  trx: Executor,
  projectId: string,
  day: string,
  withSets: boolean,
): Promise<void> {
  const seen = new Set<string>();
  const inMemory = (candidates: VisitorCandidate[]) =>
    candidates.filter((candidate) => {
      if (seen.has(candidate.key)) return false;
      seen.add(candidate.key);
      return true;
    });
  let afterId = '';
  for (;;) {
    const stored = await trx
      .selectFrom('page_views')
      // Every column: the strings are ids, or in a table not yet converted, the values themselves.
      .selectAll()
      .where('project_id', '=', projectId)
      .where('day', '=', day)
      .where('test', '=', 0)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(pageSize)
      .execute();
    const rows = await withPageViewStrings(trx, stored);
    if (rows.length === 0) break;
    const changes = new InsightChanges();
    for (const row of rows) changes.addBreakdowns(row);
    await changes.countVisitors(async (candidates) => {
      const counted = inMemory(candidates);
      if (withSets) await addToVisitorSets(trx, counted);
      return counted;
    });
    await writeInsightRollups(trx, changes);
    afterId = rows[rows.length - 1].id;
    if (rows.length < pageSize) break;
  }
}

/**
 * The series and read-time rollups, and the series' visitor sets of the recent days (an article's
 * daily visitors and reach are summed with its daily row, in rebuild-rollups.ts).
 */
async function sumInDatabase(
  trx: Executor,
  projectId: string,
  day: string,
  withSets: boolean,
): Promise<void> {
  // As in rebuild-rollups.ts: a test key's page views count in no rollup.
  const rows = sql`page_views where project_id = ${projectId} and day = ${day} and test = 0`;
  // Each page view counts in four series: the project's and its article's, by day and by hour;
  // the article's day is not stored in analytics_series (its daily row holds it).
  const storedSeriesRows = (where: ReturnType<typeof sql>) => sql`
    select project_id, '' as article_id, 'd' as granularity, day as bucket, day, visitor_id, time_on_page_ms, scroll_depth_centi from ${where}
    union all select project_id, '', 'h', ${sql.raw(hourSql)}, day, visitor_id, time_on_page_ms, scroll_depth_centi from ${where}
    union all select project_id, article_id, 'h', ${sql.raw(hourSql)}, day, visitor_id, time_on_page_ms, scroll_depth_centi from ${where}`;
  await sql`insert into analytics_series (project_id, article_id, granularity, bucket, views, visitors, time_on_page_ms, scroll_depth_centi)
    select project_id, article_id, granularity, bucket, count(*), count(distinct visitor_id), sum(time_on_page_ms), sum(scroll_depth_centi)
    from (${storedSeriesRows(rows)}) as series group by project_id, article_id, granularity, bucket`.execute(
    trx,
  );
  // The scopes of InsightChanges' series rows, `s:<article>:<granularity>:<bucket>`.
  if (withSets) {
    await sql`insert into analytics_visitor_sets (project_id, day, scope, visitor_id)
      select distinct project_id, day, 's:' || article_id || ':' || granularity || ':' || bucket, visitor_id
      from (${storedSeriesRows(rows)}
        union all select project_id, article_id, 'd', day, day, visitor_id, time_on_page_ms, scroll_depth_centi from ${rows}) as series`.execute(
      trx,
    );
  }
  await sql`insert into analytics_read_times (project_id, article_id, day, seconds, views, deep_views)
    select project_id, article_id, day, seconds, count(*), sum(deep)
    from (select project_id, article_id, day, ${sql.raw(readTimeBucketSql)} as seconds, ${sql.raw(deepViewSql)} as deep
      from ${rows}) as timed
    group by project_id, article_id, day, seconds`.execute(trx);
}
