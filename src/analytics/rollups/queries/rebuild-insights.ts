// Recomputes a project's insights rollups of one day from its raw page views, inside the day's
// transaction of rebuild-rollups.ts. The project's series are sums over the rows, grouped in the
// database (insight-sql.ts states their rules in SQL), each table written in
// key order by one INSERT … SELECT. The breakdowns need the rules that parse URLs and event lists,
// and go through the same InsightChanges as the writes: rows are read in pages, so the day's
// distinct visitors are counted in memory and the memory used stays bounded. The visitor sets are
// written again for the days whose ids can still arrive (yesterday, today).
import { type RawBuilder, sql } from 'kysely';
import { dialectOf } from '../../../db/dialect-sql.ts';
import { fromPageViewRow } from '../../../db/page-view-rows.ts';
import { pageViewsOfDay, storedBytesSql } from '../../../db/page-view-sql.ts';
import { visitorEntrySql } from '../../../db/visitor-entries.ts';
import { withPageViewStrings } from '../../../db/page-view-strings.ts';
import type { Executor, PageViewRowTable } from '../../../db/schema.ts';
import { InsightChanges, type VisitorCandidate } from '../insight-changes.ts';
import { breakdownDimensions } from '../../insight-rules.ts';
import { dayTextSql, hourSql } from './insight-sql.ts';
import { shiftDay } from '../../days.ts';
import { addToVisitorSets, writeInsightRollups } from './write-rollups.ts';
import { projectNumSql } from '../../../db/id-numbers.ts';

const pageSize = 5000;

/**
 * Inside the caller's transaction: replaces the insights rollups of `day`, and with `withSets` its
 * visitor sets (a day whose salt is gone keeps none). An article's insights of the day sit in its
 * daily row, which rebuild-rollups.ts writes.
 */
export async function rebuildInsightsOfDay(
  trx: Executor,
  projectId: string,
  day: string,
  withSets: boolean,
): Promise<void> {
  await deleteInsightsOfDay(trx, projectId, day);
  await sumInDatabase(trx, projectId, day, withSets);
  await sumBreakdowns(trx, projectId, day, withSets);
}

/** Deletes the insights rollups and visitor sets of `day` (see rebuildInsightsOfDay). */
async function deleteInsightsOfDay(trx: Executor, projectId: string, day: string): Promise<void> {
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
  await sql`delete from analytics_visitor_entries
    where project_num = ${projectNumSql(projectId)} and day = ${day}`.execute(trx);
  // The day's bucket and its hours' `YYYY-MM-DDTHH`, which sort between it and the next day.
  await trx
    .deleteFrom('analytics_series')
    .where('project_id', '=', projectId)
    .where('article_id', '=', '')
    .where('granularity', 'in', ['d', 'h'])
    .where('bucket', '>=', day)
    .where('bucket', '<', shiftDay(day, 1))
    .execute();
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
  let after: { createdMs: number; rid: Uint8Array | string } | null = null;
  const postgres = dialectOf(trx) === 'postgres';
  for (;;) {
    const from: RawBuilder<unknown> =
      after === null
        ? sql``
        : sql`and (r.created_ms, r.rid) > (${after.createdMs}, ${storedBytesSql(postgres, after.rid)})`;
    const { rows: stored }: { rows: Array<PageViewRowTable & { article_id: string }> } = await sql<
      PageViewRowTable & { article_id: string }
    >`
      select r.*, n.article_id from page_view_rows as r join article_nums as n on n.num = r.article_num
      where r.project_num = ${projectNumSql(projectId)} and r.day = ${day}
        and r.test = 0 ${from}
      order by r.created_ms, r.rid limit ${pageSize}`.execute(trx);
    if (stored.length === 0) break;
    const rows = await withPageViewStrings(
      trx,
      stored.map((row) => fromPageViewRow(row, { project: projectId, article: row.article_id })),
    );
    const changes = new InsightChanges();
    for (const row of rows) changes.addBreakdowns(row);
    await changes.countVisitors(async (candidates) => {
      const counted = inMemory(candidates);
      if (withSets) await addToVisitorSets(trx, counted);
      return counted;
    });
    await writeInsightRollups(trx, changes);
    const last = stored[stored.length - 1];
    after = { createdMs: Number(last.created_ms), rid: last.rid };
    if (stored.length < pageSize) break;
  }
}

/** The project's series, and the series' visitor sets of the recent days. */
async function sumInDatabase(
  trx: Executor,
  projectId: string,
  day: string,
  withSets: boolean,
): Promise<void> {
  // As in rebuild-rollups.ts: a test key's page views count in no rollup.
  const rows = sql`${pageViewsOfDay(dialectOf(trx), projectId, day)} and test = 0`;
  // Each page view counts in four series: the project's and its article's, by day and by hour.
  // The article's are stored in its daily row (rebuild-rollups.ts); their visitor sets are here.
  const hour = sql.raw(hourSql(dialectOf(trx) === 'postgres'));
  const dayText = sql.raw(dayTextSql);
  const seriesRows = (articles: boolean) => sql`
    select project_id, '' as article_id, 'd' as granularity, ${dayText} as bucket, ${dayText} as day, visitor_id, time_on_page_ms, scroll_depth_centi from ${rows}
    union all select project_id, '', 'h', ${hour}, ${dayText}, visitor_id, time_on_page_ms, scroll_depth_centi from ${rows}
    ${
      articles
        ? sql`union all select project_id, article_id, 'd', ${dayText}, ${dayText}, visitor_id, time_on_page_ms, scroll_depth_centi from ${rows}
    union all select project_id, article_id, 'h', ${hour}, ${dayText}, visitor_id, time_on_page_ms, scroll_depth_centi from ${rows}`
        : sql``
    }`;
  await sql`insert into analytics_series (project_id, article_id, granularity, bucket, views, visitors, time_on_page_ms, scroll_depth_centi)
    select project_id, article_id, granularity, bucket, count(*), count(distinct visitor_id), sum(time_on_page_ms), sum(scroll_depth_centi)
    from (${seriesRows(false)}) as series group by project_id, article_id, granularity, bucket`.execute(trx);
  // The scopes of InsightChanges' series rows, `s:<article>:<granularity>:<bucket>`, but the
  // project's day row's (its visitors are those of analytics_daily_visitors).
  if (withSets) {
    const dialect = dialectOf(trx);
    const entry = visitorEntrySql(
      dialect,
      'project_id',
      `'s:' || article_id || ':' || granularity || ':' || bucket`,
      'visitor_id',
    );
    await sql`insert into analytics_visitor_entries (project_num, day, entry)
      select distinct ${projectNumSql(projectId)}, ${sql.raw(dialect === 'postgres' ? 'cast(day as date)' : 'day')}, ${sql.raw(entry)}
      from (${seriesRows(true)}) as series where article_id <> '' or granularity <> 'd'`.execute(trx);
  }
}
