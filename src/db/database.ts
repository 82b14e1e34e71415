// Opens the database named by DATABASE_URL: PostgreSQL for a postgres:// URL, else an SQLite file
// (folder created on demand). Both sit behind one Kysely instance and one set of migrations.
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type CompiledQuery, Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import type pg from 'pg';
import { isPostgresUrl } from '../config.ts';
import { PostgresChangeListener, type ViewsListener } from './change-listener.ts';
import {
  DatabaseHealth,
  DatabaseUnavailableError,
  type HealthListener,
  type HealthState,
  isConnectionFailure,
  probeConnection,
} from './database-health.ts';
import type { Database } from './schema.ts';
import { SqliteReadWorker } from './read-worker.ts';
import { SqliteTaskWorker } from './task-worker.ts';
import { NodeSqliteDatabase, NodeSqliteDialect } from './sqlite-driver.ts';
import { postgresDriver } from './postgres-driver.ts';

export type DialectName = 'sqlite' | 'postgres';
export { DatabaseUnavailableError, type HealthState };

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: DialectName;
  /**
   * Runs a query compiled once ahead, for the few that run on every request. On SQLite it goes
   * straight to the cached prepared statement, skipping Kysely's per-query work (measured: the
   * cached article list went from 9,500 to over 20,000 requests per second).
   */
  executeCompiled<R>(query: CompiledQuery<R>): Promise<R[]>;
  /**
   * A value that changes whenever a project or an API key may have changed, so that a key lookup
   * kept under it is exact while it holds; never with page views. SQLite: a counter that
   * triggers advance (migration 0016; sqlite-driver.ts), null before it exists. PostgreSQL: every notified
   * change of a project or API key, whichever instance made it (change-listener.ts), or null
   * while not listening.
   */
  keysStamp(): string | null;
  /**
   * A value that changes whenever a webhook event was written, whichever process wrote it
   * (migration 0038), so that the dispatcher asks for events only then; null when it cannot tell
   * (PostgreSQL while not listening, SQLite before the migration). SQLite reads its counter only
   * after a commit (wal-index-watch.ts).
   */
  outboxStamp(): string | null;
  /**
   * Runs a read-only query where it cannot block the event loop, for the expensive ones (searches,
   * counts): on SQLite a worker thread with its own read-only connection (read-worker.ts), which
   * sees committed data only, one per lane so that searches never queue the other reads; on
   * PostgreSQL the pool, as any query.
   */
  readOffThread<R>(query: CompiledQuery<R>, lane?: 'search' | 'list'): Promise<R[]>;
  /**
   * SQLite (a file): runs the task module's default export with a Db of its own on the same file
   * in a worker thread (task-worker.ts), for long CPU work. Null where tasks run inline
   * (PostgreSQL, whose work is on the server; an in-memory database; the task thread itself).
   */
  readonly runTask: ((module: URL, input: unknown) => Promise<unknown>) | null;
  /**
   * Runs `work` in a transaction whose statements may each take up to `ms`, whatever the handle's
   * own query timeout. PostgreSQL: `statement_timeout` is set for the transaction alone, so that
   * the server cancels a longer statement (error 57014), and the client's timeout of its queries
   * is raised just above it, so that the server cancels first. SQLite: a plain transaction.
   */
  transactionWithTimeout<T>(ms: number, work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** Connections of the pool (PostgreSQL) for the metrics; null on SQLite. */
  poolState(): PoolState | null;
  /**
   * SQLite: a value that changes when another connection (the CLI, another process) committed.
   * PostgreSQL: null; `onViews` tells of page views committed anywhere instead.
   */
  foreignStamp(): string | null;
  /**
   * PostgreSQL: calls back for each article with new page views, with its new count where the
   * notification carries it; (null, null) for "maybe any".
   */
  onViews(listener: ViewsListener): () => void;
  /** Resolves once every change committed before the call is reflected in keysStamp/onViews. */
  changesSeen(): Promise<void>;
  /**
   * PostgreSQL: whether the database can be reached, as this process last found out
   * (database-health.ts). SQLite, a file of this instance: always up.
   */
  health(): HealthState;
  /** Called once each time the database goes down or comes back. */
  onHealthChange(listener: HealthListener): () => void;
  /** Finds out now, with a connection of its own, whether the database can be reached. */
  checkHealth(): Promise<HealthState>;
  /** PostgreSQL: whether change notifications are being heard now; null on SQLite. */
  hearsChanges(): boolean | null;
  close(): Promise<void>;
}

/**
 * The default export of a task module that `runTask` runs. Declared here, beside Db, so that
 * task-worker.ts (which database.ts starts) needs nothing of this module.
 */
