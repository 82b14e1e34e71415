// Group commit of page-view writes. Requests queue their write and wait; one transaction at a time
// applies every write queued meanwhile and commits, then each request is answered. So an answered
// POST or PUT is committed (durable), while a busy server commits hundreds of writes at once, and the
// rollup rows, view counts and content versions touched by a batch are updated once per batch.
import { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.ts';
import type { PageViewTable } from '../db/schema.ts';
import { ConflictError, type HttpError, NotFoundError, ValidationError } from '../http/errors.ts';
import { addContribution, type Contribution, contributionOf, emptyContribution, isZero } from './contribution.ts';
import {
  type ArticleRollup,
  type CountryRollup,
  type DayKey,
  type Executor,
  type StoredPageView,
  type VisitorKey,
  type WriteStore,
  writeStoreFor,
} from './queries/write-store.ts';

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
  | { kind: 'create'; row: PageViewTable }
  | { kind: 'update'; projectId: string; id: string; patch: PageViewPatch; now: string };

interface QueuedJob {
  job: WriteJob;
  resolve(): void;
  reject(error: unknown): void;
}

export class PageViewWriter {
  readonly #db: Db;
  readonly #store: WriteStore;
  #queue: QueuedJob[] = [];
  #draining: Promise<void> | null = null;

  constructor(db: Db) {
    this.#db = db;
    this.#store = writeStoreFor(db.dialect);
  }

  /** Resolves once the write is committed; rejects with the HttpError of an update refused. */
  write(job: WriteJob): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, resolve, reject });
      // Wait for the end of this turn of the event loop, so that every request read meanwhile joins.
      this.#draining ??= new Promise<void>((done) => setImmediate(done)).then(() => this.#drain());
    });
  }

  /** Resolves when every queued write has been committed or refused. */
  async idle(): Promise<void> {
    while (this.#draining !== null) await this.#draining;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, maxBatchSize);
        await this.#commit(batch);
      }
    } finally {
      this.#draining = null;
    }
  }

  async #commit(batch: QueuedJob[]): Promise<void> {
    let outcomes: Array<HttpError | null>;
    for (let attempt = 1; ; attempt++) {
      try {
        outcomes = await this.#db.kysely.connection().execute((connection) =>
          inTransaction(connection, this.#store.begin, () =>
            applyBatch(connection, this.#store, batch.map((queued) => queued.job)),
          ),
        );
        break;
      } catch (error) {
        if (isRetryable(error) && attempt < maxRetries) continue;
        if (batch.length > 1) {
          // One write that the database refuses must not take the others down with it.
          for (const queued of batch) await this.#commit([queued]);
        } else {
          batch[0].reject(error);
        }
        return;
      }
    }
    batch.forEach((queued, index) => {
      const refusal = outcomes[index];
      if (refusal === null) queued.resolve();
      else queued.reject(refusal);
    });
  }
}

async function inTransaction<T>(db: Executor, begin: string, work: () => Promise<T>): Promise<T> {
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

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  // PostgreSQL: deadlock detected, serialization failure (two instances updating the same rows).
  return code === '40P01' || code === '40001';
}

