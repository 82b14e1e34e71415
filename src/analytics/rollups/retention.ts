// The cleanup: deletes what Folio does not keep. Each day's salt and visitor ids (the visitor sets
// and the daily visitor lists) live through the next day and are deleted from the day after on, so
// that no id can be recomputed or linked across days; raw page views are kept for
// ANALYTICS_RETENTION_DAYS when it is set (their rollups stay forever), and then the strings that
// only they named (URLs, titles, referrers, UTM values), as are a deleted project's once past the
// grace of writers' cached ids (db/page-view-string-sweep.ts). It runs on a timer of the
// server, never inside a request, in batches of one short statement each (delete-batch.ts), until
// nothing is left. Two instances may run it at once: a row is deleted by one of them, and each
// goes on until its batches find nothing. Its work and failures show in the metrics and the log.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import { moveLegacyPageViews } from '../../db/page-view-move.ts';
import { dropPageViewMonthsBefore, preparePageViewPartitions } from '../../db/page-view-partitions.ts';
import { sweepDeletedProjectStrings, sweepExpiredStrings } from '../../db/page-view-string-sweep.ts';
import { type CleanupTable, recordDeleted, recordRun } from './cleanup-metrics.ts';
import { type DayKeyedTable, deleteDayBatch, oldestDay } from './queries/delete-batch.ts';
import { deleteSaltsBefore, oldestSaltDay } from './queries/expired-salts.ts';
import { projectIds } from './queries/project-ids.ts';
import { shiftDay, utcDay } from '../days.ts';

/**
 * Rows per statement. PostgreSQL: 20 ms a batch of 2,000 visitor-set rows at 2 million, far under
 * the query timeout. SQLite, whose statements run on the event loop: 5 ms a batch of 500 (a batch
 * of 2,000 took 34 ms, the cost of a row growing with the batch).
 */
const defaultBatchSize = { sqlite: 500, postgres: 2000 } as const;
const everyMs = 60 * 60 * 1000;
const firstAfterMs = 60 * 1000;

export interface CleanupOptions {
  /** Days of raw page views kept; null keeps them forever. */
  retentionDays: number | null;
  now?: Date;
  batchSize?: number;
  /** Ends the run between two batches (the server closing). */
  signal?: AbortSignal;
  /** Told of each batch that deleted rows, with its duration (the bulk test reports them). */
  onBatch?: (table: CleanupTable, rows: number, ms: number) => void | Promise<void>;
}

export type CleanupCounts = Record<CleanupTable, number>;

/** The first day whose raw page views are kept: today and the `retentionDays − 1` days before it. */
export function firstRetainedDay(retentionDays: number, now: Date): string {
  return shiftDay(utcDay(now), -(retentionDays - 1));
}

/** The first day whose salt and visitor ids are kept: yesterday (today's ids need it to be new). */
export function firstRememberedDay(now: Date): string {
  return shiftDay(utcDay(now), -1);
}

/** One complete run of the cleanup; returns the rows it deleted by table. */
export async function runCleanup(db: Db, options: CleanupOptions): Promise<CleanupCounts> {
  const now = options.now ?? new Date();
  const limit = options.batchSize ?? defaultBatchSize[db.dialect];
  const forgetBefore = firstRememberedDay(now);
  const deleted: CleanupCounts = {
    analytics_salts: 0,
    analytics_daily_visitors: 0,
    analytics_visitor_sets: 0,
    page_views: 0,
    page_view_strings: 0,
  };
  // Page views without a retention are kept, and only their oldest day is reported. Those an older
  // release left in page_views count as page views too.
  const pageViewsBefore =
    options.retentionDays === null ? null : firstRetainedDay(options.retentionDays, now);
  const tables: Array<{ table: DayKeyedTable; label: CleanupTable; before: string | null }> = [
    { table: 'analytics_daily_visitors', label: 'analytics_daily_visitors', before: forgetBefore },
    { table: 'analytics_visitor_entries', label: 'analytics_visitor_sets', before: forgetBefore },
    { table: 'analytics_visitor_sets', label: 'analytics_visitor_sets', before: forgetBefore },
    { table: 'page_view_rows', label: 'page_views', before: pageViewsBefore },
    { table: 'page_views', label: 'page_views', before: pageViewsBefore },
  ];
  try {
    // The salts first: once they are gone, no visitor id of those days can be computed again.
    deleted.analytics_salts = await deleteSaltsBefore(db.kysely, forgetBefore);
    recordDeleted(db, 'analytics_salts', deleted.analytics_salts);
    const oldest: Partial<Record<CleanupTable, string | null>> = {
      analytics_salts: await oldestSaltDay(db.kysely),
    };
    // PostgreSQL: next months' partitions made ahead; the months past the retention dropped whole.
    await preparePageViewPartitions(db.kysely, now);
    if (pageViewsBefore !== null) {
      deleted.page_views = await dropPageViewMonthsBefore(db.kysely, pageViewsBefore);
      recordDeleted(db, 'page_views', deleted.page_views);
    }
    const projects = await projectIds(db.kysely);
    for (const { table, label, before } of tables) {
      let first = oldest[label] ?? null;
      for (const id of projects) {
        if (before !== null)
          deleted[label] += await deleteAllBefore(db, table, label, id, before, limit, options);
        const day = await oldestDay(db.kysely, table, id);
        if (day !== null && (first === null || day < first)) first = day;
      }
      oldest[label] = first;
    }
    deleted.page_view_strings = await sweepStrings(db, pageViewsBefore, now, options);
    recordRun(db, oldest);
    return deleted;
  } catch (error) {
    if (!options.signal?.aborted) recordRun(db, null);
    throw error;
  }
}

