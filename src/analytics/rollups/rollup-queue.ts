// Rolls the queued tracking writes (migration 0009) up into the daily and insights rollups and the
// view counts, in large batches. A tracking write commits its raw page view and a queue entry; the
// rows it changes (about a dozen: view count, days, hours, breakdowns, reading, visitor sets) are
// summed here, shortly after by a timer, and before any read of them: every statistics read first
// rolls up what was queued before it started (`rollUpQueued`), so statistics stay exact while the
// write path stays short. A batch of entries, its rollup changes and the deletion of the entries
// are one transaction, so an entry is counted exactly once, even across a crash or several
// instances (PostgreSQL: one roller at a time, by an advisory lock).
import type { Db, DialectName } from '../../db/database.ts';
import type { Executor, PageViewTable } from '../../db/schema.ts';
import { writeRefusalMessage } from '../../db/database-errors.ts';
import { forgetClosedDays } from './closed-day-views.ts';
import { lastClosedDay, utcDay } from '../days.ts';
import { InsightChanges } from './insight-changes.ts';
import { KnownVisitors } from './known-visitors.ts';
import {
  deleteEntries,
  type FixedColumns,
  lockRollupsForTransaction,
  newestQueuedSeq,
  type QueuedEntry,
  queuedPageViews,
  queuedUpTo,
} from './queries/rollup-queue-entries.ts';
import { writeRollups } from './queries/write-rollups.ts';
import { RollupChanges } from './rollup-changes.ts';

/**
 * Entries rolled up in one transaction: large enough to share rollup rows and pages, short enough
 * not to keep the page-view writes waiting long for SQLite's one writer. On SQLite a commit writes
 * every page its batch touched to the WAL: 500 page views of random articles among 10,000 touch
 * nearly every page of the article rollups (about 3,000, 6.9 frames a page view), 2,000 share them
 * (3.5 frames): the roll-up thread's CPU fell from 120 to 94 µs a page view at 3,000 POST/s, while
 * a pass that long held the write lock for longer (tracking p99 45 → 89 ms at that rate). The
 * batch is summed on the task thread there; on PostgreSQL it is summed on the event loop, where a
 * longer batch would stall every request.
 */
const entriesPerTransaction = { sqlite: 2000, postgres: 500 } as const;
/**
 * How soon after a write the timer rolls it up (a read of statistics does so at once). Each roll-up
 * costs about as much again whatever its size: measured at 10 views a second, the task thread spent
 * 0.8 ms a view rolling up every 0.5 s and 0.45 ms every 2 s; a second keeps view counts within the
 * documented 3 s.
 */
export const defaultRollupDelayMs = 1000;
type Measures = Pick<
  PageViewTable,
  'time_on_page_ms' | 'scroll_depth_centi' | 'exit_position' | 'bounced' | 'event_count'
>;

/** One roller per database handle, so that the writer, the timer and the reads share passes. */
const rollers = new WeakMap<Db, Roller>();

function rollerOf(db: Db): Roller {
  let roller = rollers.get(db);
  if (roller === undefined) {
    roller = new Roller(db);
    rollers.set(db, roller);
  }
  return roller;
}

/**
 * Rolls up every entry queued before the call (by any instance). Resolves with the number of
 * entries rolled up by the pass that covered the call.
 */
export function rollUpQueued(db: Db): Promise<number> {
  return rollerOf(db).rollUp();
}

/**
 * What a read of rollups calls first. A database that refuses writes (read-only, full disk) still
 * serves the rollups as they are: statistics then miss the writes of the last moments only.
 */
export async function rollUpBeforeReading(db: Db): Promise<void> {
  try {
    await rollUpQueued(db);
  } catch (error) {
    if (writeRefusalMessage(error) === null) throw error;
  }
}

/**
 * Calls `listener` with each article whose view count a roll-up of this handle committed (the
 * answer cache refreshes the answers that show it). Returns the function that stops it.
 */
export function onRolledUpViews(db: Db, listener: ViewsListener): () => void {
  return rollerOf(db).listen(listener);
}

/** Asks for a roll-up `delayMs` from now, or sooner if another asked for that (one timer). */
export function scheduleRollUp(db: Db, delayMs: number): void {
  rollerOf(db).schedule(delayMs);
}

type ViewsListener = (projectId: string, slug: string) => void;

class Roller {
  /** The visitor-set entries this handle's roll-ups stored (known-visitors.ts). */
  readonly known = new KnownVisitors();
  readonly #db: Db;
  readonly #listeners = new Set<ViewsListener>();
  #running: Promise<number> | null = null;
  #next: Promise<number> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #due = 0;
  /** A pass committed views whose notifications nobody has waited for yet (#heard). */
  #unheard = false;
  #hearing: Promise<void> | null = null;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * A pass for a caller: on PostgreSQL, it resolves once the notifications of what it committed,
   * which carry the new view counts, were heard here, so that a read after it finds the counts
   * without reading them.
   */
  async rollUp(): Promise<number> {
    const rolled = await this.#pass();
    await this.#heard();
    return rolled;
  }