/** The page view after an update: larger time and depth kept, exit and bounce replaced, events appended. */
export function applyPatch(current: StoredPageView, patch: PageViewPatch, now: string): StoredPageView | HttpError {
  const added = patch.events ?? [];
  if (current.event_count + added.length > maxStoredEvents) {
    return new ValidationError([
      {
        field: 'events',
        message: `a page view keeps at most ${maxStoredEvents} events; it holds ${current.event_count} and ${added.length} were sent`,
      },
    ]);
  }
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

/** The changes of one batch to the rollups, view counts and content versions, summed per row. */
class BatchTotals {
  readonly articles = new Map<string, ArticleRollup>();
  readonly countries = new Map<string, CountryRollup>();
  readonly visitors = new Map<string, VisitorKey>();
  readonly newVisitors = new Map<string, DayKey & { visitors: number }>();
  readonly viewCounts = new Map<string, number>();
  readonly projects = new Set<string>();

  addArticle(projectId: string, day: string, articleId: string, change: Contribution, sign = 1): void {
    const key = `${projectId}\u0000${day}\u0000${articleId}`;
    let row = this.articles.get(key);
    if (row === undefined) {
      row = { project_id: projectId, day, article_id: articleId, ...emptyContribution() };
      this.articles.set(key, row);
    }
    addContribution(row, change, sign);
  }

  addCreated(row: PageViewTable): void {
    this.addArticle(row.project_id, row.day, row.article_id, contributionOf(row));
    if (row.country !== null) {
      const key = `${row.project_id}\u0000${row.day}\u0000${row.country}`;
      const country = this.countries.get(key);
      if (country) country.views++;
      else this.countries.set(key, { project_id: row.project_id, day: row.day, country: row.country, views: 1 });
    }
    this.visitors.set(`${row.project_id}\u0000${row.day}\u0000${row.visitor_id}`, {
      project_id: row.project_id,
      day: row.day,
      visitor_id: row.visitor_id,
    });
    this.viewCounts.set(row.article_id, (this.viewCounts.get(row.article_id) ?? 0) + 1);
    this.projects.add(row.project_id);
  }

  addNewVisitor(key: DayKey): void {
    const id = `${key.project_id}\u0000${key.day}`;
    const count = this.newVisitors.get(id);
    if (count) count.visitors++;
    else this.newVisitors.set(id, { project_id: key.project_id, day: key.day, visitors: 1 });
  }
}

/** Rows in key order, so that two instances lock shared rows in the same order (no deadlock). */
function sorted<T>(entries: Map<string, T>): T[] {
  return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);
}

/** Applies the jobs in order inside the open transaction; the refusal of each job, or null. */
export async function applyBatch(db: Executor, store: WriteStore, jobs: WriteJob[]): Promise<Array<HttpError | null>> {
  const updateIds = [...new Set(jobs.flatMap((job) => (job.kind === 'update' ? [job.id] : [])))].sort();
  const current = new Map((await store.lockPageViews(db, updateIds)).map((row) => [row.id, row]));
  const original = new Map(current);
  const totals = new BatchTotals();
  const created: PageViewTable[] = [];

  const outcomes = jobs.map((job): HttpError | null => {
    if (job.kind === 'create') {
      created.push(job.row);
      totals.addCreated(job.row);
      return null;
    }
    const stored = current.get(job.id);
    // A page view of another project behaves exactly as one that does not exist.
    if (stored === undefined || stored.project_id !== job.projectId) {
      return new NotFoundError(`Page view '${job.id}' not found`);
    }
    if (Date.parse(stored.created_at) < Date.parse(job.now) - updateWindowMs) {
      return new ConflictError(`Page view '${job.id}' is older than 24 hours and can no longer be updated`);
    }
    const updated = applyPatch(stored, job.patch, job.now);
    if (updated instanceof Error) return updated;
    current.set(job.id, updated);
    return null;
  });

  const changed: StoredPageView[] = [];
  for (const [id, row] of current) {
    const before = original.get(id)!;
    if (row === before) continue;
    changed.push(row);
    totals.addArticle(row.project_id, row.day, row.article_id, contributionOf(row));
    totals.addArticle(before.project_id, before.day, before.article_id, contributionOf(before), -1);
  }

  await store.insertPageViews(db, created);
  await store.updatePageViews(db, changed);
  for (const key of await store.insertVisitors(db, sorted(totals.visitors))) totals.addNewVisitor(key);
  await store.addVisitorCounts(db, sorted(totals.newVisitors));
  await store.addArticleRollups(
    db,
    sorted(totals.articles).filter((row) => !isZero(row)),
  );
  await store.addCountryRollups(db, sorted(totals.countries));
  await store.addViewCounts(
    db,
    [...totals.viewCounts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([article_id, views]) => ({ article_id, views })),
  );
  await store.bumpContentVersions(db, [...totals.projects].sort());
  return outcomes;
}
