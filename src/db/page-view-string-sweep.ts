// Deletes the strings of page views (page_view_strings) that no page view names any more: those of
// page views past the retention, and those of a deleted project's. A writer may name a string by an
// id it read up to cacheLifeMs before (page-view-strings.ts), and stamps `used_at` at each read, so
// only strings unstamped for sweepGraceMs go: none of them can be named by a view being written.
// Batches of one short statement each, never in a transaction; two instances sweeping at once
// delete each string once, the other finding it gone.
import { storedBytesSql } from './page-view-sql.ts';
import { type CompiledQuery, sql } from 'kysely';
import type { Db } from './database.ts';
import { stringIdColumns, sweepGraceMs } from './page-view-strings.ts';
import type { Executor } from './schema.ts';
import { projectNumSql } from './id-numbers.ts';

/**
 * Strings per batch. SQLite, whose statements run on the event loop: 500 (measured in
 * bench/README.md); PostgreSQL: 2,000. Page views read per batch of the walk for a deleted project:
 * read off the event loop on either.
 */
const defaultBatchSize = { sqlite: 500, postgres: 2000 } as const;
const defaultWalkSize = { sqlite: 5000, postgres: 20_000 } as const;

/**
 * A string stamped this long after a project's deletion may still be one of its own (a view of it
 * that was being written as it went); the walk serving the deletion takes those too.
 */
const lateWriteMs = 60 * 1000;

export interface StringSweepOptions {
  /** The time the sweep runs at (tests move it). */
  now?: Date;
  batchSize?: number;
  /** Page views read per statement by the walk for a deleted project. */
  walkSize?: number;
  /** Ends the sweep between two batches. */
  signal?: AbortSignal;
  /** Told of each batch that deleted strings, with its duration. */
  onBatch?: (deleted: number, ms: number) => void | Promise<void>;
}

function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/**
 * Deletes the strings unstamped since before `firstRetainedDay`, less the grace: every page view
 * naming one was written before that day began, and the retention has deleted it.
 */
