// Adapts node:sqlite to Kysely, with two connections to one file and never a wait inside the event
// loop. node:sqlite is synchronous: with a busy timeout, a write that finds another process (the
// CLI's import) holding the write lock would stop every request of the server until it got it. So
// the busy timeout is 0 and a statement refused with SQLITE_BUSY is retried after an asynchronous
// pause, with backoff, until a deadline. Reads outside a transaction go to a reader connection that
// needs no lock in WAL mode, so they are answered while a write waits; writes and transactions take
// turns on the writer connection. Both keep a cache of prepared statements.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  SqliteAdapter,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Kysely,
  type QueryCompiler,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { leaveCheckpointsToAnotherConnection, SqliteCheckpointer } from './sqlite-checkpointer.ts';

const statementCacheSize = 500;
/** The page cache of each connection (the writer's and the reader's). */
const cacheKiB = 32 * 1024;
const sqliteBusy = 5;
// Short pauses: the lock is mostly held by this process's own roll-up thread for milliseconds, and
// a longer pause would leave it free and the writes waiting (measured: 50 ms pauses cost 10% of the
// ingest rate); a failed try costs microseconds.
const maxBusyPauseMs = 4;

export interface SqliteOptions {
  /** How long a statement refused with SQLITE_BUSY is retried before the error is thrown. */
  busyWaitMs?: number;
  /** Checkpoint in a thread of its own (default), or leave it to another connection's. */
  checkpoints?: boolean;
}

/** A prepared statement, and whether it returns rows (asked once: `columns()` builds an object per
 * column at each call, 17 µs for 20 columns, measured). */
interface Prepared {
  statement: StatementSync;
  returnsRows: boolean;
}

/** One connection with its prepared statements. */
export class SqliteConnection {
  readonly raw: DatabaseSync;
  readonly #statements = new Map<string, Prepared>();

  constructor(path: string, options: { readOnly?: boolean } = {}) {
    this.raw = new DatabaseSync(path, { timeout: 0, readOnly: options.readOnly === true });
  }

  prepare(sql: string): StatementSync {
    return this.#prepared(sql).statement;
  }

  #prepared(sql: string): Prepared {
    let prepared = this.#statements.get(sql);
    if (prepared === undefined) {
      const statement = this.raw.prepare(sql);
      prepared = { statement, returnsRows: statement.columns().length > 0 };
      if (this.#statements.size >= statementCacheSize) {
        const oldest = this.#statements.keys().next().value as string;
        this.#statements.delete(oldest);
      }
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }

  run(sql: string, parameters: readonly unknown[]): QueryResult<unknown> {
    const { statement, returnsRows } = this.#prepared(sql);
    if (returnsRows) return { rows: statement.all(...(parameters as never[])) };
    const { changes, lastInsertRowid } = statement.run(...(parameters as never[]));
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  /** Changes when another connection committed (PRAGMA data_version). */
  dataVersion(): string {
    const row = this.prepare('PRAGMA data_version').all()[0] as { data_version: number };
    return String(row.data_version);
  }

  close(): void {
    this.#statements.clear();
    if (this.raw.isOpen) this.raw.close();
  }
}

export function isSqliteBusy(error: unknown): boolean {
  return (error as { errcode?: unknown })?.errcode === sqliteBusy;
}

/**
 * Runs `attempt` until it stops failing with SQLITE_BUSY or `busyWaitMs` have passed, pausing
 * 1, 2, 4, 4 … ms between tries without holding the event loop.
 */
export async function retryWhileBusy<T>(attempt: () => T, busyWaitMs: number): Promise<T> {
  const deadline = Date.now() + busyWaitMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, maxBusyPauseMs)) {
    try {
      return attempt();
    } catch (error) {
      if (!isSqliteBusy(error) || Date.now() + pause > deadline) throw error;
      await sleep(pause);
    }
  }
}

class Mutex {
  #tail: Promise<void> = Promise.resolve();

