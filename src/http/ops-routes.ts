// Probes for orchestrators and load balancers. /health: the process is alive and serving (no
// database call, so a hung database never makes it hang). /ready: the instance can do its work
// now; it fails only for what is its own (a shared database's or Redis's outage would otherwise
// take every instance out of the balancer at once) and tells the rest in its body. Neither needs
// a key nor counts against a rate limit.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { type BatchEvent, batchChannelName } from '../analytics/ingest/page-view-writer.ts';
import { type Db, DatabaseTimeoutError } from '../db/database.ts';
import { retryAfterSeconds } from '../errors.ts';
import { databaseUnavailableMessage } from '../db/database-errors.ts';
import type { RateLimitStore } from './rate-limit.ts';

/** How long ago a refused write still counts, unless a write committed since. */
const failureMemoryMs = 30_000;
const probeTimeoutMs = 1000;

/**
 * The last write the database refused for a reason that outlasts the request (disk full,
 * read-only, SQLite's write lock held by another process), so that /ready tells it without
 * writing itself. Forgotten once a page-view batch commits, or after 30 s.
 */
export class DatabaseFailures {
  #last: { message: string; at: number } | null = null;

  record(error: unknown): void {
    const message = databaseUnavailableMessage(error);
    if (message !== null && /disk space|read-only/.test(message)) this.#last = { message, at: Date.now() };
    else if (isSqliteBusy(error)) {
      this.#last = { message: 'The database is locked by another process', at: Date.now() };
    }
  }

  clear(): void {
    this.#last = null;
  }

  recent(now = Date.now()): string | null {
    return this.#last !== null && now - this.#last.at < failureMemoryMs ? this.#last.message : null;
  }
}

/** SQLITE_BUSY (the primary result code is the low byte), raw or as a DatabaseTimeoutError. */
function isSqliteBusy(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown })?.errcode;
  if (typeof errcode === 'number' && (errcode & 0xff) === 5) return true;
  return /locked by another process/.test(String((error as Error)?.message));
}

/** Null when the store answers within `ms`, else the reason. A store without ping is in memory. */
export async function pingWithin(store: RateLimitStore, ms: number): Promise<string | null> {
  if (store.ping === undefined) return null;
  return withTimeout(store.ping(), ms, () => new Error('Redis did not answer in time')).then(
    () => null,
    (error: Error) => `Redis cannot be reached (${error.message})`,
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

interface Check {
  /** Null when fine, else why (shown in /ready's body). */
  problem: string | null;
  /** Whether the problem is this instance's own (it fails /ready) or a shared dependency's. */
  local: boolean;
}

const fine: Check = { problem: null, local: false };

/**
 * The database's check. SQLite is a file of this instance: any problem is local. PostgreSQL is
 * shared by every instance: its outage, read-only or full disk is told but is not this instance's
 * fault, unless the instance's own pool is exhausted while the database itself answers.
 */
async function checkDatabase(db: Db, failures: DatabaseFailures): Promise<Check> {
  const local = db.dialect === 'sqlite';
  const health = db.health();
  if (!health.up) return { problem: health.reason, local: false };
  try {
    await withTimeout(
      readsNow(db),
      probeTimeoutMs,
      () => new DatabaseTimeoutError('the readiness probe got no answer within 1 s'),
    );
  } catch (error) {
    failures.record(error);
    const pool = db.poolState();
    if (pool !== null && error instanceof DatabaseTimeoutError && pool.idle === 0 && pool.total >= pool.max) {
      // Every connection is busy: this instance's own overload, unless the database is what hangs.
      const found = await db.checkHealth();
      if (!found.up) return { problem: found.reason, local: false };
      return {
        problem: `The connection pool is exhausted (${pool.total} connections busy, ${pool.waiting} requests waiting)`,
        local: true,
      };
    }
    return { problem: shortReason(databaseUnavailableMessage(error) ?? (error as Error).message), local };
  }
  const recent = failures.recent();
  return recent === null ? fine : { problem: shortReason(recent), local };
}

/**
 * Reads, and finds out whether writes would be refused, without writing (a probe every few
 * seconds must not take the write lock or invalidate every cached answer).
 */
async function readsNow(db: Db): Promise<void> {
  if (db.dialect === 'sqlite') {
    const { rows } = await sql<{ query_only: number }>`PRAGMA query_only`.execute(db.kysely);
    if (Number(rows[0]?.query_only) === 1) throw Object.assign(new Error('read-only'), { errcode: 8 });
    return;
  }
  const { rows } = await sql<{
    ro: string;
  }>`select current_setting('transaction_read_only') as ro`.execute(db.kysely);
  if (rows[0].ro === 'on') throw Object.assign(new Error('read-only'), { code: '25006' });
}

/** The 503 message without its advice (`; try again shortly`). */
function shortReason(message: string): string {
  return message.replace(/;.*$/, '');
}

/**
 * Redis, when the rate limits are kept there. Never local: while it cannot be reached the limits
 * are counted in this instance's memory, and the instance serves.
 */
async function checkRedis(store: RateLimitStore): Promise<Check> {
  const problem = await pingWithin(store, probeTimeoutMs);
  if (problem === null) return fine;
  return {
    problem: `${problem}; rate limits are counted in this instance's memory until it is back`,
    local: false,
  };
}

function forgetFailuresOnCommit(app: FastifyInstance, db: Db, failures: DatabaseFailures): void {
  const onBatch = (message: unknown) => {
    const event = message as BatchEvent;
    if (event.db === db && event.committed) failures.clear();
  };
  subscribe(batchChannelName, onBatch);
  app.addHook('onClose', async () => {
    unsubscribe(batchChannelName, onBatch);
  });
}

/** One log line each time the database goes down or comes back, never one per request. */
function logDatabaseChanges(app: FastifyInstance, db: Db): void {
  let downSince: number | null = null;
  const stop = db.onHealthChange((state) => {
    if (!state.up) {
      downSince = state.since;
      app.log.warn(
        { reason: state.reason, outages: state.outages },
        'database unreachable: requests that need it are answered 503 until it is back',
      );
      return;
    }
    const seconds = downSince === null ? null : (state.since - downSince) / 1000;
    downSince = null;
    app.log.info({ outageSeconds: seconds }, 'database reachable again: serving');
  });
  app.addHook('onClose', async () => stop());
}

const Checks = Type.Object({
  database: Type.String({ description: '`ok`, or why the database cannot serve' }),
  notifications: Type.Optional(
    Type.String({
      description:
        '`ok`, or why change notifications are not heard now (PostgreSQL only; meanwhile every request asks the database)',
    }),
  ),
  redis: Type.Optional(
    Type.String({
      description:
        "`ok`, or why Redis cannot be reached; rate limits are then counted in this instance's memory (only with REDIS_URL)",
    }),
  ),
});

const ReadyAnswer = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('degraded'), Type.Literal('unavailable')], {
    description:
      '`ready`: every check `ok`. `degraded`: a shared dependency fails, the instance serves what it can. `unavailable` (503): the instance itself cannot serve.',
  }),
  checks: Checks,
});

