// The writes of a batch of page views, behind one interface with an implementation per database:
// SQLite runs one cached prepared statement per row (a call costs microseconds, in process);
// PostgreSQL sends each kind of write once per batch as arrays expanded by unnest(), so that a batch
// costs a dozen round trips whatever its size. The SQL of both lives in this file.
import { CompiledQuery, type Kysely } from 'kysely';
import type { DialectName } from '../../db/database.ts';
import type { Database, PageViewTable } from '../../db/schema.ts';
import { type Contribution, contributionFields } from '../contribution.ts';

export type Executor = Kysely<Database>;

/** The columns of a page view that an update reads and writes. */
export type StoredPageView = Pick<
  PageViewTable,
  | 'id'
  | 'project_id'
  | 'article_id'
  | 'day'
  | 'created_at'
  | 'updated_at'
  | 'source'
  | 'time_on_page_ms'
  | 'scroll_depth_centi'
  | 'exit_position'
  | 'bounced'
  | 'event_count'
  | 'events'
>;

export interface VisitorKey {
  project_id: string;
  day: string;
  visitor_id: string;
}

export interface DayKey {
  project_id: string;
  day: string;
}

export interface ArticleRollup extends Contribution {
  project_id: string;
  day: string;
  article_id: string;
}

export interface CountryRollup {
  project_id: string;
  day: string;
  country: string;
  views: number;
}

export interface WriteStore {
  /** Statement that opens the batch's transaction. */
  readonly begin: string;
  /** Reads the page views to update, locked against other instances until the commit. */
  lockPageViews(db: Executor, ids: string[]): Promise<StoredPageView[]>;
  insertPageViews(db: Executor, rows: PageViewTable[]): Promise<void>;
  updatePageViews(db: Executor, rows: StoredPageView[]): Promise<void>;
  /** Adds the visitor ids to their day's set; returns the day of each one that was not in it yet. */
  insertVisitors(db: Executor, keys: VisitorKey[]): Promise<DayKey[]>;
  addVisitorCounts(db: Executor, counts: Array<DayKey & { visitors: number }>): Promise<void>;
  addArticleRollups(db: Executor, rows: ArticleRollup[]): Promise<void>;
  addCountryRollups(db: Executor, rows: CountryRollup[]): Promise<void>;
  addViewCounts(db: Executor, counts: Array<{ article_id: string; views: number }>): Promise<void>;
  bumpContentVersions(db: Executor, projectIds: string[]): Promise<void>;
}

export const pageViewColumns = [
  'id',
  'project_id',
  'article_id',
  'day',
  'created_at',
  'updated_at',
  'visitor_id',
  'session_id',
  'source',
  'country',
  'time_on_page_ms',
  'scroll_depth_centi',
  'exit_position',
  'bounced',
  'screen_width',
  'screen_height',
  'event_count',
  'page_url',
  'page_title',
  'referrer',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'events',
] as const satisfies ReadonlyArray<keyof PageViewTable>;

const storedColumns =
  'id, project_id, article_id, day, created_at, updated_at, source, time_on_page_ms, scroll_depth_centi, exit_position, bounced, event_count, events';

const rollupSet = contributionFields
  .map((field) => `${field} = analytics_daily_articles.${field} + excluded.${field}`)
  .join(', ');

export function writeStoreFor(dialect: DialectName): WriteStore {
  return dialect === 'postgres' ? postgresStore : sqliteStore;
}

async function run(db: Executor, text: string, parameters: unknown[]) {
  return db.executeQuery(CompiledQuery.raw(text, parameters));
}