  /** Resolves with the function that releases the lock, once every earlier holder released it. */
  async lock(): Promise<() => void> {
    let release!: () => void;
    const previous = this.#tail;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    return release;
  }
}

export class NodeSqliteDatabase {
  /** The writer connection: every write and every transaction. */
  readonly writer: SqliteConnection;
  /** Reads outside transactions; the writer itself for an in-memory database. */
  readonly reader: SqliteConnection;
  readonly busyWaitMs: number;
  readonly writerLock = new Mutex();
  readonly #checkpointer: SqliteCheckpointer | null;
  #stamp: string | null = null;
  #seenVersion = '';
  #foreignChanges = 0;

  constructor(path: string, options: SqliteOptions = {}) {
    this.busyWaitMs = options.busyWaitMs ?? 5000;
    this.writer = new SqliteConnection(path);
    // Opening and switching to WAL take locks too: wait for them without a busy timeout either
    // (synchronously: nothing is served before the database is open).
    const openDeadline = Date.now() + this.busyWaitMs;
    for (;;) {
      try {
        // WAL lets the CLI write while the server reads; NORMAL synchronous is still durable in WAL
        // mode against a process crash (the only crash the contract speaks of), and much faster.
        this.writer.raw.exec('PRAGMA journal_mode = WAL');
        break;
      } catch (error) {
        if (!isSqliteBusy(error) || Date.now() > openDeadline) throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      }
    }
    this.writer.raw.exec('PRAGMA synchronous = NORMAL');
    this.writer.raw.exec('PRAGMA foreign_keys = ON');
    const inMemory = path === ':memory:' || path === '';
    this.reader = inMemory ? this.writer : new SqliteConnection(path);
    if (this.reader !== this.writer) this.reader.raw.exec('PRAGMA foreign_keys = ON');
    for (const connection of new Set([this.writer, this.reader])) {
      // SQLite's default page cache is 2 MiB a connection: too small for the article rows and
      // rollup pages that every request touches, which then come from the OS at each use.
      connection.raw.exec(`PRAGMA cache_size = -${cacheKiB}`);
    }
    this.#checkpointer =
      inMemory || options.checkpoints === false ? null : new SqliteCheckpointer(path, this.writer);
    // Left to another connection's checkpointer (the task thread's, to the main thread's): its own
    // commits must not checkpoint either. At SQLite's default of 1,000 pages, each roll-up commit
    // (thousands of pages) copied the WAL into the file itself, while holding the write lock.
    if (!inMemory && options.checkpoints === false) {
      leaveCheckpointsToAnotherConnection(this.writer);
    }
  }

