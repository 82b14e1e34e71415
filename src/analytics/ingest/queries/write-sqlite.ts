// The page-view writes on SQLite: one cached prepared statement per row, each a call of a few
// microseconds in process, inside the batch's transaction.
import { CompiledQuery } from 'kysely';
import { moveLegacyPageViewsOf } from '../../../db/page-view-move.ts';
import {
  fromPageViewRow,
  keyOfPageViewId,
  pageViewRowColumns,
  toPageViewRow,
} from '../../../db/page-view-rows.ts';
import { stringIds, stringsOf, withStringIds } from '../../../db/page-view-strings.ts';
import type { PageViewRowTable } from '../../../db/schema.ts';
import {
  type Executor,
  queueColumns,
  queueEntryOf,
  type StoredPageView,
  storedOf,
  type WriteStore,
} from './write-store.ts';

function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

const projectNum = '(select num from project_nums where project_id = ?)';
const statements = {
  select: `select r.*, n.article_id from page_view_rows as r join article_nums as n on n.num = r.article_num
    where r.project_num = ${projectNum} and r.day = ? and r.created_ms = ? and r.rid = ?`,
  // The article of the slug and the numbers the row takes, in one statement.
  article: `select a.id as article_id, n.num as article_num, p.num as project_num from articles as a
    join article_nums as n on n.article_id = a.id join project_nums as p on p.project_id = a.project_id
    where a.project_id = ? and a.slug = ?`,
  insert: `insert into page_view_rows (${pageViewRowColumns.join(', ')}) values (${placeholders(pageViewRowColumns.length)})`,
  update: `update page_view_rows set updated_ms = ?, time_on_page_ms = ?, scroll_depth_centi = ?, exit_position = ?,
    bounced = ?, event_count = ?, events = ? where project_num = ${projectNum} and day = ? and created_ms = ? and rid = ?`,
  queue: `insert into rollup_queue (${queueColumns.join(', ')}) values (${placeholders(queueColumns.length)})`,
};

/** The day, created_ms and rid of a stored page view's key, from its id. */
function keyParameters(view: StoredPageView): [string, number, Buffer] {
  const key = keyOfPageViewId(view.id)!;
  return [key.day, key.createdMs, key.rid];
}

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
      const key = keyOfPageViewId(id);
      // An id this release does not make names no page view (page_view_rows keeps them as text).
      if (key === null) continue;
      const { day } = key;
      for (const projectId of projectIds) {
        const parameters = [projectId, day, key.createdMs, key.rid];
        let result = await run(db, statements.select, parameters);
        // Stored by an older release and not moved yet: moved now, in this transaction.
        if (
          result.rows.length === 0 &&
          (await moveLegacyPageViewsOf(db, 'sqlite', { projectIds: [projectId], days: [day], ids: [id] })) > 0
        )
          result = await run(db, statements.select, parameters);
        const row = result.rows[0] as (PageViewRowTable & { article_id: string }) | undefined;
        if (row) rows.push(storedOf(fromPageViewRow(row, { project: projectId, article: row.article_id })));
      }
    }
    return rows;
  },

  async updatePageViews(db, updates) {
    for (const { before, after } of updates) {
      await run(db, statements.update, [
        Date.parse(after.updated_at) - Date.parse(after.created_at),
        after.time_on_page_ms,
        after.scroll_depth_centi,
        after.exit_position,
        after.bounced,
        after.event_count,
        after.events === '[]' ? null : after.events,
        after.project_id,
        ...keyParameters(after),
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
      const found = (await run(db, statements.article, [row.project_id, slug])).rows[0] as
        { article_id: string; article_num: number; project_num: number } | undefined;
      if (found === undefined) continue;
      const stored = toPageViewRow(
        withStringIds(row, ids),
        { project: found.project_num, article: found.article_num },
        'sqlite',
      );
      await run(
        db,
        statements.insert,
        pageViewRowColumns.map((column) => stored[column]),
      );
      await queue(db, { ...row, article_id: found.article_id }, null);
      inserted.set(row.id, found.article_id);
    }
    return inserted;
  },
};
