// Group commit of page-view writes. Requests queue their write and wait; one transaction at a time
// applies every write queued meanwhile and commits, then each request is answered. So an answered
// POST or PUT is committed (durable), while a busy server commits hundreds of writes at once, and the
// view counts touched by a batch are updated once per batch. Each write also queues an entry for the
// rollups, which rollup-queue.ts sums shortly after, in larger batches still.
import { channel } from 'node:diagnostics_channel';
import type { Db } from '../../db/database.ts';
import { StringIdCache, type StringIdLookup } from '../../db/page-view-strings.ts';
import type { PageViewTable } from '../../db/schema.ts';
import { ConflictError, type HttpError, NotFoundError, ValidationError } from '../../errors.ts';
import { databaseUnavailableMessage } from '../../db/database-errors.ts';
import { postgresStore } from './queries/write-postgres.ts';
import { sqliteStore } from './queries/write-sqlite.ts';
import {
  type Executor,
  inTransaction,
  type PageViewUpdate,
  type SoleUpdate,
  type StoredPageView,
  type WriteStore,
} from './queries/write-store.ts';
import { defaultRollupDelayMs, rollUpQueued, scheduleRollUp } from '../rollups/rollup-queue.ts';
import { forgetClosedDays } from '../rollups/closed-day-views.ts';
import { lastClosedDay, utcDay } from '../days.ts';
import { dayOfPageViewId } from '../page-view-ids.ts';

export const maxStoredEvents = 1000;
export const updateWindowMs = 24 * 60 * 60 * 1000;
const maxBatchSize = 256;
const maxRetries = 3;

export interface TrackEvent {
  type: string;
  element?: string;
  timeOffset: number;
}

export interface PageViewPatch {
  timeOnPageMs?: number;
  scrollDepthCenti?: number;
  exitPosition?: number;
  bounced?: boolean;
  events?: TrackEvent[];
}

export type WriteJob =
  /** `row.article_id` is found by the batch from `slug`; a missing article refuses the job. */
  | { kind: 'create'; row: PageViewTable; slug: string }
  | { kind: 'update'; projectId: string; id: string; patch: PageViewPatch; now: string };

/** Published on `batchChannelName` after each batch (the metrics subscribe). */
export interface BatchEvent {
  db: Db;
  size: number;
  seconds: number;
  committed: boolean;
}

export const batchChannelName = 'folio:page-view-batch';
const batchChannel = channel(batchChannelName);

interface QueuedJob {
  job: WriteJob;
  resolve(): void;
  reject(error: unknown): void;
}

export class PageViewWriter {
  readonly #db: Db;
  readonly #store: WriteStore;
  #queue: QueuedJob[] = [];
  /** Batches that may commit at once: PostgreSQL pipelines them over its pool; SQLite has one connection. */
  readonly #lanes: number;
  readonly #loops = new Set<Promise<void>>();
  #starting = false;
  #commits = 0;
  readonly #rollupDelayMs: number;
  readonly #strings = new StringIdCache();

  /** `rollupDelayMs`: how soon after a commit its writes are rolled up (rollup-queue.ts). */
  constructor(db: Db, options: { rollupDelayMs?: number } = {}) {
    this.#db = db;
    this.#rollupDelayMs = options.rollupDelayMs ?? defaultRollupDelayMs;
    this.#store = db.dialect === 'postgres' ? postgresStore : sqliteStore;
    // Measured on PostgreSQL: while one batch waits for its commit (the WAL flush), the next one is
    // already being written, instead of queueing behind it.
    this.#lanes = db.dialect === 'postgres' ? 3 : 1;
  }

