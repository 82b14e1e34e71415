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
    const articleIds = await findArticleIds(db, views);
    for (const { row, slug } of views) {
      const articleId = articleIds.get(row.project_id)?.get(slug);
      if (articleId === undefined) continue;
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

/** Slugs looked up in one statement, padded to one of these counts (so that a few prepared
 * statements serve every batch): a batch's (256 at most) in one or two. */
const lookupSizes = [1, 8, 32, 200];
const slugsPerLookup = lookupSizes.at(-1)!;
const lookupSql = new Map(
  lookupSizes.map((size) => [
    size,
    `select slug, id from articles where project_id = ? and slug in (${placeholders(size)})`,
  ]),
);

/** The ids of the articles the views name, by project and slug (in one statement per 200 slugs). */
async function findArticleIds(
  db: Executor,
  views: ReadonlyArray<{ row: { project_id: string }; slug: string }>,
): Promise<Map<string, Map<string, string>>> {
  const slugsByProject = new Map<string, Set<string>>();
  for (const { row, slug } of views) {
    let slugs = slugsByProject.get(row.project_id);
    if (slugs === undefined) slugsByProject.set(row.project_id, (slugs = new Set()));
    slugs.add(slug);
  }
  const found = new Map<string, Map<string, string>>();
  for (const [projectId, slugSet] of slugsByProject) {
    const ids = new Map<string, string>();
    found.set(projectId, ids);
    const slugs = [...slugSet];
    for (let start = 0; start < slugs.length; start += slugsPerLookup) {
      const chunk = slugs.slice(start, start + slugsPerLookup);
      const size = lookupSizes.find((candidate) => candidate >= chunk.length)!;
      const padded = [...chunk, ...Array<string>(size - chunk.length).fill(chunk[0]!)];
      const result = await run(db, lookupSql.get(size)!, [projectId, ...padded]);
      for (const { slug, id } of result.rows as Array<{ slug: string; id: string }>) ids.set(slug, id);
    }
  }
  return found;
}
