// The writes of a batch of page views, behind one interface with an implementation per database
// (write-sqlite.ts, write-postgres.ts): SQLite runs one cached prepared statement per row, a call of
// microseconds in process; PostgreSQL sends a whole batch as arrays expanded by unnest(), in one
// statement for the new page views, so that a batch costs a round trip or two whatever its size.
import type { Kysely } from 'kysely';
import type { Database, PageViewTable } from '../../db/schema.ts';
import type { Contribution } from '../contribution.ts';
import type { RollupChanges } from '../rollup-changes.ts';

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
  | 'visitor_id'
>;

export const storedColumns = [
  'id',
  'project_id',
  'article_id',
  'day',
  'created_at',
  'updated_at',
  'source',
  'time_on_page_ms',
  'scroll_depth_centi',
  'exit_position',
  'bounced',
  'event_count',
  'events',
  'visitor_id',
] as const satisfies ReadonlyArray<keyof StoredPageView>;

/** A page view to create: its article is the one of `slug` in its project, if there is one. */
export interface NewPageView {
  row: PageViewTable;
  slug: string;
}

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

export interface DayRollup extends Contribution {
  project_id: string;
  day: string;
  visitors: number;
}

export interface CountryRollup {
  project_id: string;
  day: string;
  country: string;
  views: number;
}

export interface WriteStore {
  /** Statement that opens a batch's transaction. */
  readonly begin: string;
  /** Whether several writes may go as one statement of data-modifying WITH clauses (PostgreSQL). */
  readonly dataModifyingWith: boolean;
  /** Reads the page views to update, locked against other instances until the commit. */
  lockPageViews(db: Executor, ids: string[]): Promise<StoredPageView[]>;
  /** Writes updated page views and the changes they make to the rollups. */
  updatePageViews(db: Executor, rows: StoredPageView[], changes: RollupChanges): Promise<void>;
  /**
   * Inserts the new page views whose article exists, with their share of every rollup, one view
   * each on their article and a new content version of their project. Returns the ids inserted,
   * each with the id of its article.
   */
  insertPageViews(db: Executor, views: NewPageView[]): Promise<Map<string, string>>;
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

export function addExcluded(table: string, fields: readonly string[]): string {
  return fields.map((field) => `${field} = ${table}.${field} + excluded.${field}`).join(', ');
}
