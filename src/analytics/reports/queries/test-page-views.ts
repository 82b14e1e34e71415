// A page of the page views tracked with test keys in a project over a range of days, with the
// columns their rollups depend on (page_view_rows_test indexes exactly these rows).
import { type PageViewCursor, pageViewBatch } from '../../../db/page-view-reads.ts';
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

/** A page of the test views of the days (page_view_rows' in time order, then any not moved yet). */
export function testPageViews(
  executor: Executor,
  projectId: string,
  firstDay: string,
  lastDay: string,
  after: PageViewCursor | null,
  limit: number,
): Promise<{ views: TestPageView[]; next: PageViewCursor | null }> {
  return pageViewBatch(executor, projectId, { from: firstDay, to: lastDay, testOnly: true }, after, limit);
}
