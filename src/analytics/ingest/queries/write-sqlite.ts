// The page-view writes on SQLite: one cached prepared statement per row, each a call of a few
// microseconds in process, inside the batch's transaction.
import { CompiledQuery } from 'kysely';
import { stringIds, stringsOf, withStringIds } from '../../../db/page-view-strings.ts';
import { dayOfPageViewId } from '../../page-view-ids.ts';
import {
  type Executor,
  pageViewColumns,
  queueColumns,
  queueEntryOf,
  type StoredPageView,
  storedColumns,
  type WriteStore,
} from './write-store.ts';

function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

const statements = {
  select: `select ${storedColumns.join(', ')} from page_views where project_id = ? and day = ? and id = ?`,
  // The article found by its slug in the same statement (none: nothing inserted), rather than by a
  // lookup of its own before (measured at 50 views/s: 0.23 ms of CPU a view, the largest item).
  insert: `insert into page_views (${pageViewColumns.join(', ')}) select ${pageViewColumns
    .map((column) => (column === 'article_id' ? 'articles.id' : '?'))
    .join(', ')} from articles where articles.project_id = ? and articles.slug = ? returning article_id`,
  update:
    'update page_views set updated_at = ?, time_on_page_ms = ?, scroll_depth_centi = ?, exit_position = ?, bounced = ?, event_count = ?, events = ? where project_id = ? and day = ? and id = ?',
  queue: `insert into rollup_queue (${queueColumns.join(', ')}) values (${placeholders(queueColumns.length)})`,
};

/** The columns the insert takes as parameters: all but the article's id, which it finds. */
const insertedColumns = pageViewColumns.filter((column) => column !== 'article_id');

function run(db: Executor, text: string, parameters: unknown[]) {
  return db.executeQuery(CompiledQuery.raw(text, parameters));
}

function queue(db: Executor, after: StoredPageView, before: StoredPageView | null) {
  const entry = queueEntryOf(after, before);
  return run(
    db,
    statements.queue,
    queueColumns.map((column) => entry[column]),
  );
}

export const sqliteStore: WriteStore = {
  // IMMEDIATE takes the write lock at once: a deferred transaction that reads first could not be
  // upgraded when another process (the CLI) wrote in between.
  begin: 'begin immediate',
  createsInOneStatement: false,

  async lockPageViews(db, { projectIds, ids }) {
    const rows: StoredPageView[] = [];
    for (const id of ids) {
      for (const projectId of projectIds) {
        const result = await run(db, statements.select, [projectId, dayOfPageViewId(id), id]);
        if (result.rows[0]) rows.push(result.rows[0] as StoredPageView);
      }
    }
    return rows;
  },

  async updatePageViews(db, updates) {
    for (const { before, after } of updates) {
      await run(db, statements.update, [
        after.updated_at,
        after.time_on_page_ms,
        after.scroll_depth_centi,
        after.exit_position,
        after.bounced,
        after.event_count,
        after.events,
        after.project_id,
        after.day,
        after.id,
      ]);
      await queue(db, after, before);
    }
  },

  async insertPageViews(db, views, strings) {
    const inserted = new Map<string, string>();
    if (views.length === 0) return inserted;
    const ids = await stringIds(
      db,
      views.flatMap(({ row }) => stringsOf(row)),
      strings,
    );
    for (const { row, slug } of views) {
      const stored = withStringIds(row, ids);
      const parameters = insertedColumns.map((column) => stored[column]);
      const result = await run(db, statements.insert, [...parameters, row.project_id, slug]);
      const articleId = (result.rows[0] as { article_id: string } | undefined)?.article_id;
      if (articleId === undefined) continue;
      await queue(db, { ...row, article_id: articleId }, null);
      inserted.set(row.id, articleId);
    }
    return inserted;
  },
};
