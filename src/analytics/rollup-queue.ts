// Rolls the queued tracking writes (migration 0009) up into the daily and insights rollups and the
// view counts, in large batches. A tracking write commits its raw page view and a queue entry; the
// rows it changes (about a dozen: view count, days, hours, breakdowns, reading, visitor sets) are
// summed here, shortly after by a timer, and before any read of them: every statistics read first
// rolls up what was queued before it started (`rollUpQueued`), so statistics stay exact while the
// write path stays short. A batch of entries, its rollup changes and the deletion of the entries
// are one transaction, so an entry is counted exactly once, even across a crash or several
// instances (PostgreSQL: one roller at a time, by an advisory lock).
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Selectable } from 'kysely';
import type { PageViewTable, RollupQueueTable } from '../db/schema.ts';
import { writeRefusalMessage } from '../db/database-errors.ts';
import { breakdownColumns, InsightChanges } from './insight-changes.ts';
import type { Executor } from './queries/write-store.ts';
import { KnownVisitors, writeRollups } from './queries/write-rollups.ts';
import { RollupChanges } from './rollup-changes.ts';
import { closedDayViews } from './top-articles.ts';
import { lastClosedDay } from './days.ts';
import { utcDay } from './days.ts';

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
/** How soon after a write the timer rolls it up (a read of statistics does so at once). */
export const defaultRollupDelayMs = 500;
/** PostgreSQL advisory lock held by the roller (and the rebuild) for its transaction. */
export const rollupLockKey = 7_406_151;