export type DbTask<I, O> = (db: Db, input: I) => Promise<O>;

export interface PoolState {
  total: number;
  idle: number;
  waiting: number;
  /** The most connections it opens. */
  max: number;
}

export interface OpenOptions {
  /** PostgreSQL: the most connections of the pool (10), opened as the work needs them. */
  poolSize?: number;
  /** SQLite: how long a worker thread waits for work before it ends (30 s; config.ts). */
  workerIdleMs?: number;
  /** PostgreSQL: how long to wait for a connection (new, or free in a full pool); default: no limit. */
  connectTimeoutMs?: number;
  /**
   * PostgreSQL: how long one query may take (client side, and statement_timeout on the server);
   * default: no limit (the CLI's migrations and rebuilds may take minutes; the server sets one).
   */
  queryTimeoutMs?: number;
  /** SQLite: how long a write waits, asynchronously, for another process's write lock (5 s). */
  busyWaitMs?: number;
  /** SQLite: checkpoint the WAL in a thread of its own (default); false in the task thread. */
  checkpoints?: boolean;
  /** SQLite: run tasks in a worker thread (default); false in the task thread itself. */
  tasks?: boolean;
  /**
   * PostgreSQL: `transaction` when `url` goes through a pooler in transaction mode (PgBouncer,
   * pgcat, Supavisor): no named prepared statements (another client's server connection would
   * hold them), and change notifications are heard through `listenUrl`. Default `session`.
   */
  poolMode?: 'session' | 'transaction';
  /**
   * PostgreSQL: where the change listener connects (LISTEN needs a session of its own: PostgreSQL
   * itself, or a pooler in session mode); default `url`.
   */
  listenUrl?: string;
}

/**
 * The database did not answer in time (a hung host, a partition, a full pool, another process
 * holding SQLite's write lock). Answered 503 with Retry-After.
 */
export class DatabaseTimeoutError extends Error {
  readonly code = 'FOLIO_DB_TIMEOUT';
}

const defaultBusyWaitMs = 5000;

const timeoutMessages =
  /^(Query read timeout|timeout exceeded when trying to connect|Connection terminated due to connection timeout)/;

export function openDatabase(url: string, options: OpenOptions = {}): Db {
  return isPostgresUrl(url) ? openPostgres(url, options) : openSqlite(url, options);
}

function openPostgres(url: string, options: OpenOptions): Db {
  const queryTimeoutMs = options.queryTimeoutMs;
  const pool = new (postgresDriver().Pool)({
    connectionString: url,
    max: options.poolSize ?? 10,
    // A frozen server accepts TCP connections but never answers: without these, every request
    // would wait for as long as it stays frozen.
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: queryTimeoutMs,
    statement_timeout: queryTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  const health = new DatabaseHealth(() =>
    probeConnection(url, Math.max(1000, options.connectTimeoutMs ?? 2000)),
  );
  // A connection lost while idle is reported by the pool, one lost while checked out (a page-view
  // batch holds one between its statements) by the client alone, and pg-pool removes its own
  // listener while a client is checked out: an 'error' event nobody listens to ends the process.
  // So every client keeps a listener of its own for its whole life.
  pool.on('error', () => health.suspect());
  pool.on('connect', (client) => client.on('error', () => health.suspect()));
  const statements = { named: options.poolMode !== 'transaction' };
  // PostgreSQL compiles a statement whose estimated cost passes jit_above_cost before running it.
  // Folio's heaviest reads (a deep page's marks over 100,000 articles, a long period's statistics)
  // run for 50 to 500 ms and never won that time back: a marks statement (estimated just past the
  // threshold) spent 18 to 23 ms compiling, and a 50% tag's page 2,500 took 187 to 208 ms p50
  // without it against 208 to 247 with it; the analytics bench did not move. Folio's own
  // connections turn it off (before the connection's first use: timingOut). Through a
  // pooler in transaction mode a session's setting would reach other clients' transactions: there
  // `ALTER DATABASE … SET jit = off` does it (README, Behind PgBouncer).
  const sessionSetUp = statements.named ? 'set jit = off' : null;
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: timingOut(pool, health, statements, sessionSetUp) }),
  });
  // Started by the first caller of keysStamp/onViews (the server), never by the CLI.
  const listener = new PostgresChangeListener(options.listenUrl ?? url, {
    connectTimeoutMs: options.connectTimeoutMs,
    onLost: () => health.suspect(),
  });
  listener.watchLocalWrites(pool);
  // The notifications missed while the database was away are replaced by a new start at once.
  health.onChange((state) => {
    if (state.up) listener.reconnectNow();
  });
  return {
    kysely,
    dialect: 'postgres',
    executeCompiled: async (query) => (await kysely.executeQuery(query)).rows,
    readOffThread: async (query) => (await kysely.executeQuery(query)).rows,
    runTask: null,
    transactionWithTimeout: (ms, work) =>
      raisedTimeout.run(ms + clientTimeoutMarginMs, () =>
        kysely.transaction().execute(async (trx) => {
          await sql.raw(`set local statement_timeout = ${Math.floor(ms)}`).execute(trx);
          return work(trx);
        }),
      ),
    poolState: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: pool.options.max,
    }),
    keysStamp: () => listener.stamp(),
    outboxStamp: () => listener.outboxStamp(),
    foreignStamp: () => null,
    onViews: (callback) => listener.onViews(callback),
    changesSeen: () => listener.seen(),
    health: () => health.state(),
    onHealthChange: (callback) => health.onChange(callback),
    checkHealth: () => health.checkNow(),
    hearsChanges: () => listener.listening,
    close: async () => {
      health.close();
      await listener.close();
      await kysely.destroy();
    },
  };
}

