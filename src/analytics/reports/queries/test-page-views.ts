// A page of the page views tracked with test keys in a project over a range of days, in id order,
// with the columns their rollups depend on (migration 0018 indexes exactly these rows).
import { sql } from 'kysely';
import { withPageViewStrings } from '../../../db/page-view-strings.ts';
import type { Executor, PageViewTable } from '../../../db/schema.ts';

type Column =
  | 'id'
  | 'project_id'
  | 'article_id'
  | 'day'
  | 'created_at'
  | 'visitor_id'
  | 'source'
  | 'country'
  | 'time_on_page_ms'
  | 'scroll_depth_centi'
  | 'exit_position'
  | 'bounced'
  | 'events'
  | 'screen_width'
  | 'referrer'
  | 'page_url'
  | 'utm_source'
  | 'utm_medium'
  | 'utm_campaign';

export type TestPageView = Pick<PageViewTable, Column>;

export async function testPageViews(
  executor: Executor,
  projectId: string,
  firstDay: string,
  lastDay: string,
  afterId: string,
  limit: number,
): Promise<TestPageView[]> {
  const rows = await executor
    .selectFrom('page_views')
    // Every column: the strings are ids, or in a table not yet converted, the values themselves.
    .selectAll()
    .where('project_id', '=', projectId)
    // A literal, not a parameter: SQLite uses a partial index only for a condition it can see.
    .where(sql<boolean>`test = 1`)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  // PostgreSQL answers a bigint as a string.
  return (await withPageViewStrings(executor, rows)).map((row) => ({
    ...row,
    time_on_page_ms: Number(row.time_on_page_ms),
  }));
}
