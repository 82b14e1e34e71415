// The page-view writes on SQLite: one cached prepared statement per row, each a call of a few
// microseconds in process, inside the batch's transaction.
import { CompiledQuery } from 'kysely';
import { contributionFields } from '../contribution.ts';
import { RollupChanges } from '../rollup-changes.ts';
import {
  addExcluded,
  type Executor,
  pageViewColumns,
  type StoredPageView,
  storedColumns,
  type WriteStore,
} from './write-store.ts';

function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

const dayFields = ['visitors', ...contributionFields] as const;

const statements = {
  article: 'select id from articles where project_id = ? and slug = ?',
  select: `select ${storedColumns.join(', ')} from page_views where id = ?`,
  insert: `insert into page_views (${pageViewColumns.join(', ')}) values (${placeholders(pageViewColumns.length)})`,
  update:
    'update page_views set updated_at = ?, time_on_page_ms = ?, scroll_depth_centi = ?, exit_position = ?, bounced = ?, event_count = ?, events = ? where id = ?',
  visitor:
    'insert into analytics_daily_visitors (project_id, day, visitor_id) values (?, ?, ?) on conflict do nothing',
  day: `insert into analytics_daily_totals (project_id, day, ${dayFields.join(', ')}) values (${placeholders(2 + dayFields.length)}) on conflict (project_id, day) do update set ${addExcluded('analytics_daily_totals', dayFields)}`,
  articleRollup: `insert into analytics_daily_articles (project_id, day, article_id, ${contributionFields.join(', ')}) values (${placeholders(3 + contributionFields.length)}) on conflict (project_id, day, article_id) do update set ${addExcluded('analytics_daily_articles', contributionFields)}`,
  country:
    'insert into analytics_daily_countries (project_id, day, country, views) values (?, ?, ?, ?) on conflict (project_id, day, country) do update set views = analytics_daily_countries.views + excluded.views',
  viewCount:
    'insert into article_views (article_id, project_id, view_count) values (?, ?, ?) on conflict (article_id) do update set view_count = article_views.view_count + excluded.view_count',
};

function run(db: Executor, text: string, parameters: unknown[]) {
  return db.executeQuery(CompiledQuery.raw(text, parameters));
}

async function writeChanges(db: Executor, changes: RollupChanges): Promise<void> {
  for (const row of changes.days) {
    await run(db, statements.day, [row.project_id, row.day, ...dayFields.map((field) => row[field])]);
  }
  for (const row of changes.articles) {
    await run(db, statements.articleRollup, [
      row.project_id,
      row.day,
      row.article_id,
      ...contributionFields.map((field) => row[field]),
    ]);
  }
  for (const row of changes.countries) {
    await run(db, statements.country, [row.project_id, row.day, row.country, row.views]);
  }
  for (const { article_id, project_id, views } of changes.viewCounts)
    await run(db, statements.viewCount, [article_id, project_id, views]);
  // No project row is touched: page views do not change the content version, so cached content
  // answers live on (view counts in them lag by at most the answer cache's viewCountLagMs).
}

export const sqliteStore: WriteStore = {
  // IMMEDIATE takes the write lock at once: a deferred transaction that reads first could not be
  // upgraded when another process (the CLI) wrote in between.
  begin: 'begin immediate',
  dataModifyingWith: false,

  async lockPageViews(db, ids) {
    const rows: StoredPageView[] = [];
    for (const id of ids) {
      const result = await run(db, statements.select, [id]);
      if (result.rows[0]) rows.push(result.rows[0] as StoredPageView);
    }
    return rows;
  },

  async updatePageViews(db, rows, changes) {
    for (const row of rows) {
      await run(db, statements.update, [
        row.updated_at,
        row.time_on_page_ms,
        row.scroll_depth_centi,
        row.exit_position,
        row.bounced,
        row.event_count,
        row.events,
        row.id,
      ]);
    }
    await writeChanges(db, changes);
  },

  async insertPageViews(db, views) {
    const inserted = new Map<string, string>();
    if (views.length === 0) return inserted;
    const articleIds = new Map<string, string | null>();
    const changes = new RollupChanges();
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
      inserted.set(row.id, articleId);
      changes.addCreated(stored);
    }
    for (const key of changes.visitors) {
      const result = await run(db, statements.visitor, [key.project_id, key.day, key.visitor_id]);
      if (Number(result.numAffectedRows ?? 0) > 0) changes.addNewVisitor(key);
    }
    await writeChanges(db, changes);
    return inserted;
  },
};