function openSqlite(url: string, options: OpenOptions): Db {
  const path = url.startsWith('file:') ? url.slice('file:'.length) : url;
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const busyWaitMs = options.busyWaitMs ?? defaultBusyWaitMs;
  const idleMs = options.workerIdleMs;
  const database = new NodeSqliteDatabase(path, { busyWaitMs, checkpoints: options.checkpoints, idleMs });
  const kysely = new Kysely<Database>({ dialect: new NodeSqliteDialect(database) });
  // Threads all started on first use and ended after idleMs without work (worker-calls.ts).
  const readers =
    path === ':memory:' || path === ''
      ? null
      : { search: new SqliteReadWorker(path, { idleMs }), list: new SqliteReadWorker(path, { idleMs }) };
  const tasks =
    readers === null || options.tasks === false ? null : new SqliteTaskWorker(path, { busyWaitMs, idleMs });
  return {
    kysely,
    dialect: 'sqlite',
    // Straight to the reader connection's cached prepared statement: it sees only committed data,
    // so it never reads writes of an open transaction that may still roll back.
    executeCompiled: async (query) => {
      try {
        return (await database.read(query.sql, query.parameters)) as never;
      } catch (error) {
        throw asTimeout(error);
      }
    },
    keysStamp: () => database.keysStamp(),
    outboxStamp: () => database.outboxStamp(),
    foreignStamp: () => database.foreignStamp(),
    onViews: () => () => {},
    // The foreign stamp kept for the event loop's turn is dropped (a commit of another process
    // made earlier in this turn, as tests do with two handles, is then seen).
    changesSeen: async () => database.forgetStamp(),
    // An in-memory database exists only on its own connection: it is read there.
    readOffThread: async (query, lane = 'list') =>
      readers === null
        ? ((await kysely.executeQuery(query)).rows as never)
        : ((await readers[lane].all(query.sql, query.parameters)) as never),
    runTask:
      tasks === null
        ? null
        : async (module, input) => {
            const result = await tasks.run(module, input);
            database.acknowledgeOwnCommits();
            // What the task changed is read by the next key lookup, even in this turn.
            database.forgetStamp();
            return result;
          },
    transactionWithTimeout: (_ms, work) => kysely.transaction().execute(work),
    poolState: () => null,
    health: () => sqliteHealth,
    onHealthChange: () => () => {},
    checkHealth: async () => sqliteHealth,
    hearsChanges: () => null,
    close: async () => {
      await Promise.all([readers?.search.close(), readers?.list.close(), tasks?.close()]);
      await kysely.destroy();
    },
  };
}

const sqliteHealth: HealthState = Object.freeze({ up: true, reason: null, since: Date.now(), outages: 0 });

/**
 * PostgreSQL: the client-side timeout of the queries of a transaction begun by
 * transactionWithTimeout (the queries run within the call's async context), else undefined.
 */
const raisedTimeout = new AsyncLocalStorage<number>();
/** How far above a raised statement_timeout the client gives up: the server cancels first. */
const clientTimeoutMarginMs = 500;

/** SQL texts run as named prepared statements on PostgreSQL, by text. */
const preparedStatements = new Map<string, string>();

/**
 * Marks `sql` (a fixed text, run on every request or batch) to be run as a named prepared
 * statement on PostgreSQL: parsed and planned once per connection instead of at every run
 * (measured: 1.1 → 0.67 ms per page-view batch of one, most of it PostgreSQL's CPU). Returns it.
 * A text marked again keeps its name, so that a text built at run time may be marked at each run.
 */
