// The writes of a batch of page views, behind one interface with an implementation per database
// (write-sqlite.ts, write-postgres.ts): SQLite runs one cached prepared statement per row, a call of
// microseconds in process; PostgreSQL sends a whole batch as arrays expanded by unnest(), in one
// statement for the new page views, and in one for updates of distinct page views, so that a batch
// costs a round trip or two whatever its size.
// A batch writes the raw page views and one rollup-queue entry per write; the rollups and view
// counts are summed later, in large batches, by rollup-queue.ts.
import { CompiledQuery } from 'kysely';
import type { StringIdLookup } from '../../../db/page-view-strings.ts';
import type { Executor, PageViewStorageTable, PageViewTable, RollupQueueTable } from '../../../db/schema.ts';

export type { Executor };

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

/**
 * An update of a batch made of updates alone, each of another page view: what it sets, applied by
 * the database to the stored row (the larger time and depth kept, exit and bounce replaced when
 * sent, `events` appended).
 */
export interface SoleUpdate {
  projectId: string;
  id: string;
  day: string;
  now: string;
  /** Created before this (an ISO time), the page view is too old to update. */
  oldest: string;
  timeOnPageMs: number | null;
  scrollDepthCenti: number | null;
  exitPosition: number | null;
  bounced: 0 | 1 | null;
  /** The events added, as a JSON array, and how many. */
  events: string;
  added: number;
}

/** What became of a SoleUpdate: applied, or refused, with the stored event count for the message. */
export type SoleUpdateOutcome =
  | { outcome: 'updated' }
  | { outcome: 'missing' }
  | { outcome: 'expired' }
  | { outcome: 'events'; eventCount: number };

export interface WriteStore {
  /** Statement that opens a batch's transaction. */
  readonly begin: string;
  /**
   * Applies updates of distinct page views, with their rollup-queue entries, in one statement,
   * atomic by itself (PostgreSQL: one round trip instead of four); the stores without it read, patch
   * and write in the batch's transaction. An update at most `maxEvents` events long.
   */
  updateAlone?(executor: Executor, updates: SoleUpdate[], maxEvents: number): Promise<SoleUpdateOutcome[]>;
  /**
   * Whether a batch of new page views alone is written by one statement, atomic by itself, so
   * that it needs no transaction around it (PostgreSQL: one round trip instead of three).
   */
  readonly createsInOneStatement: boolean;
  /**
   * Reads the page views to update, locked against other instances until the commit: those of
   * `ids` in the projects and days given (an id carries its day, dayOfPageViewId).
   */
  lockPageViews(executor: Executor, keys: PageViewKeys): Promise<StoredPageView[]>;
  /** Writes updated page views, each with its rollup-queue entry. */
  updatePageViews(executor: Executor, updates: PageViewUpdate[]): Promise<void>;
  /**
   * Inserts the new page views whose article exists, each with its rollup-queue entry, their
   * strings as ids (looked up through `strings`). Returns the ids inserted, each with the id of its
   * article.
   */
  insertPageViews(
    executor: Executor,
    views: NewPageView[],
    strings: StringIdLookup,
  ): Promise<Map<string, string>>;
}

/** Page views looked up by id, with the projects and days they may be of (all rows match all three). */
export interface PageViewKeys {
  projectIds: string[];
  days: string[];
  ids: string[];
}

/** A page view as it was stored and as an update leaves it. */
export interface PageViewUpdate {
  before: StoredPageView;
  after: StoredPageView;
}

export type QueueEntry = Omit<RollupQueueTable, 'seq'>;

/** The columns of a rollup-queue entry, in the order the stores send them. */
export const queueColumns = [
  'page_view_id',
  'project_id',
  'day',
  'created',
  'time_on_page_ms',
  'scroll_depth_centi',
  'exit_position',
  'bounced',
  'event_count',
  'was_time_on_page_ms',
  'was_scroll_depth_centi',
  'was_exit_position',
  'was_bounced',
  'was_event_count',
] as const satisfies ReadonlyArray<keyof QueueEntry>;

type Measured = Pick<
  PageViewTable,
  | 'id'
  | 'project_id'
  | 'day'
  | 'time_on_page_ms'
  | 'scroll_depth_centi'
  | 'exit_position'
  | 'bounced'
  | 'event_count'
>;

/** The queue entry of a write: the measures after it, and those before it for an update. */
export function queueEntryOf(after: Measured, before: Measured | null): QueueEntry {
  return {
    page_view_id: after.id,
    project_id: after.project_id,
    day: after.day,
    created: before === null ? 1 : 0,
    time_on_page_ms: after.time_on_page_ms,
    scroll_depth_centi: after.scroll_depth_centi,
    exit_position: after.exit_position,
    bounced: after.bounced,
    event_count: after.event_count,
    was_time_on_page_ms: before?.time_on_page_ms ?? null,
    was_scroll_depth_centi: before?.scroll_depth_centi ?? null,
    was_exit_position: before?.exit_position ?? null,
    was_bounced: before?.bounced ?? null,
    was_event_count: before?.event_count ?? null,
  };
}

/** The columns of a stored page view, in the order the stores insert them. */
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
  'page_url_id',
  'page_title_id',
  'referrer_id',
  'utm_source_id',
  'utm_medium_id',
  'utm_campaign_id',
  'utm_term_id',
  'utm_content_id',
  'events',
  // 1: tracked with a test key. Set once by the insert and never by an update: the mark travels
  // with the row, so that its updates stay test views.
  'test',
] as const satisfies ReadonlyArray<keyof PageViewStorageTable>;

/** The columns an update reads of a stored page view, picked from a whole one. */
export function storedOf(view: StoredPageView): StoredPageView {
  return Object.fromEntries(storedColumns.map((column) => [column, view[column]])) as StoredPageView;
}

/** Runs `work` in a transaction opened by the statement `begin` on the connection `db`. */
export async function inTransaction<T>(db: Executor, begin: string, work: () => Promise<T>): Promise<T> {
  await db.executeQuery(CompiledQuery.raw(begin));
  try {
    const result = await work();
    await db.executeQuery(CompiledQuery.raw('commit'));
    return result;
  } catch (error) {
    await db.executeQuery(CompiledQuery.raw('rollback')).catch(() => {});
    throw error;
  }
}
