// Probes for orchestrators and load balancers. /health: the process is alive and serving (no
// database call, so a hung database never makes it hang). /ready: the instance can do its work
// now: read and write its database and, when configured, reach Redis. Neither needs a key nor
// counts against a rate limit.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { type Db, DatabaseTimeoutError } from '../db/database.ts';
import { databaseUnavailableMessage, retryAfterSeconds } from './errors.ts';
import type { RateLimitStore } from './rate-limit.ts';

/** How long ago a write failure for lack of space still makes the instance not ready. */
const failureMemoryMs = 30_000;
const probeTimeoutMs = 1000;

/** The last write the database refused for a lasting reason (disk full, read-only). */
export class DatabaseFailures {
  #last: { message: string; at: number } | null = null;

  record(error: unknown): void {
    const message = databaseUnavailableMessage(error);
    if (message !== null && /disk space|read-only/.test(message)) this.#last = { message, at: Date.now() };
  }

  clear(): void {
    this.#last = null;
  }

  recent(now = Date.now()): string | null {
    return this.#last !== null && now - this.#last.at < failureMemoryMs ? this.#last.message : null;
  }
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

/** Null when the database reads and accepts a write now, else the reason. */
async function checkDatabase(db: Db, failures: DatabaseFailures): Promise<string | null> {
  try {
    await withTimeout(
      (async () => {
        await db.kysely.selectNoFrom((eb) => eb.lit(1).as('ok')).execute();
        if (db.dialect === 'sqlite') {
          // Rewrites the header with its own value: fails on a read-only file, changes nothing.
          const { rows } = await sql<{ user_version: number }>`PRAGMA user_version`.execute(db.kysely);
          await sql.raw(`PRAGMA user_version = ${Number(rows[0].user_version)}`).execute(db.kysely);
        } else {
          const { rows } = await sql<{
            ro: string;
          }>`select current_setting('transaction_read_only') as ro`.execute(db.kysely);
          if (rows[0].ro === 'on') throw Object.assign(new Error('read-only'), { code: '25006' });
        }
      })(),
      probeTimeoutMs,
      () => new DatabaseTimeoutError('the readiness probe got no answer within 1 s'),
    );
  } catch (error) {
    failures.record(error);
    return (databaseUnavailableMessage(error) ?? (error as Error).message).replace(/;.*$/, '');
  }
  return failures.recent()?.replace(/;.*$/, '') ?? null;
}

const Checks = Type.Object({
  database: Type.String({ description: '`ok`, or why the database cannot serve' }),
  redis: Type.Optional(
    Type.String({ description: '`ok`, or why Redis cannot be reached (only with REDIS_URL)' }),
  ),
});

const ReadyAnswer = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  checks: Checks,
});

export function opsRoutes(
  app: FastifyInstance,
  options: { db: Db; rateLimits: RateLimitStore; failures: DatabaseFailures },
): void {
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
        description: [
          'Checks, each within 1 s, that the database answers a read and accepts a write (SQLite: rewrites its header with the same value; PostgreSQL: the session is not read-only), that no write failed for lack of disk space or a read-only database in the last 30 s, and, when `REDIS_URL` is set, that Redis answers a PING.',
          '200 with every check `ok`; otherwise 503 with `Retry-After` and the reason of each failed check (e.g. `The database is out of disk space`). While the process shuts down it answers 503 too. No key, no rate limit.',
        ].join('\n\n'),
        response: { 200: ReadyAnswer, 503: ReadyAnswer },
      },
    },
    async (_request, reply) => {
      const [database, redis] = await Promise.all([
        checkDatabase(options.db, options.failures),
        pingWithin(options.rateLimits, probeTimeoutMs),
      ]);
      const checks: { database: string; redis?: string } = { database: database ?? 'ok' };
      if (options.rateLimits.ping !== undefined) checks.redis = redis ?? 'ok';
      const ready = database === null && redis === null;
      if (!ready) reply.code(503).header('Retry-After', String(retryAfterSeconds));
      return { status: ready ? 'ready' : 'unavailable', checks };
    },
  );
}