/** Deletes a project's rows of `table` from the days before `before`, a batch at a time. */
async function deleteAllBefore(
  db: Db,
  table: DayKeyedTable,
  label: CleanupTable,
  projectId: string,
  before: string,
  limit: number,
  options: Pick<CleanupOptions, 'signal' | 'onBatch'> = {},
): Promise<number> {
  let total = 0;
  // Walks the rows in key order until a batch finds nothing, then once more from the start for any
  // written behind it meanwhile; another instance deleting the same rows only makes batches short.
  for (let walked = -1; walked !== 0;) {
    walked = 0;
    for (let after: string[] | null = null; ;) {
      options.signal?.throwIfAborted();
      const started = performance.now();
      const batch = await deleteDayBatch(db.kysely, table, projectId, before, limit, after);
      if (batch.after === null) break;
      after = batch.after;
      await options.onBatch?.(label, batch.deleted, performance.now() - started);
      walked += batch.deleted;
      recordDeleted(db, label, batch.deleted);
      // SQLite runs on the event loop: the requests waiting meanwhile run between two batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    total += walked;
  }
  return total;
}

/**
 * Deletes the strings that only page views past the retention named, then (when one is due) those
 * only deleted projects' page views named.
 */
async function sweepStrings(
  db: Db,
  firstRetained: string | null,
  now: Date,
  options: Pick<CleanupOptions, 'signal' | 'batchSize' | 'onBatch'>,
): Promise<number> {
  const onBatch = async (rows: number, ms: number) => {
    recordDeleted(db, 'page_view_strings', rows);
    await options.onBatch?.('page_view_strings', rows, ms);
  };
  const sweep = { now, signal: options.signal, batchSize: options.batchSize, onBatch };
  let deleted = firstRetained === null ? 0 : await sweepExpiredStrings(db, firstRetained, sweep);
  deleted += (await sweepDeletedProjectStrings(db, sweep)) ?? 0;
  return deleted;
}

/** Deletes every page view of a day before the retained ones, in batches; returns how many went. */
export async function deleteExpired(
  db: Db,
  retentionDays: number,
  now: Date,
  options: { batchSize?: number } = {},
): Promise<number> {
  const limit = options.batchSize ?? defaultBatchSize[db.dialect];
  const before = firstRetainedDay(retentionDays, now);
  let deleted = await dropPageViewMonthsBefore(db.kysely, before);
  const projects = await projectIds(db.kysely);
  for (const id of projects) {
    deleted += await deleteAllBefore(db, 'page_view_rows', 'page_views', id, before, limit);
    deleted += await deleteAllBefore(db, 'page_views', 'page_views', id, before, limit);
  }
  return deleted;
}

/** How long until the next run: an hour, or a minute past the next UTC midnight if sooner. */
export function delayUntilNextRun(now: Date): number {
  const nextMidnight = Date.parse(`${shiftDay(utcDay(now), 1)}T00:00:00Z`);
  return Math.min(everyMs, nextMidnight + firstAfterMs - now.getTime());
}

/**
 * Runs the cleanup a minute after start, then hourly and just after each UTC midnight, one run at
 * a time. A failed run is logged as an error and counted; the next one starts over.
 */
export function startCleanup(
  db: Db,
  retentionDays: number | null,
  log: FastifyBaseLogger,
  timing: { firstAfterMs?: number; everyMs?: number } = {},
): () => Promise<void> {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const schedule = (delayMs: number) => {
    if (stopping.signal.aborted) return;
    timer = setTimeout(run, delayMs);
    timer.unref();
  };
  const run = () => {
    const started = Date.now();
    // The page views an older release left in page_views move to page_view_rows first, each
    // project's newest days first: in the first run after the upgrade, and after any instance of
    // the older release still running wrote more.
    running = moveLegacyPageViews(db.kysely, db.dialect, {
      signal: stopping.signal,
      batchSize: db.dialect === 'sqlite' ? 500 : 1000,
      pauseMs: db.dialect === 'sqlite' ? 10 : 0,
    })
      .then(
        (moved) => {
          if (moved > 0) log.info({ moved, ms: Date.now() - started }, 'page views moved to page_view_rows');
          return runCleanup(db, { retentionDays, signal: stopping.signal });
        },
        (error: unknown) => {
          // A run that failed there is counted as the cleanup's own failures are.
          if (!stopping.signal.aborted) recordRun(db, null);
          throw error;
        },
      )
      .then((deleted) => {
        const total = Object.values(deleted).reduce((sum, count) => sum + count, 0);
        if (total > 0)
          log.info({ deleted, retentionDays, ms: Date.now() - started }, 'analytics cleanup done');
      })
      .catch((error: unknown) => {
        if (!stopping.signal.aborted) log.error({ err: error, retentionDays }, 'analytics cleanup failed');
      })
      .finally(() => {
        running = null;
        schedule(Math.min(delayUntilNextRun(new Date()), timing.everyMs ?? everyMs));
      });
  };
  schedule(timing.firstAfterMs ?? firstAfterMs);
  // Stops between two batches; resolves once no statement of the cleanup is running.
  return async () => {
    stopping.abort();
    if (timer !== null) clearTimeout(timer);
    await running;
  };
}