  #pass(): Promise<number> {
    // A pass already running may have read the queue before the caller's writes committed: the
    // caller waits for the next pass, which every caller arriving meanwhile shares.
    if (this.#next !== null) return this.#next;
    if (this.#running === null) return this.#start();
    this.#next = this.#running
      .catch(() => 0)
      .then(() => {
        this.#next = null;
        return this.#start();
      });
    return this.#next;
  }

  schedule(delayMs: number): void {
    // One timer, due at the earliest time asked for.
    const due = Date.now() + delayMs;
    if (this.#timer !== null) {
      if (this.#due <= due) return;
      clearTimeout(this.#timer);
    }
    this.#due = due;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      // A failure leaves the entries queued: the next write's timer or the next read retries.
      // Nobody waits for this pass: it does not wait for its notifications either (#heard). Until
      // they come, a read shows the count last notified (or reads it), as view counts' lag allows.
      this.#pass().catch(() => {});
    }, delayMs);
    // Queued entries survive the process; a pending roll-up must not keep it alive.
    this.#timer.unref();
  }

  /**
   * PostgreSQL: resolves once the notifications of every pass that committed views so far were
   * heard here (one round trip for all of them). A lost connection is the listener's to report;
   * the passes committed all the same.
   */
  #heard(): Promise<void> {
    if (this.#unheard && this.#db.hearsChanges() === true) {
      this.#unheard = false;
      this.#hearing = this.#db.changesSeen().catch(() => {});
    }
    return this.#hearing ?? Promise.resolve();
  }