/** The columns of a page view that its rollups depend on and no update changes. */
const fixedColumns = [
  'id',
  'article_id',
  'created_at',
  'source',
  'event_count',
  ...breakdownColumns,
] as const satisfies ReadonlyArray<keyof PageViewTable>;
type FixedColumns = Pick<PageViewTable, (typeof fixedColumns)[number]>;

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
 * Calls `listener` with each article whose view count a roll-up of this process committed (the
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
  /** The visitor-set entries this handle's roll-ups stored (write-rollups.ts). */
  readonly known = new KnownVisitors();
  readonly #db: Db;
  readonly #listeners = new Set<ViewsListener>();
  #running: Promise<number> | null = null;
  #next: Promise<number> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #due = 0;

  constructor(db: Db) {
    this.#db = db;
  }

  rollUp(): Promise<number> {
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
      this.rollUp().catch(() => {});
    }, delayMs);
    // Queued entries survive the process; a pending roll-up must not keep it alive.
    this.#timer.unref();
  }

  listen(listener: ViewsListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #start(): Promise<number> {
    const notify = (viewed: Viewed[]) => {
      for (const { projectId, slug } of viewed)
        for (const listener of this.#listeners) listener(projectId, slug);
    };
    // SQLite: in the worker thread of the database (another core), where there is one.
    const run =
      this.#db.runTask === null
        ? rollUpAll(this.#db, notify)
        : this.#db.runTask(rollupTask, null).then((result) => {
            const { rolled, viewed } = result as RollupResult;
            notify(viewed);
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

/** What a pass rolled up: its entries, and the articles whose view count grew. */
export interface RollupResult {
  rolled: number;
  viewed: Viewed[];
}

const rollupTask = new URL('./rollup-task.ts', import.meta.url);

/** One pass: every entry queued when it starts, a transaction per batch; `committed` after each. */
export async function rollUpAll(db: Db, committed: (viewed: Viewed[]) => void): Promise<number> {
  // The newest entry committed now: later ones are for the passes after this one.
  const newest = await db.kysely
    .selectFrom('rollup_queue')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  if (newest?.seq === null || newest?.seq === undefined) return 0;
  const upTo = Number(newest.seq);
  const limit = entriesPerTransaction[db.dialect];
  let total = 0;
  for (;;) {
    const known = rollerOf(db).known.at(utcDay(Date.now()));
    const batch =
      db.dialect === 'postgres' ? await lockedBatch(db, upTo, known) : await sqliteBatch(db, upTo, known);
    if (batch === null) return total;
    known.learn(batch.stored);
    committed(batch.viewed);
    total += batch.entries;
    if (batch.entries < limit) return total;
  }
}

interface Batch {
  entries: number;
  viewed: Viewed[];
  /** The visitor-set entries it stored or found (KnownVisitors). */
  stored: string[];
}

function queuedUpTo(db: Executor, upTo: number, limit: number) {
  return db
    .selectFrom('rollup_queue')
    .selectAll()
    .where('seq', '<=', upTo)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/**
 * PostgreSQL: the batch is read, summed and written under the roll-up lock, taken first, so that
 * one instance of a fleet does each batch while the others wait for the lock (without work) and
 * then find its entries gone, rather than all of them reading and summing the same entries for all
 * but one to roll back. Summing on the event loop keeps a 500-entry batch short.
 */
async function lockedBatch(db: Db, upTo: number, known: KnownVisitors): Promise<Batch | null> {
  return db.kysely.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${rollupLockKey})`.execute(trx);
    // Read committed: this statement sees every roll-up committed before the lock was granted.
    const entries = await queuedUpTo(trx, upTo, entriesPerTransaction.postgres);
    if (entries.length === 0) return null;
    const changes = await changesOf(trx, entries);
    // Only a holder of the lock deletes entries: a difference is a bug, never to be committed.
    if ((await deleteEntries(trx, entries)) !== entries.length)
      throw new Error('queued entries vanished under the roll-up lock');
    const stored = await writeRollups(trx, changes.daily, changes.insights, { known });
    return { entries: entries.length, viewed: changes.viewed, stored };
  });
}

/** Deletes the batch's entries from the queue; returns how many were still there. */
async function deleteEntries(
  trx: Executor,
  entries: ReadonlyArray<Selectable<RollupQueueTable>>,
): Promise<number> {
  const deleted = await trx
    .deleteFrom('rollup_queue')
    .where(
      'seq',
      'in',
      entries.map((entry) => entry.seq),
    )
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/**
 * SQLite: read and summed before the transaction, so that the write lock (the one writer, which
 * every tracking write waits for) is held for the writes alone. The entries are deleted first in
 * it: should another roller have taken any meanwhile (another process, a rebuild), the batch is
 * rolled back and read again.
 */
async function sqliteBatch(db: Db, upTo: number, known: KnownVisitors): Promise<Batch | null> {
  for (;;) {
    const entries = await queuedUpTo(db.kysely, upTo, entriesPerTransaction.sqlite);
    if (entries.length === 0) return null;
    const changes = await changesOf(db.kysely, entries);
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
    if (stored !== null) return { entries: entries.length, viewed: changes.viewed, stored };
  }
}

class EntriesTaken extends Error {}

/** The changes `entries` make to the rollups and view counts, and the articles whose count grows. */
async function changesOf(db: Executor, entries: Array<Selectable<RollupQueueTable>>) {
  const ids = [...new Set(entries.map((entry) => entry.page_view_id))];
  const views = new Map<string, FixedColumns & { slug: string | null }>();
  for (let start = 0; start < ids.length; start += 1000) {
    const rows = await db
      .selectFrom('page_views')
      .leftJoin('articles', 'articles.id', 'page_views.article_id')
      .select([...fixedColumns.map((column) => `page_views.${column}` as const), 'articles.slug'])
      .where('page_views.id', 'in', ids.slice(start, start + 1000))
      .execute();
    for (const row of rows) views.set(row.id, row);
  }
  const viewed = new Map<string, Viewed>();
  const daily = new RollupChanges();
  const insights = new InsightChanges();
  const closedEnd = lastClosedDay(utcDay(Date.now()));
  for (const entry of entries) {
    // A page view deleted since (its article's project removed, retention) counts nowhere.
    const view = views.get(entry.page_view_id);
    if (view === undefined) continue;
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
      if (view.day <= closedEnd) closedDayViews.forget(view.project_id);
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
  return { daily, insights, viewed: [...viewed.values()] };
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
