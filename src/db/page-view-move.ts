// Moves page views from `page_views`, in whichever layout an older release left it (strings inline
// or as ids, days and times as text or typed, partitioned or not), to `page_view_rows` (migration
// 0040, db/page-view-rows.ts): each batch read, converted, inserted and deleted in one short
// transaction, so that tracking goes on between batches and a page view is in exactly one of the two
// tables at any time. Run again, or by two instances at once, it moves what is left: a row already
// moved is not inserted twice. An update of a page view not moved yet moves it first
// (moveLegacyPageViewsOf).
import { CompiledQuery, type RawBuilder, sql } from 'kysely';
import type { DialectName } from './database.ts';
import { toPageViewRow } from './page-view-rows.ts';
import { StringIdCache, stringIds, stringIdColumns } from './page-view-strings.ts';
import {
  type Executor,
  pageViewStringColumns,
  type PageViewStorageTable,
  type PageViewTable,
} from './schema.ts';

/** A legacy row as read: every column of whichever layout, strings as values or ids. */
export type LegacyRow = Partial<PageViewTable> & Partial<PageViewStorageTable>;

export interface MoveOptions {
  /** Rows per batch (default 1,000). */
  batchSize?: number;
  /** The pause after each batch, for the writes waiting (SQLite's one writer). */
  pauseMs?: number;
  /** Only this project's page views. */
  projectId?: string;
  /** Told after each batch of the rows moved so far. */
  onBatch?: (moved: number) => void | Promise<void>;
  /** Stops the move between two batches. */
  signal?: AbortSignal;
}

/** Whether any page view is left in `page_views` (of the project, if given). */
export async function hasLegacyPageViews(executor: Executor, projectId?: string): Promise<boolean> {
  let query = executor.selectFrom('page_views').select('id').limit(1);
  if (projectId !== undefined) query = query.where('project_id', '=', projectId);
  return (await query.execute()).length > 0;
}

/**
 * Moves every page view of `page_views` (of one project, if given), each project's newest days
 * first; returns how many it moved.
 */
