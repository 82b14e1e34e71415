// The page-view writes on SQLite: one cached prepared statement per row, each a call of a few
// microseconds in process, inside the batch's transaction.
import { CompiledQuery } from 'kysely';
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
  article: 'select id from articles where project_id = ? and slug = ?',
  select: `select ${storedColumns.join(', ')} from page_views where id = ?`,
  insert: `insert into page_views (${pageViewColumns.join(', ')}) values (${placeholders(pageViewColumns.length)})`,
  update:
    'update page_views set updated_at = ?, time_on_page_ms = ?, scroll_depth_centi = ?, exit_position = ?, bounced = ?, event_count = ?, events = ? where id = ?',
  queue: `insert into rollup_queue (${queueColumns.join(', ')}) values (${placeholders(queueColumns.length)})`,
};

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

  async lockPageViews(db, ids) {
    const rows: StoredPageView[] = [];
    for (const id of ids) {
      const result = await run(db, statements.select, [id]);
      if (result.rows[0]) rows.push(result.rows[0] as StoredPageView);
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
        after.id,
      ]);
      await queue(db, after, before);
    }
  },

  async insertPageViews(db, views) {
    const inserted = new Map<string, string>();
    if (views.length === 0) return inserted;
    const articleIds = new Map<string, string | null>();
    for (const { row, slug } of views) {
      const key = `${row.project_id}\u0000${slug}`;
      let articleId = articleIds.get(key);
      if (articleId === undefined) {
        const result = await run(db, statements.article, [row.project_id, slug]);
        articleId = (result.rows[0] as { id: string } | undefined)?.id ?? null;
        articleIds.set(key, articleId);
      }
      if (articleId === null) continue;
      const stored = { ...row, article_id: articleId };
      await run(
        db,
        statements.insert,
        pageViewColumns.map((column) => stored[column]),
      );
      await queue(db, stored, null);
      inserted.set(row.id, articleId);
    }
    return inserted;
  },
};
