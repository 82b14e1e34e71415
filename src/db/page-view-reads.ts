// Reading a project's stored page views back as the tracking wrote them (the export, tests): the
// rows of page_view_rows converted (db/page-view-rows.ts), in time order by day, then those an older
// release left in page_views and not moved yet, each a batch at a time in key order.
import { sql } from 'kysely';
import { dialectOf } from './dialect-sql.ts';
import { fromPageViewRow } from './page-view-rows.ts';
import { storedBytesSql } from './page-view-sql.ts';
import { withPageViewStrings } from './page-view-strings.ts';
import type { Executor, PageViewRowTable, PageViewTable } from './schema.ts';
import { projectNumSql } from './id-numbers.ts';

export interface PageViewRange {
  /** First and last UTC day, or null for no bound. */
  from: string | null;
  to: string | null;
  /** Only the page views of test keys (read through their partial index). */
  testOnly?: boolean;
}

/** Where a read of page views goes on from: after this table's key. */
export type PageViewCursor =
  | { table: 'page_view_rows'; day: string; createdMs: number; rid: Uint8Array | string }
  | { table: 'page_views'; day: string; id: string };

export type ReadPageView = PageViewTable & { slug: string | null };

/**
 * The next `limit` page views of the project in the range after `cursor` (null: from the first),
 * with their strings and their article's slug (null once removed), and the cursor of the next batch
 * (null: none left).
 */
export async function pageViewBatch(
  executor: Executor,
  projectId: string,
  range: PageViewRange,
  cursor: PageViewCursor | null,
  limit: number,
): Promise<{ views: ReadPageView[]; next: PageViewCursor | null }> {
  const postgres = dialectOf(executor) === 'postgres';
  if (cursor === null || cursor.table === 'page_view_rows') {
    const from = range.from === null ? sql`` : sql`and r.day >= ${range.from}`;
    const to = range.to === null ? sql`` : sql`and r.day <= ${range.to}`;
    // A literal, not a parameter: SQLite uses a partial index only for a condition it can see.
    const tests = range.testOnly ? sql`and r.test = 1` : sql``;
    // A row-value comparison: both databases seek the (project, day, time, rid) key to it, where an OR of
    // the two conditions would scan from the first day at every batch.
    const after =
      cursor === null
        ? sql``
        : sql`and (r.day, r.created_ms, r.rid) > (${cursor.day}, ${cursor.createdMs}, ${storedBytesSql(
            postgres,
            cursor.rid,
          )})`;
    const { rows } = await sql<PageViewRowTable & { article_id: string; slug: string | null }>`
      select r.*, n.article_id, a.slug from page_view_rows as r
        join article_nums as n on n.num = r.article_num left join articles as a on a.id = n.article_id
      where r.project_num = ${projectNumSql(projectId)} ${from} ${to} ${tests} ${after}
      order by r.day, r.created_ms, r.rid limit ${limit}`.execute(executor);
    if (rows.length > 0) {
      const views = rows.map((row) =>
        Object.assign(fromPageViewRow(row, { project: projectId, article: row.article_id }), {
          slug: row.slug,
        }),
      );
      const last = rows[rows.length - 1];
      return {
        views: await withPageViewStrings(executor, views),
        next: {
          table: 'page_view_rows',
          day: String(last.day),
          createdMs: Number(last.created_ms),
          rid: last.rid,
        },
      };
    }
    cursor = null;
  }
  let query = executor
    .selectFrom('page_views')
    .leftJoin('articles', 'articles.id', 'page_views.article_id')
    .selectAll('page_views')
    .select('articles.slug')
    .where('page_views.project_id', '=', projectId);
  if (range.from !== null) query = query.where('page_views.day', '>=', range.from);
  if (range.to !== null) query = query.where('page_views.day', '<=', range.to);
  if (range.testOnly) query = query.where(sql<boolean>`page_views.test = 1`);
  if (cursor !== null && cursor.table === 'page_views') {
    const { day, id } = cursor;
    query = query.where((eb) => eb(eb.refTuple('page_views.day', 'page_views.id'), '>', eb.tuple(day, id)));
  }
  const rows = await query.orderBy('page_views.day').orderBy('page_views.id').limit(limit).execute();
  if (rows.length === 0) return { views: [], next: null };
  const last = rows[rows.length - 1];
  return {
    views: (await withPageViewStrings(executor, rows)) as ReadPageView[],
    next: { table: 'page_views', day: String(last.day), id: last.id },
  };
}

/** Every page view of the project (tests, small projects): in key order, newest table first. */
export async function allPageViews(executor: Executor, projectId: string): Promise<ReadPageView[]> {
  const views: ReadPageView[] = [];
  let cursor: PageViewCursor | null = null;
  for (;;) {
    const batch = await pageViewBatch(executor, projectId, { from: null, to: null }, cursor, 1000);
    views.push(...batch.views);
    if (batch.next === null) return views;
    cursor = batch.next;
  }
}
