// A page of the page views tracked with test keys in a project over a range of days, in key order,
// with the columns their rollups depend on (migration 0018 indexes exactly these rows).
import { PostgresAdapter, sql } from 'kysely';
import { fromPageViewRow } from '../../../db/page-view-rows.ts';
import { withPageViewStrings } from '../../../db/page-view-strings.ts';
import type { Executor, PageViewRowTable, PageViewTable } from '../../../db/schema.ts';

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

/** Where a page of test views goes on from: after this key. */
export interface TestViewCursor {
  day: string;
  createdMs: number;
  rid: Uint8Array | string;
}

/** A page of the test views in key order (day, then time), and the cursor of the next page. */
export async function testPageViews(
  executor: Executor,
  projectId: string,
  firstDay: string,
  lastDay: string,
  after: TestViewCursor | null,
  limit: number,
): Promise<{ views: TestPageView[]; next: TestViewCursor | null }> {
  const postgres = executor.getExecutor().adapter instanceof PostgresAdapter;
  // A row-value comparison: both databases seek the index to it.
  const from =
    after === null
      ? sql``
      : sql`and (r.day, r.created_ms, r.rid) > (${after.day}, ${after.createdMs}, ${
          postgres ? sql`${after.rid}::uuid` : sql`${after.rid}`
        })`;
  // `test = 1` a literal, not a parameter: SQLite uses a partial index only for a condition it can see.
  const { rows } = await sql<PageViewRowTable & { article_id: string }>`
    select r.*, n.article_id from page_view_rows as r join article_nums as n on n.num = r.article_num
    where r.project_num = (select num from project_nums where project_id = ${projectId}) and r.test = 1
      and r.day >= ${firstDay} and r.day <= ${lastDay} ${from}
    order by r.day, r.created_ms, r.rid limit ${limit}`.execute(executor);
  const views = await withPageViewStrings(
    executor,
    rows.map((row) => fromPageViewRow(row, { project: projectId, article: row.article_id })),
  );
  const last = rows[rows.length - 1];
  return {
    views,
    next:
      last === undefined
        ? null
        : {
            day: String(last.day),
            createdMs: Number(last.created_ms),
            rid: postgres ? last.rid : Buffer.from(last.rid),
          },
  };
}