const readyDescription = [
  'Whether to send this instance traffic. It fails (503 with `Retry-After`, status `unavailable`) only for what is local to the instance: while it shuts down, when its own PostgreSQL connection pool is exhausted while the database itself answers, and, with SQLite (a file of this instance), when the database does not answer a read within 1 s, is read-only, or refused the last write (for lack of disk space, or because another process held its write lock past the wait) and none committed since, in the last 30 s.',
  "A shared dependency's outage (PostgreSQL unreachable, read-only or out of disk space; Redis unreachable) does not fail it, so that a load balancer never pulls every instance at once: it answers 200 with status `degraded` and says what fails in `checks`, and the metrics `folio_database_up`, `folio_database_outages_total` and `folio_rate_limit_store_up` tell it too. Meanwhile requests that need the database answer 503 with `Retry-After`, and rate limits are counted in each instance's memory.",
  'Each check takes at most 1 s and writes nothing. `checks.database` is `ok` or the reason (e.g. `The database cannot be reached (connection refused)`); `checks.notifications` (PostgreSQL) whether the change notifications are heard; `checks.redis` (with `REDIS_URL`) whether Redis answers a PING. No key, no rate limit.',
].join('\n\n');

export function opsRoutes(
  app: FastifyInstance,
  options: { db: Db; rateLimits: RateLimitStore; failures: DatabaseFailures },
): void {
  logDatabaseChanges(app, options.db);
  forgetFailuresOnCommit(app, options.db, options.failures);
  app.get(
    '/health',
    {
      config: { access: 'none' },
      schema: {
        tags: ['Operations'],
        security: [],
        summary: 'Liveness: the process is alive',
        description:
          'Answers 200 while the process serves HTTP, without touching the database or Redis, so that a hung dependency never makes it hang or restarts a healthy process. Use `/ready` to decide whether to send traffic. No key, no rate limit.',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/ready',
    {
      config: { access: 'none' },
      schema: {
        tags: ['Operations'],
        security: [],
        summary: 'Readiness: the instance can serve requests now',
        description: readyDescription,
        response: { 200: ReadyAnswer, 503: ReadyAnswer },
      },
    },
    async (_request, reply) => {
      const { db, rateLimits } = options;
      const [database, redis] = await Promise.all([
        checkDatabase(db, options.failures),
        checkRedis(rateLimits),
      ]);
      const hears = db.hearsChanges();
      const notifications: Check =
        hears === false ? { problem: 'Not listening; it connects again by itself', local: false } : fine;
      const checks: { database: string; notifications?: string; redis?: string } = {
        database: database.problem ?? 'ok',
      };
      if (hears !== null) checks.notifications = notifications.problem ?? 'ok';
      if (rateLimits.ping !== undefined) checks.redis = redis.problem ?? 'ok';
      const all = [database, notifications, redis];
      if (all.some((check) => check.problem !== null && check.local)) {
        reply.code(503).header('Retry-After', String(retryAfterSeconds));
        return { status: 'unavailable' as const, checks };
      }
      return {
        status: all.some((check) => check.problem !== null) ? ('degraded' as const) : ('ready' as const),
        checks,
      };
    },
  );
}