export async function sweepExpiredStrings(
  db: Db,
  firstRetainedDay: string,
  options: StringSweepOptions = {},
): Promise<number> {
  const now = (options.now ?? new Date()).getTime();
  const before = Math.min(Date.parse(`${firstRetainedDay}T00:00:00Z`), now) - sweepGraceMs;
  let deleted = 0;
  const limit = options.batchSize ?? defaultBatchSize[db.dialect];
  let after: { usedAt: number; id: number } | null = null;
  for (;;) {
    options.signal?.throwIfAborted();
    const started = performance.now();
    const start = after === null ? sql`` : sql`and (used_at, id) > (${after.usedAt}, ${after.id})`;
    const { rows } = await sql<{ id: number; used_at: number }>`select id, used_at from page_view_strings
      where used_at < ${seconds(before)} ${start} order by used_at, id limit ${limit}`.execute(db.kysely);
    if (rows.length === 0) return deleted;
    const last: { id: number; used_at: number } = rows[rows.length - 1];
    after = { usedAt: Number(last.used_at), id: Number(last.id) };
    const gone = await deleteUnstamped(
      db,
      rows.map((row) => Number(row.id)),
      seconds(before),
    );
    deleted += gone;
    if (gone > 0) await options.onBatch?.(gone, performance.now() - started);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Deletes the strings of `ids` still unstamped since `before` (Unix seconds). The stamp is checked
 * again by the delete itself: a writer that stamped one since it was chosen (on PostgreSQL, even at
 * the same moment) keeps it. A deleted id is never given again (migration 0023).
 *
 * On PostgreSQL the delete takes only strings no other transaction holds (`for update skip
 * locked`): a writer stamps its strings in hash order and the sweep would take them in id order, so
 * waiting for each other's rows could end in a deadlock that fails the writer's batch of page views.
 * A string a writer holds is being stamped, and stays; another sweep's is deleted by that sweep.
 */
async function deleteUnstamped(db: Db, ids: number[], before: number): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db.kysely
    .deleteFrom('page_view_strings')
    .where('id', 'in', (eb) => {
      const unstamped = eb
        .selectFrom('page_view_strings')
        .select('id')
        .where('id', 'in', ids)
        .where('used_at', '<', before);
      return db.dialect === 'postgres' ? unstamped.forUpdate().skipLocked() : unstamped;
    })
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Records that a project's page views were deleted now: their strings are swept once unstamped. */
export async function requestStringSweep(executor: Executor, now = new Date()): Promise<void> {
  await executor
    .insertInto('page_view_string_sweeps')
    .values({ requested_at: seconds(now.getTime()) })
    .execute();
}

/**
 * Serves the requests of deleted projects whose strings are past the grace: deletes every string
 * unstamped for the grace that no page view names, found by reading every page view. Returns how
 * many went, or null when no request was due.
 */
export async function sweepDeletedProjectStrings(
  db: Db,
  options: StringSweepOptions = {},
): Promise<number | null> {
  const now = (options.now ?? new Date()).getTime();
  const before = seconds(now - sweepGraceMs);
  const servedUpTo = seconds(now - sweepGraceMs - lateWriteMs);
  const due = await db.kysely
    .selectFrom('page_view_string_sweeps')
    .select('requested_at')
    .where('requested_at', '<=', servedUpTo)
    .limit(1)
    .executeTakeFirst();
  if (due === undefined) return null;
  const deleted = await sweepUnnamedStrings(db, before, options);
  await db.kysely.deleteFrom('page_view_string_sweeps').where('requested_at', '<=', servedUpTo).execute();
  return deleted;
}

/**
 * Deletes the strings unstamped since `before` (Unix seconds, at least the grace ago) that no page
 * view names. A view naming one was written before `before` plus a cache's life, before the walk
 * began: the walk sees it.
 */
export async function sweepUnnamedStrings(
  db: Db,
  before: number,
  options: StringSweepOptions = {},
): Promise<number> {
  const top = await db.kysely
    .selectFrom('page_view_strings')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  if (top?.id == null) return 0;
  const named = await namedStrings(db, Number(top.id), options);
  const limit = options.batchSize ?? defaultBatchSize[db.dialect];
  let deleted = 0;
  for (let after = 0; ;) {
    options.signal?.throwIfAborted();
    const started = performance.now();
    const rows = await db.kysely
      .selectFrom('page_view_strings')
      .select('id')
      .where('id', '>', after)
      .where('used_at', '<', before)
      .orderBy('id')
      .limit(limit)
      .execute();
    if (rows.length === 0) return deleted;
    after = Number(rows[rows.length - 1].id);
    const unnamed = rows.map((row) => Number(row.id)).filter((id) => id <= named.top && !named.has(id));
    const gone = await deleteUnstamped(db, unnamed, before);
    deleted += gone;
    if (gone > 0) await options.onBatch?.(gone, performance.now() - started);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

type WalkedView = Record<string, number | null> & { day: string; id: string };
type WalkedRow = Record<string, number | null> & { day: string; created_ms: number; rid: unknown };

/** The ids up to `top` that a page view names: a bit each, from a walk of every page view. */
async function namedStrings(db: Db, top: number, options: StringSweepOptions) {
  const bits = new Uint8Array((top >> 3) + 1);
  const limit = options.walkSize ?? defaultWalkSize[db.dialect];
  const columns = stringIdColumns.join(', ');
  const projects = await db.kysely.selectFrom('projects').select('id').orderBy('id').execute();
  const mark = (rows: ReadonlyArray<Record<string, unknown>>) => {
    for (const row of rows) {
      for (const column of stringIdColumns) {
        const value = row[column];
        if (typeof value === 'number' && value <= top) bits[value >> 3] |= 1 << (value & 7);
      }
    }
  };
  const postgres = db.dialect === 'postgres';
  for (const { id: projectId } of projects) {
    // page_view_rows, in its key's order.
    let next: { day: string; createdMs: number; rid: unknown } | null = null;
    for (;;) {
      options.signal?.throwIfAborted();
      const start =
        next === null
          ? sql``
          : sql`and (day, created_ms, rid) > (${next.day}, ${next.createdMs}, ${storedBytesSql(
              postgres,
              next.rid,
            )})`;
      const query: CompiledQuery<WalkedRow> = sql<WalkedRow>`
        select cast(day as text) as day, created_ms, rid, ${sql.raw(columns)} from page_view_rows
        where project_num = ${projectNumSql(projectId)} ${start}
        order by day, created_ms, rid limit ${limit}`.compile(db.kysely);
      // Off the event loop on SQLite (a read worker): the walk reads every page view.
      const rows = await db.readOffThread(query);
      mark(rows);
      if (rows.length < limit) break;
      const last: WalkedRow = rows[rows.length - 1];
      next = {
        day: last.day,
        createdMs: Number(last.created_ms),
        rid: last.rid,
      };
    }
    // Those an older release left in page_views.
    let after: { day: string; id: string } | null = null;
    for (;;) {
      options.signal?.throwIfAborted();
      const start = after === null ? sql`` : sql`and (day, id) > (${after.day}, ${after.id})`;
      const query: CompiledQuery<WalkedView> = sql<WalkedView>`
        select day, id, ${sql.raw(columns)} from page_views
        where project_id = ${projectId} ${start} order by day, id limit ${limit}`.compile(db.kysely);
      const rows = await db.readOffThread(query);
      mark(rows);
      if (rows.length < limit) break;
      const last: WalkedView = rows[rows.length - 1];
      after = { day: last.day, id: last.id };
    }
  }
  return { top, has: (id: number) => (bits[id >> 3] & (1 << (id & 7))) !== 0 };
}