  listen(listener: ViewsListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #start(): Promise<number> {
    // Here, on this handle, even when the pass ran in the worker thread with a handle of its own.
    const committed = ({ viewed, closedDayProjects }: Committed) => {
      for (const projectId of closedDayProjects) forgetClosedDays(this.#db, projectId);
      // Committed, even should a later batch of the pass fail: a caller waits to hear it (#heard).
      if (viewed.length > 0) this.#unheard = true;
      for (const { projectId, slug } of viewed)
        for (const listener of this.#listeners) listener(projectId, slug);
    };
    // SQLite: in the worker thread of the database (another core), where there is one.
    const run =
      this.#db.runTask === null
        ? rollUpAll(this.#db, committed)
        : this.#db.runTask(rollupTask, null).then((result) => {
            const { rolled, ...changed } = result as RollupResult;
            committed(changed);
            return rolled;
          });
    const pass = run.finally(() => {
      if (this.#running === pass) this.#running = null;
    });
    this.#running = pass;
    return pass;
  }
}

export interface Viewed {
  projectId: string;
  slug: string;
}

/**
 * What committed batches changed: the articles whose view count grew, and the projects with page
 * views of a closed day summed (their closed-day sums are out of date).
 */
export interface Committed {
  viewed: Viewed[];
  closedDayProjects: string[];
}

/** What a pass rolled up: its entries, and what its batches changed. */
export interface RollupResult extends Committed {
  rolled: number;
}

const rollupTask = new URL('./rollup-task.ts', import.meta.url);

/** One pass: every entry queued when it starts, a transaction per batch; `committed` after each. */
export async function rollUpAll(db: Db, committed: (batch: Committed) => void): Promise<number> {
  // The newest entry committed now: later ones are for the passes after this one.
  const upTo = await newestQueuedSeq(db.kysely);
  if (upTo === null) return 0;
  const limit = entriesPerTransaction[db.dialect];
  let total = 0;
  for (;;) {
    const known = rollerOf(db).known.at(utcDay(Date.now()));
    const batch =
      db.dialect === 'postgres' ? await lockedBatch(db, upTo, known) : await sqliteBatch(db, upTo, known);
    if (batch === null) return total;
    known.learn(batch.stored);
    committed({ viewed: batch.viewed, closedDayProjects: batch.closedDayProjects });
    total += batch.entries;
    if (batch.entries < limit) return total;
  }
}

interface Batch extends Committed {
  entries: number;
  /** The visitor-set entries it stored or found (KnownVisitors). */
  stored: string[];
}

/**
 * PostgreSQL: the batch is read, summed and written under the roll-up lock, taken first, so that
 * one instance of a fleet does each batch while the others wait for the lock (without work) and
 * then find its entries gone, rather than all of them reading and summing the same entries for all
 * but one to roll back. Summing on the event loop keeps a 500-entry batch short.
 */
async function lockedBatch(db: Db, upTo: number, known: KnownVisitors): Promise<Batch | null> {
  return db.kysely.transaction().execute(async (trx) => {
    await lockRollupsForTransaction(trx);
    // Read committed: this statement sees every roll-up committed before the lock was granted.
    const entries = await queuedUpTo(trx, upTo, entriesPerTransaction.postgres);
    if (entries.length === 0) return null;
    const changes = await changesOf(trx, 'postgres', entries);
    // Only a holder of the lock deletes entries: a difference is a bug, never to be committed.
    if ((await deleteEntries(trx, entries)) !== entries.length)
      throw new Error('queued entries vanished under the roll-up lock');
    const stored = await writeRollups(trx, changes.daily, changes.insights, { known });
    return {
      entries: entries.length,
      viewed: changes.viewed,
      closedDayProjects: changes.closedDayProjects,
      stored,
    };
  });
}

/**
 * SQLite: read and summed before the transaction, so that the write lock (the one writer, which
 * every tracking write waits for) is held for the writes alone. The entries are deleted first in
 * it: should another roller have taken any meanwhile (another process, a rebuild), the batch is
 * rolled back and read again. The count tells so because an entry's number is never given again
 * (migration 0034): a later entry cannot stand in for one taken.
 */
async function sqliteBatch(db: Db, upTo: number, known: KnownVisitors): Promise<Batch | null> {
  for (;;) {
    const entries = await queuedUpTo(db.kysely, upTo, entriesPerTransaction.sqlite);
    if (entries.length === 0) return null;
    const changes = await changesOf(db.kysely, 'sqlite', entries);
    const stored = await db.kysely
      .transaction()
      .execute(async (trx) => {
        if ((await deleteEntries(trx, entries)) !== entries.length) throw new EntriesTaken();
        return writeRollups(trx, changes.daily, changes.insights, { known });
      })
      .catch((error: unknown) => {
        if (error instanceof EntriesTaken) return null;
        throw error;
      });
    if (stored !== null)
      return {
        entries: entries.length,
        viewed: changes.viewed,
        closedDayProjects: changes.closedDayProjects,
        stored,
      };
  }
}

class EntriesTaken extends Error {}

/** The changes `entries` make to the rollups and view counts, and the articles whose count grows. */
async function changesOf(db: Executor, dialect: DialectName, entries: QueuedEntry[]) {
  const views = await queuedPageViews(db, dialect, entries);
  const viewed = new Map<string, Viewed>();
  const closedDayProjects = new Set<string>();
  const daily = new RollupChanges();
  const insights = new InsightChanges();
  const closedEnd = lastClosedDay(utcDay(Date.now()));
  for (const entry of entries) {
    // A page view deleted since (its article's project removed, retention) counts nowhere.
    const view = views.get(entry.page_view_id);
    if (view === undefined) continue;
    // A test key's page view (and each of its updates) counts in no rollup and no view count: the
    // reports that are asked to include test views sum them from the raw rows (reports/test-views.ts).
    if (view.test === 1) continue;
    const after = viewWith(view, {
      time_on_page_ms: Number(entry.time_on_page_ms),
      scroll_depth_centi: entry.scroll_depth_centi,
      exit_position: entry.exit_position,
      bounced: entry.bounced,
      event_count: entry.event_count,
    });
    if (entry.created === 1) {
      daily.addCreated(after);
      // The count of an article removed since goes with it (its views still count in the totals).
      if (view.slug !== null) {
        daily.addView(view);
        viewed.set(view.article_id, { projectId: view.project_id, slug: view.slug });
      }
      insights.addCreated(after);
      if (view.day <= closedEnd) closedDayProjects.add(view.project_id);
      continue;
    }
    const before = viewWith(view, {
      time_on_page_ms: Number(entry.was_time_on_page_ms),
      scroll_depth_centi: entry.was_scroll_depth_centi ?? 0,
      exit_position: entry.was_exit_position,
      bounced: entry.was_bounced,
      event_count: entry.was_event_count ?? 0,
    });
    daily.addUpdate(before, after);
    insights.addUpdate(before, after);
  }
  return { daily, insights, viewed: [...viewed.values()], closedDayProjects: [...closedDayProjects] };
}

/** The page view as a write left it: its measures then, and the events it held then (events are
 * only ever appended, so those are the first `event_count` of the stored ones). */
function viewWith(view: FixedColumns, measures: Measures) {
  const events =
    measures.event_count === view.event_count
      ? view.events
      : JSON.stringify((JSON.parse(view.events) as unknown[]).slice(0, measures.event_count));
  return { ...view, ...measures, events };
}