  /**
   * Changes whenever the database may have changed: any connection committed (the reader's
   * data_version sees the writer's commits as well as other processes'), or, for an in-memory
   * database, this connection wrote (total_changes).
   */
  changeStamp(): string {
    // It is asked on every request (6% of a tracking request's CPU), so one answer serves the rest
    // of the event loop's turn: every request handled in this turn was received before the turn
    // began, so a commit of another process that completed before such a request was sent had
    // completed before the stamp was read. This process's own writes drop the answer at once.
    if (this.#stamp === null) {
      this.#stamp = this.#readStamp();
      setImmediate(() => (this.#stamp = null));
    }
    return this.#stamp;
  }

  /** The next changeStamp() reads the database again (this process wrote, or a caller asks). */
  forgetStamp(): void {
    this.#stamp = null;
  }

  #readStamp(): string {
    // The pragma alone (4 µs) where the reader is its own connection, rather than a select through
    // the pragma's table-valued function (6 µs).
    if (this.reader !== this.writer) return this.reader.dataVersion();
    const row = this.reader
      .prepare('select total_changes() as c, (select data_version from pragma_data_version) as v')
      .all()[0] as { c: number; v: number };
    return `${row.v}:${row.c}`;
  }

  /**
   * Changes when another process (the CLI) committed, but not with this process's own writes: the
   * writer connection's data_version counts only the commits of other connections, and the reader
   * never writes; the commits of this process's task thread are acknowledged once it answered.
   */
  foreignStamp(): string {
    const version = this.writer.dataVersion();
    if (version !== this.#seenVersion) {
      this.#seenVersion = version;
      this.#foreignChanges++;
    }
    return String(this.#foreignChanges);
  }

  /** The commits seen so far were this process's own (its task thread's): not foreign. */
  acknowledgeOwnCommits(): void {
    this.#seenVersion = this.writer.dataVersion();
  }

  /** A read outside any transaction, straight on the reader connection. */
  read(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    return retryWhileBusy(() => this.reader.prepare(sql).all(...(parameters as never[])), this.busyWaitMs);
  }

  async close(): Promise<void> {
    await this.#checkpointer?.stop();
    if (this.reader !== this.writer) this.reader.close();
    this.writer.close();
  }
}

const beginStatement = /^\s*begin(\s+(deferred|immediate|exclusive))?(\s+transaction)?\s*;?\s*$/i;
const rollbackStatement = /^\s*rollback(\s+transaction)?\s*;?\s*$/i;

/**
 * What Kysely sees as one connection. It reads on the reader until it writes or begins a
 * transaction; from then on it holds the writer (and its lock) until Kysely releases it.
 */
class ConnectionHandle implements DatabaseConnection {
  readonly #database: NodeSqliteDatabase;
  #release: (() => void) | null = null;

  constructor(database: NodeSqliteDatabase) {
    this.#database = database;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const database = this.#database;
    if (this.#release === null && SelectQueryNode.is(query.query)) {
      return { rows: (await database.read(query.sql, query.parameters)) as R[] };
    }
    if (this.#release === null) this.#release = await database.writerLock.lock();
    const writer = database.writer;
    // SQLite rolls a transaction back by itself when a write fails for a full disk or an I/O
    // error: the caller's rollback then has nothing to do, and must not hide that failure.
    if (rollbackStatement.test(query.sql) && !writer.raw.isTransaction) return { rows: [] };
    // A deferred transaction would take the write lock at its first write, where SQLITE_BUSY can
    // no longer be retried (its snapshot may be stale): take it at the start instead.
    const sql = beginStatement.test(query.sql) ? 'begin immediate' : query.sql;
    const run = () => {
      try {
        return writer.run(sql, query.parameters);
      } finally {
        database.forgetStamp();
      }
    };
    if (writer.raw.isTransaction) return run() as QueryResult<R>;
    return retryWhileBusy(run, database.busyWaitMs) as Promise<QueryResult<R>>;
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams only select queries');
    const connection = this.#release === null ? this.#database.reader : this.#database.writer;
    // A statement of its own: a cached one could be reset by another request mid-iteration.
    const statement = connection.raw.prepare(query.sql);
    for (const row of statement.iterate(...(query.parameters as never[]))) yield { rows: [row as R] };
  }

  release(): void {
    const release = this.#release;
    this.#release = null;
    if (release === null) return;
    // A transaction left open by a failed caller must not be inherited by the next one.
    if (this.#database.writer.raw.isTransaction) {
      try {
        this.#database.writer.raw.exec('rollback');
      } catch {
        // nothing to roll back
      }
    }
    release();
  }
}

class NodeSqliteDriver implements Driver {
  readonly #database: NodeSqliteDatabase;

  constructor(database: NodeSqliteDatabase) {
    this.#database = database;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new ConnectionHandle(this.#database);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as ConnectionHandle).release();
  }

  async destroy(): Promise<void> {
    await this.#database.close();
  }
}

export class NodeSqliteDialect implements Dialect {
  readonly #database: NodeSqliteDatabase;

  constructor(database: NodeSqliteDatabase) {
    this.#database = database;
  }

  createDriver(): Driver {
    return new NodeSqliteDriver(this.#database);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