export async function moveLegacyPageViews(
  executor: Executor,
  dialect: DialectName,
  options: MoveOptions = {},
): Promise<number> {
  const limit = options.batchSize ?? 1000;
  const projects =
    options.projectId === undefined
      ? (await executor.selectFrom('page_views').select('project_id').distinct().execute()).map(
          (row) => row.project_id,
        )
      : [options.projectId];
  let moved = 0;
  for (const projectId of projects) {
    // Each batch starts below the last key of the one before: on PostgreSQL, index entries of the
    // rows deleted stay until a vacuum, and a scan from the top would read them all again at every
    // batch. A row written meanwhile above it is moved by the next run.
    let below: { day: unknown; id: string } | null = null;
    for (;;) {
      options.signal?.throwIfAborted();
      const from: RawBuilder<unknown> =
        below === null ? sql`` : sql`and (day, id) < (${below.day}, ${below.id})`;
      const rows: LegacyRow[] = await executor.transaction().execute(async (trx) => {
        const batch = (
          await sql<LegacyRow>`select * from page_views where project_id = ${projectId} ${from}
          order by day desc, id desc limit ${limit}`.execute(trx)
        ).rows;
        await moveRows(trx, dialect, batch);
        return batch;
      });
      const count = rows.length;
      if (count === 0) break;
      below = { day: rows[count - 1].day, id: rows[count - 1].id! };
      moved += count;
      await options.onBatch?.(moved);
      if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
  }
  return moved;
}

/**
 * Moves the page views of `page_views` among the projects, days and ids given (every combination),
 * in the caller's transaction: an update of a page view not moved yet. Returns how many it moved.
 */
export async function moveLegacyPageViewsOf(
  executor: Executor,
  dialect: DialectName,
  keys: { projectIds: string[]; days: string[]; ids: string[] },
): Promise<number> {
  if (keys.ids.length === 0) return 0;
  // Raw text, so that a statement recorder (tests) can stand in for the executor. The days are
  // untyped parameters, which take the column's type: text or date, by layout.
  const values = [...keys.projectIds, ...keys.days, ...keys.ids];
  let next = 0;
  const list = (count: number) =>
    Array.from({ length: count }, () => (dialect === 'postgres' ? `$${++next}` : '?')).join(', ');
  const text = `select * from page_views where project_id in (${list(keys.projectIds.length)})
    and day in (${list(keys.days.length)}) and id in (${list(keys.ids.length)})`;
  const { rows } = await executor.executeQuery<LegacyRow>(CompiledQuery.raw(text, values));
  if (rows.length === 0) return 0;
  return moveRows(executor, dialect, rows);
}

/** Inserts `rows` into page_view_rows and deletes them from page_views, in the caller's transaction. */
async function moveRows(executor: Executor, dialect: DialectName, rows: LegacyRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  await insertPageViewRows(executor, dialect, rows);
  for (const [projectId, ofProject] of Map.groupBy(rows, (row) => row.project_id!)) {
    for (let start = 0; start < ofProject.length; start += 500) {
      const chunk = ofProject.slice(start, start + 500);
      await executor
        .deleteFrom('page_views')
        .where('project_id', '=', projectId)
        .where('day', 'in', [...new Set(chunk.map((row) => String(row.day)))])
        .where(
          'id',
          'in',
          chunk.map((row) => row.id!),
        )
        .execute();
    }
  }
  return rows.length;
}

/**
 * Inserts page views as page_view_rows stores them (a row already there is left as it is), from rows
 * of any layout of page_views: strings as values or ids, days and times as text or typed.
 */
export async function insertPageViewRows(
  executor: Executor,
  dialect: DialectName,
  rows: readonly LegacyRow[],
): Promise<void> {
  if (rows.length === 0) return;
  const projectNums = await numbersOf(executor, 'project_nums', 'project_id', [
    ...new Set(rows.map((row) => row.project_id!)),
  ]);
  // An article deleted before migration 0039 numbered the others has no number yet: it gets one.
  const articles = new Map(rows.map((row) => [row.article_id!, row.project_id!]));
  const ignore = dialect === 'sqlite' ? sql`or ignore` : sql``;
  const orNothing = dialect === 'sqlite' ? sql`` : sql`on conflict do nothing`;
  await sql`insert ${ignore} into article_nums (article_id, project_id)
    values ${sql.join([...articles].map(([article, project]) => sql`(${article}, ${project})`))} ${orNothing}`.execute(
    executor,
  );
  const articleNums = await numbersOf(executor, 'article_nums', 'article_id', [...articles.keys()]);
  // Strings stored inline by a release before migration 0022 get their ids.
  const inline = rows.flatMap((row) =>
    pageViewStringColumns.flatMap((column) => {
      const value = row[column];
      return typeof value === 'string' ? [value] : [];
    }),
  );
  const ids =
    inline.length === 0 ? new Map<string, number>() : await stringIds(executor, inline, new StringIdCache());
  const converted = rows.map((row) => {
    const stored: Record<string, unknown> = { ...row, day: String(row.day), test: Number(row.test ?? 0) };
    for (const [index, column] of pageViewStringColumns.entries()) {
      const value = row[column];
      const idColumn = stringIdColumns[index];
      stored[idColumn] = typeof value === 'string' ? ids.get(value) : (row[idColumn] ?? null);
    }
    return toPageViewRow(
      stored as unknown as PageViewStorageTable,
      { project: projectNums.get(row.project_id!)!, article: articleNums.get(row.article_id!)! },
      dialect,
    );
  });
  // 30 columns a row: 500 rows stay under PostgreSQL's 65,535 parameters.
  for (let start = 0; start < converted.length; start += 500) {
    await executor
      .insertInto('page_view_rows')
      .values(converted.slice(start, start + 500))
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }
}

async function numbersOf(
  executor: Executor,
  table: 'project_nums' | 'article_nums',
  column: 'project_id' | 'article_id',
  values: string[],
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let start = 0; start < values.length; start += 500) {
    const { rows } = await sql<{
      id: string;
      num: number;
    }>`select ${sql.ref(column)} as id, num from ${sql.table(
      table,
    )} where ${sql.ref(column)} in (${sql.join(values.slice(start, start + 500))})`.execute(executor);
    for (const row of rows) found.set(row.id, Number(row.num));
  }
  return found;
}