  /** Resolves once the write is committed; rejects with the HttpError of a refused write. */
  write(job: WriteJob): Promise<void> {
    // The API creates page views now; a past day's (tests, tools) must not be hidden by the cache,
    // even should the pass that rolls it up fail after committing it in the worker thread.
    if (job.kind === 'create' && job.row.day <= lastClosedDay(utcDay(Date.now()))) {
      forgetClosedDays(this.#db, job.row.project_id);
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, resolve, reject });
      this.#kick();
    });
  }

  #kick(): void {
    if (this.#starting || this.#loops.size >= this.#lanes) return;
    this.#starting = true;
    // Wait for the end of this turn of the event loop, so that every request read meanwhile joins.
    const loop: Promise<void> = new Promise<void>((done) => setImmediate(done))
      .then(() => {
        this.#starting = false;
        return this.#drain();
      })
      .finally(() => {
        this.#loops.delete(loop);
        if (this.#queue.length > 0) this.#kick();
      });
    this.#loops.add(loop);
  }

  /** Transactions committed so far (tests check that concurrent writes share them). */
  get commits(): number {
    return this.#commits;
  }

  /** Resolves when every queued write has been committed or refused, and rolled up. */
  async idle(): Promise<void> {
    await this.#settled();
    await rollUpQueued(this.#db);
  }

  /**
   * At shutdown: waits for the queued writes and rolls up, if this writer committed any (an
   * instance that wrote nothing leaves the database alone, so that a failed start ends at once).
   */
  async close(): Promise<void> {
    await this.#settled();
    if (this.#commits > 0) await rollUpQueued(this.#db);
  }

  /** Every queued write committed or refused. */
  async #settled(): Promise<void> {
    while (this.#loops.size > 0) await Promise.all(this.#loops);
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, maxBatchSize);
      await this.#commit(batch);
    }
  }

  async #commit(batch: QueuedJob[]): Promise<void> {
    const started = performance.now();
    const committed = await this.#apply(batch);
    if (batchChannel.hasSubscribers) {
      const event: BatchEvent = {
        db: this.#db,
        size: batch.length,
        seconds: (performance.now() - started) / 1000,
        committed,
      };
      batchChannel.publish(event);
    }
  }

  /** Applies and commits a batch, then settles its jobs; whether it committed. */
  async #apply(batch: QueuedJob[]): Promise<boolean> {
    let outcomes: Array<HttpError | null>;
    for (let attempt = 1; ; attempt++) {
      try {
        const jobs = batch.map((queued) => queued.job);
        const store = this.#store;
        const oneStatement = store.createsInOneStatement && jobs.every((job) => job.kind === 'create');
        const updates = store.updateAlone === undefined ? null : soleUpdates(jobs);
        // A rollback undoes the stamps of the strings read: their ids are kept once committed.
        const strings = this.#strings.deferred();
        outcomes = await this.#db.kysely
          .connection()
          .execute((connection) =>
            updates !== null
              ? applySoleUpdates(connection, store, updates)
              : oneStatement
                ? applyBatch(connection, store, jobs, strings)
                : inTransaction(connection, store.begin, () => applyBatch(connection, store, jobs, strings)),
          );
        strings.commit();
        this.#commits++;
        scheduleRollUp(this.#db, this.#rollupDelayMs);
        break;
      } catch (error) {
        if (isRetryable(error) && attempt < maxRetries) continue;
        // A database that cannot be reached refuses every write alike: retrying them one by one
        // would keep each request waiting a timeout per write of the batch.
        if (batch.length > 1 && databaseUnavailableMessage(error) === null) {
          // One write that the database refuses must not take the others down with it.
          for (const queued of batch) await this.#commit([queued]);
        } else {
          for (const queued of batch) queued.reject(error);
        }
        return false;
      }
    }
    batch.forEach((queued, index) => {
      const refusal = outcomes[index];
      if (refusal === null) queued.resolve();
      else queued.reject(refusal);
    });
    return true;
  }
}

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  // PostgreSQL: deadlock detected, serialization failure (two instances updating the same rows).
  return code === '40P01' || code === '40001';
}

const missing = (id: string) => new NotFoundError(`Page view '${id}' not found`);
const expired = (id: string) =>
  new ConflictError(`Page view '${id}' is older than 24 hours and can no longer be updated`);
const tooManyEvents = (stored: number, added: number) =>
  new ValidationError([
    {
      field: 'events',
      message: `a page view keeps at most ${maxStoredEvents} events; it holds ${stored} and ${added} were sent`,
    },
  ]);