export function preparedOnPostgres(sql: string): string {
  if (!preparedStatements.has(sql)) preparedStatements.set(sql, `folio_${preparedStatements.size + 1}`);
  return sql;
}

/**
 * The pool as Kysely sees it, with these changes: while the database is known to be down a
 * connection is refused at once (DatabaseUnavailableError); a failed or lost connection has the
 * health checked; a timeout becomes a DatabaseTimeoutError; a client whose query timed out is
 * destroyed instead of going back to the pool (its late answer would otherwise be read as the
 * answer to the next query); the texts marked by preparedOnPostgres run as named prepared
 * statements; the queries of a transactionWithTimeout get its raised client timeout; and a new
 * connection runs `sessionSetUp` (if any) before its first use.
 */
function timingOut(
  pool: pg.Pool,
  health: DatabaseHealth,
  statements: { named: boolean },
  sessionSetUp: string | null,
): pg.Pool {
  const setUp = new WeakSet<pg.PoolClient>();
  const connect = async () => {
    health.assertUp();
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
      if (sessionSetUp !== null && !setUp.has(client)) {
        try {
          await client.query(sessionSetUp);
        } catch (error) {
          client.release(true);
          throw error;
        }
        setUp.add(client);
      }
    } catch (error) {
      if (isConnectionFailure(error)) health.suspect();
      throw asTimeout(error);
    }
    let broken = false;
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    const release = client.release.bind(client);
    return Object.assign(Object.create(client) as pg.PoolClient, {
      query: async (...args: unknown[]) => {
        const [text, values] = args;
        const raised = raisedTimeout.getStore();
        const name = statements.named && typeof text === 'string' ? preparedStatements.get(text) : undefined;
        try {
          if (name !== undefined || (raised !== undefined && typeof text === 'string')) {
            return await query({
              text,
              values,
              ...(name === undefined ? {} : { name }),
              ...(raised === undefined ? {} : { query_timeout: raised }),
            });
          }
          return await query(...args);
        } catch (error) {
          if (isConnectionFailure(error)) health.suspect();
          if (name !== undefined && isForeignPreparedStatement(error)) {
            statements.named = false;
            warnTransactionPooler();
            throw new DatabaseUnavailableError('the connection pooler lost a prepared statement', {
              cause: error,
            });
          }
          // The client lost its connection earlier, between two queries (its 'error' event).
          if (/^Client has encountered a connection error/.test(String((error as Error)?.message))) {
            throw new DatabaseUnavailableError('the connection to the database was lost', { cause: error });
          }
          const converted = asTimeout(error);
          if (converted !== error) broken = true;
          throw converted;
        }
      },
      release: (error?: Error | boolean) => release(error ?? broken),
    });
  };
  return Object.assign(Object.create(pool) as pg.Pool, { connect, end: () => pool.end() });
}

/**
 * A named statement that the server connection already has (42P05) or does not have (26000), though
 * this client prepared it or never did: the connection is not this client's own, so a pooler in
 * transaction mode sits between (DATABASE_POOL_MODE was not set). Statements are unnamed from then
 * on; the query that met it is answered 503 and may be sent again.
 */
function isForeignPreparedStatement(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '42P05' || code === '26000';
}

let warnedTransactionPooler = false;
function warnTransactionPooler(): void {
  if (warnedTransactionPooler) return;
  warnedTransactionPooler = true;
  process.emitWarning(
    'DATABASE_URL goes through a connection pooler in transaction mode (a prepared statement was found on another client\'s connection): set DATABASE_POOL_MODE=transaction and DATABASE_LISTEN_URL to a session of PostgreSQL itself (README, "Behind PgBouncer"); statements are no longer prepared by name',
    { code: 'FOLIO_TRANSACTION_POOLER' },
  );
}

/** A timeout of either driver as a DatabaseTimeoutError; anything else unchanged. */
export function asTimeout(error: unknown): unknown {
  const message = (error as Error)?.message;
  if (typeof message === 'string' && timeoutMessages.test(message)) {
    return new DatabaseTimeoutError(`the database did not answer in time (${message})`, { cause: error });
  }
  if ((error as { errcode?: unknown })?.errcode === 5) {
    return new DatabaseTimeoutError('the database is locked by another process', { cause: error });
  }
  // PostgreSQL cancelled the statement at statement_timeout.
  if ((error as { code?: unknown })?.code === '57014') {
    return new DatabaseTimeoutError('the database did not answer in time (statement timeout)', {
      cause: error,
    });
  }
  return error;
}