function placeholders(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

const sqliteSql = {
  select: `select ${storedColumns} from page_views where id = ?`,
  insert: `insert into page_views (${pageViewColumns.join(', ')}) values (${placeholders(pageViewColumns.length)})`,
  update:
    'update page_views set updated_at = ?, time_on_page_ms = ?, scroll_depth_centi = ?, exit_position = ?, bounced = ?, event_count = ?, events = ? where id = ?',
  visitor:
    'insert into analytics_daily_visitors (project_id, day, visitor_id) values (?, ?, ?) on conflict do nothing',
  visitorCount:
    'insert into analytics_daily_totals (project_id, day, visitors) values (?, ?, ?) on conflict (project_id, day) do update set visitors = analytics_daily_totals.visitors + excluded.visitors',
  article: `insert into analytics_daily_articles (project_id, day, article_id, ${contributionFields.join(', ')}) values (${placeholders(3 + contributionFields.length)}) on conflict (project_id, day, article_id) do update set ${rollupSet}`,
  country:
    'insert into analytics_daily_countries (project_id, day, country, views) values (?, ?, ?, ?) on conflict (project_id, day, country) do update set views = analytics_daily_countries.views + excluded.views',
  viewCount: 'update articles set view_count = view_count + ? where id = ?',
  version: 'update projects set content_version = content_version + 1 where id = ?',
};

const sqliteStore: WriteStore = {
  // IMMEDIATE takes the write lock at once: a deferred transaction that reads first could not be
  // upgraded when another process (the CLI) wrote in between.
  begin: 'begin immediate',
  async lockPageViews(db, ids) {
    const rows: StoredPageView[] = [];
    for (const id of ids) {
      const result = await run(db, sqliteSql.select, [id]);
      if (result.rows[0]) rows.push(result.rows[0] as StoredPageView);
    }
    return rows;
  },
  async insertPageViews(db, rows) {
    for (const row of rows) await run(db, sqliteSql.insert, pageViewColumns.map((column) => row[column]));
  },
  async updatePageViews(db, rows) {
    for (const row of rows) {
      await run(db, sqliteSql.update, [
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
  },
  async insertVisitors(db, keys) {
    const fresh: DayKey[] = [];
    for (const key of keys) {
      const result = await run(db, sqliteSql.visitor, [key.project_id, key.day, key.visitor_id]);
      if (Number(result.numAffectedRows ?? 0) > 0) fresh.push({ project_id: key.project_id, day: key.day });
    }
    return fresh;
  },
  async addVisitorCounts(db, counts) {
    for (const count of counts) await run(db, sqliteSql.visitorCount, [count.project_id, count.day, count.visitors]);
  },
  async addArticleRollups(db, rows) {
    for (const row of rows) {
      await run(db, sqliteSql.article, [
        row.project_id,
        row.day,
        row.article_id,
        ...contributionFields.map((field) => row[field]),
      ]);
    }
  },
  async addCountryRollups(db, rows) {
    for (const row of rows) await run(db, sqliteSql.country, [row.project_id, row.day, row.country, row.views]);
  },
  async addViewCounts(db, counts) {
    for (const count of counts) await run(db, sqliteSql.viewCount, [count.views, count.article_id]);
  },
  async bumpContentVersions(db, projectIds) {
    for (const id of projectIds) await run(db, sqliteSql.version, [id]);
  },
};

/** PostgreSQL array types of the page-view columns, for unnest(). */
const pageViewArrayTypes: Record<(typeof pageViewColumns)[number], string> = {
  id: 'text',
  project_id: 'text',
  article_id: 'text',
  day: 'text',
  created_at: 'text',
  updated_at: 'text',
  visitor_id: 'text',
  session_id: 'text',
  source: 'text',
  country: 'text',
  time_on_page_ms: 'int8',
  scroll_depth_centi: 'int4',
  exit_position: 'float8',
  bounced: 'int4',
  screen_width: 'int4',
  screen_height: 'int4',
  event_count: 'int4',
  page_url: 'text',
  page_title: 'text',
  referrer: 'text',
  utm_source: 'text',
  utm_medium: 'text',
  utm_campaign: 'text',
  utm_term: 'text',
  utm_content: 'text',
  events: 'text',
};

function unnest(types: string[]): string {
  return `unnest(${types.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})`;
}

const postgresSql = {
  lock: `select ${storedColumns} from page_views where id = any($1::text[]) order by id for update`,
  insert: `insert into page_views (${pageViewColumns.join(', ')}) select * from ${unnest(pageViewColumns.map((column) => pageViewArrayTypes[column]))}`,
  update: `update page_views as p set updated_at = u.updated_at, time_on_page_ms = u.time_on_page_ms, scroll_depth_centi = u.scroll_depth_centi, exit_position = u.exit_position, bounced = u.bounced, event_count = u.event_count, events = u.events from ${unnest(['text', 'text', 'int8', 'int4', 'float8', 'int4', 'int4', 'text'])} as u(id, updated_at, time_on_page_ms, scroll_depth_centi, exit_position, bounced, event_count, events) where p.id = u.id`,
  visitors: `insert into analytics_daily_visitors (project_id, day, visitor_id) select * from ${unnest(['text', 'text', 'text'])} on conflict do nothing returning project_id, day`,
  visitorCounts: `insert into analytics_daily_totals (project_id, day, visitors) select * from ${unnest(['text', 'text', 'int8'])} on conflict (project_id, day) do update set visitors = analytics_daily_totals.visitors + excluded.visitors`,
  articles: `insert into analytics_daily_articles (project_id, day, article_id, ${contributionFields.join(', ')}) select * from ${unnest(['text', 'text', 'text', ...contributionFields.map(() => 'int8')])} on conflict (project_id, day, article_id) do update set ${rollupSet}`,
  countries: `insert into analytics_daily_countries (project_id, day, country, views) select * from ${unnest(['text', 'text', 'text', 'int8'])} on conflict (project_id, day, country) do update set views = analytics_daily_countries.views + excluded.views`,
  viewCounts: `update articles as a set view_count = a.view_count + u.views from ${unnest(['text', 'int8'])} as u(id, views) where a.id = u.id`,
  versions: 'update projects set content_version = content_version + 1 where id = any($1::text[])',
};

function columnsOf<T>(rows: T[], columns: ReadonlyArray<keyof T>): unknown[][] {
  return columns.map((column) => rows.map((row) => row[column]));
}

const postgresStore: WriteStore = {
  begin: 'begin',
  async lockPageViews(db, ids) {
    if (ids.length === 0) return [];
    const result = await run(db, postgresSql.lock, [ids]);
    return (result.rows as StoredPageView[]).map((row) => ({
      ...row,
      time_on_page_ms: Number(row.time_on_page_ms),
    }));
  },
  async insertPageViews(db, rows) {
    if (rows.length > 0) await run(db, postgresSql.insert, columnsOf(rows, pageViewColumns));
  },
  async updatePageViews(db, rows) {
    if (rows.length === 0) return;
    await run(
      db,
      postgresSql.update,
      columnsOf(rows, [
        'id',
        'updated_at',
        'time_on_page_ms',
        'scroll_depth_centi',
        'exit_position',
        'bounced',
        'event_count',
        'events',
      ]),
    );
  },
  async insertVisitors(db, keys) {
    if (keys.length === 0) return [];
    const result = await run(db, postgresSql.visitors, columnsOf(keys, ['project_id', 'day', 'visitor_id']));
    return result.rows as DayKey[];
  },
  async addVisitorCounts(db, counts) {
    if (counts.length > 0) await run(db, postgresSql.visitorCounts, columnsOf(counts, ['project_id', 'day', 'visitors']));
  },
  async addArticleRollups(db, rows) {
    if (rows.length === 0) return;
    await run(db, postgresSql.articles, columnsOf(rows, ['project_id', 'day', 'article_id', ...contributionFields]));
  },
  async addCountryRollups(db, rows) {
    if (rows.length > 0) await run(db, postgresSql.countries, columnsOf(rows, ['project_id', 'day', 'country', 'views']));
  },
  async addViewCounts(db, counts) {
    if (counts.length > 0) await run(db, postgresSql.viewCounts, columnsOf(counts, ['article_id', 'views']));
  },
  async bumpContentVersions(db, projectIds) {
    if (projectIds.length > 0) await run(db, postgresSql.versions, [projectIds]);
  },
};