/** A batch of updates alone, each of another page view, as the store's one statement takes them; else null. */
function soleUpdates(jobs: WriteJob[]): SoleUpdate[] | null {
  const updates: SoleUpdate[] = [];
  const ids = new Set<string>();
  for (const job of jobs) {
    if (job.kind !== 'update' || ids.has(job.id)) return null;
    ids.add(job.id);
    const { patch } = job;
    const events = patch.events ?? [];
    updates.push({
      projectId: job.projectId,
      id: job.id,
      day: dayOfPageViewId(job.id),
      now: job.now,
      oldest: new Date(Date.parse(job.now) - updateWindowMs).toISOString(),
      timeOnPageMs: patch.timeOnPageMs ?? null,
      scrollDepthCenti: patch.scrollDepthCenti ?? null,
      exitPosition: patch.exitPosition ?? null,
      bounced: patch.bounced === undefined ? null : patch.bounced ? 1 : 0,
      events: JSON.stringify(events),
      added: events.length,
    });
  }
  return updates;
}

/** Applies a batch of sole updates by the store's one statement; the refusal of each, or null. */
async function applySoleUpdates(
  db: Executor,
  store: WriteStore,
  updates: SoleUpdate[],
): Promise<Array<HttpError | null>> {
  const outcomes = await store.updateAlone!(db, updates, maxStoredEvents);
  return outcomes.map((result, index) => {
    const { id, added } = updates[index];
    if (result.outcome === 'updated') return null;
    if (result.outcome === 'missing') return missing(id);
    if (result.outcome === 'expired') return expired(id);
    return tooManyEvents(result.eventCount, added);
  });
}

/** The page view after an update: larger time and depth kept, exit and bounce replaced, events appended. */
export function applyPatch(
  current: StoredPageView,
  patch: PageViewPatch,
  now: string,
): StoredPageView | HttpError {
  const added = patch.events ?? [];
  if (current.event_count + added.length > maxStoredEvents)
    return tooManyEvents(current.event_count, added.length);
  return {
    ...current,
    updated_at: now,
    time_on_page_ms: Math.max(current.time_on_page_ms, patch.timeOnPageMs ?? 0),
    scroll_depth_centi: Math.max(current.scroll_depth_centi, patch.scrollDepthCenti ?? 0),
    exit_position: patch.exitPosition ?? current.exit_position,
    bounced: patch.bounced === undefined ? current.bounced : patch.bounced ? 1 : 0,
    event_count: current.event_count + added.length,
    events: appendEvents(current.events, added),
  };
}

export function appendEvents(stored: string, added: TrackEvent[]): string {
  if (added.length === 0) return stored;
  const json = JSON.stringify(added);
  return stored === '[]' ? json : `${stored.slice(0, -1)},${json.slice(1)}`;
}

/**
 * Applies the jobs of a batch (inside its transaction, or as its one statement): the updates in the
 * order sent, then the new page views. Returns the refusal of each job, or null.
 */
export async function applyBatch(
  db: Executor,
  store: WriteStore,
  jobs: WriteJob[],
  strings: StringIdLookup,
): Promise<Array<HttpError | null>> {
  const updateJobs = jobs.flatMap((job) => (job.kind === 'update' ? [job] : []));
  const keys = {
    projectIds: [...new Set(updateJobs.map((job) => job.projectId))].sort(),
    days: [...new Set(updateJobs.map((job) => dayOfPageViewId(job.id)))].sort(),
    ids: [...new Set(updateJobs.map((job) => job.id))].sort(),
  };
  const original = new Map((await store.lockPageViews(db, keys)).map((row) => [row.id, row]));
  const current = new Map(original);
  const outcomes = jobs.map((job): HttpError | null => {
    if (job.kind === 'create') return null;
    const stored = current.get(job.id);
    // A page view of another project behaves exactly as one that does not exist.
    if (stored === undefined || stored.project_id !== job.projectId) return missing(job.id);
    if (Date.parse(stored.created_at) < Date.parse(job.now) - updateWindowMs) return expired(job.id);
    const updated = applyPatch(stored, job.patch, job.now);
    if (updated instanceof Error) return updated;
    current.set(job.id, updated);
    return null;
  });

  const updates: PageViewUpdate[] = [];
  for (const [id, after] of current) {
    const before = original.get(id)!;
    if (after !== before) updates.push({ before, after });
  }
  await store.updatePageViews(db, updates);

  const created = jobs.flatMap((job) => (job.kind === 'create' ? [{ row: job.row, slug: job.slug }] : []));
  const inserted = await store.insertPageViews(db, created, strings);
  return jobs.map((job, index) =>
    job.kind === 'create' && !inserted.has(job.row.id)
      ? new NotFoundError(`Article '${job.slug}' not found`)
      : outcomes[index],
  );
}
