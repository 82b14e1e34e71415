// Adapts node:sqlite to Kysely, with several connections to one file and never a wait inside the
// event loop. node:sqlite is synchronous: with a busy timeout, a write that finds another process (the
// CLI's import) holding the write lock would stop every request of the server until it got it. So
// the busy timeout is 0 and a statement refused with SQLITE_BUSY is retried after an asynchronous
// pause, with backoff, until a deadline. Reads outside a transaction go to a reader connection that
// needs no lock in WAL mode, so they are answered while a write waits; read-only transactions take
// turns on a snapshot connection, for the same reason; writes and other transactions take turns on
// the writer connection, which is opened again when the file it found read-only is writable again.
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
  type TransactionSettings,
} from 'kysely';
import { mayChangeKeys } from './key-writes.ts';
import { WalIndexWatch } from './wal-index-watch.ts';
import { leaveCheckpointsToAnotherConnection, SqliteCheckpointer } from './sqlite-checkpointer.ts';
import {
  isSqliteBusy,
  isSqliteIoFailure,
  isSqliteReadOnly,
  isWritable,
  maxBusyPauseMs,
  Mutex,
  readOnlyFailure,
  retryWhileBusy,
  SqliteConnection,
} from './sqlite-connection.ts';

/**
 * Tries of writes that found the write lock held, at most this far apart, tell of one holder: a
 * write issued while it has held the lock for busyWaitMs already is refused at its first try.
 */
const lockSeenGapMs = 1000;

export interface SqliteOptions {
  /**
   * How long writes wait for another connection's write lock, counted from the first write that
   * found it held (a write queued behind that one waits no longer), before they are refused.
   */
  busyWaitMs?: number;
  /** Checkpoint in a thread of its own (default), or leave it to another connection's. */
  checkpoints?: boolean;
  /** How long the checkpoint thread runs on without commits before it ends (30 s). */
  idleMs?: number;
}

export class NodeSqliteDatabase {
  /** Reads outside transactions; the writer itself for an in-memory database. */
  readonly reader: SqliteConnection;
  readonly busyWaitMs: number;
  readonly writerLock = new Mutex();
  /** Read-only transactions take turns on a connection of their own (opened on first use). */
  readonly snapshotLock = new Mutex();
  readonly #path: string;
  readonly #inMemory: boolean;
  readonly #checkpoints: boolean;
  #checkpointer: SqliteCheckpointer | null = null;
  #writer: SqliteConnection;
  #snapshot: SqliteConnection | null = null;
  /** Reads the keys' counter alone (keysStamp), so that its page cache holds those few pages only. */
  #stampReader: SqliteConnection | null = null;
  /** The counters of key changes (keysStamp) and of webhook events (outboxStamp), opened on first use. */
  #keyChanges: TriggerCounter | null = null;
  #outboxChanges: TriggerCounter | null = null;
  /** The writer refuses writes because the file did: it is opened again once the file is writable. */
  #writerReadOnly = false;
  /** When writes began to find the write lock held by another connection, and when one last did. */
  #lockHeldSince: number | null = null;
  #lockSeenAt = 0;
  #seenVersion = '';
  #foreignChanges = 0;
  #keysStamp: string | null = null;

  constructor(path: string, options: SqliteOptions = {}) {
    this.busyWaitMs = options.busyWaitMs ?? 5000;
    this.#path = path;
    this.#inMemory = path === ':memory:' || path === '';
    this.#checkpoints = !this.#inMemory && options.checkpoints !== false;
    this.#writer = this.#openWriter();
    this.reader = this.#inMemory ? this.#writer : new SqliteConnection(path);
    if (this.reader !== this.#writer) this.reader.raw.exec('PRAGMA foreign_keys = ON');
    this.#checkpointer = this.#checkpoints
      ? new SqliteCheckpointer(path, () => this.#writer, { idleMs: options.idleMs })
      : null;
  }

  /** The WAL's checkpoints (null for an in-memory database, or where another connection's do them). */
  get checkpointer(): SqliteCheckpointer | null {
    return this.#checkpointer;
  }

  /** The writer connection: every write and every transaction. */
  get writer(): SqliteConnection {
    return this.#writer;
  }

  #openWriter(): SqliteConnection {
    const writer = new SqliteConnection(this.#path);
    // SQLite opens the file read-only when it may not write it, and the connection stays so.
    this.#writerReadOnly = !this.#inMemory && !isWritable(this.#path);
    // Opening and switching to WAL take locks too: wait for them without a busy timeout either
    // (synchronously: nothing is served before the database is open).
    const openDeadline = Date.now() + this.busyWaitMs;
    for (;;) {
      try {
        // WAL lets the CLI write while the server reads; NORMAL synchronous is still durable in WAL
        // mode against a process crash (the only crash the contract speaks of), and much faster.
        writer.raw.exec('PRAGMA journal_mode = WAL');
        break;
      } catch (error) {
        if (!isSqliteBusy(error) || Date.now() > openDeadline) throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      }
    }
    writer.raw.exec('PRAGMA synchronous = NORMAL');
    writer.raw.exec('PRAGMA foreign_keys = ON');
    // Left to another connection's checkpointer (the task thread's, to the main thread's): its own
    // commits must not checkpoint either. At SQLite's default of 1,000 pages, each roll-up commit
    // (thousands of pages) copied the WAL into the file itself, while holding the write lock.
    if (this.#checkpointer !== null) this.#checkpointer.configure(writer);
    else if (!this.#inMemory) leaveCheckpointsToAnotherConnection(writer);
    return writer;
  }

  /**
   * Before a write, with the writer lock held outside any transaction: a writer that the file made
   * read-only is opened again once the file is writable, so that writes resume without a restart.
   */
  reopenWriterIfWritable(): void {
    if (!this.#writerReadOnly || !isWritable(this.#path)) return;
    const stale = this.#writer;
    this.#writer = this.#openWriter();
    // Its data_version starts a count of its own: the keys' counter is read again.
    this.forgetStamp();
    stale.close();
  }

  /** Changes with every commit of a connection other than the writer (null: cannot be told). */
  #writerVersion(): string | null {
    if (this.#inMemory) return null;
    try {
      return this.#writer.dataVersion();
    } catch {
      return null;
    }
  }

  /** What a failed write on the writer says to its caller, and what it says of the writer. */
  writeFailure(error: unknown): unknown {
    if (this.#inMemory) return error;
    if (isSqliteReadOnly(error)) {
      // PRAGMA query_only (a test's, an operator's) is the connection's own choice, kept.
      if (!this.#writer.raw.isOpen || !this.#writer.queryOnly()) this.#writerReadOnly = true;
      return error;
    }
    // A file made read-only under an open connection fails its writes as I/O errors.
    if (isSqliteIoFailure(error) && !isWritable(this.#path)) {
      this.#writerReadOnly = true;
      return readOnlyFailure(error);
    }
    return error;
  }

  /**
   * Runs a write outside a transaction (or the begin of one) until another connection's write lock
   * lets it. The wait is counted from the first write that found the lock held, while every try
   * since has found it so: a write queued behind another waiting one (the next batch of page
   * views, the next roll-up) does not wait busyWaitMs again after it, it is refused at its first
   * try; a lock seen free or not tried for a while starts a new count.
   */
  async write<T>(attempt: () => T): Promise<T> {
    const now = Date.now();
    if (this.#lockHeldSince !== null && now - this.#lockSeenAt > lockSeenGapMs) this.#lockHeldSince = null;
    const deadline = (this.#lockHeldSince ?? now) + this.busyWaitMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, maxBusyPauseMs)) {
      try {
        const result = attempt();
        this.#lockHeldSince = null;
        return result;
      } catch (error) {
        if (!isSqliteBusy(error)) throw error;
        const at = Date.now();
        this.#lockHeldSince ??= at;
        this.#lockSeenAt = at;
        if (at + pause > deadline) throw error;
        await sleep(pause);
      }
    }
  }

  /** The connection of read-only transactions: its own for a file, the writer's in memory. */
  snapshotConnection(): SqliteConnection {
    if (this.#inMemory) return this.#writer;
    if (this.#snapshot === null) {
      this.#snapshot = new SqliteConnection(this.#path);
      this.#snapshot.raw.exec('PRAGMA query_only = 1');
    }
    return this.#snapshot;
  }

  /** The next keysStamp() reads the counter again (this process changed keys, or a caller asks). */
  forgetStamp(): void {
    this.#keysStamp = null;
    this.#keyChanges?.forget();
  }

  /**
   * Changes whenever a project or an API key changed, whichever process changed it: the counter
   * of migration 0016's triggers, read on the reader (committed changes only). Page views leave
   * it as it is, so the key lookups it keys live on while a blog is read and tracked. It is asked
   * on every request, so one answer serves the rest of the event loop's turn: every request
   * handled in a turn was received before it began, so a commit of another process that completed
   * before such a request was sent had completed before the counter was read. This process's own
   * changes drop the answer once committed (release below), and a task's once it answered. Null
   * (nothing kept) on a database without the counter, before its migration.
   *
   * A turn's first ask looks at the WAL index first (wal-index-watch.ts): while no connection
   * committed since the counter was read, it is what the counter holds, and is not read again. So
   * a blog read but not tracked reads nothing of SQLite's per request. After a commit it asks the
   * writer's data_version, which only other connections' commits move: a blog being tracked
   * commits its page views on the writer, and reads the counter again only after a commit of
   * another connection (the roll-ups' task thread, about once a second; another process). At 50
   * views a second, reading it after every commit cost 0.1 ms of CPU a view (a CPU profile, SQLite).
   */
  keysStamp(): string | null {
    if (this.#keysStamp === null) {
      this.#keyChanges ??= new TriggerCounter('key_changes', this.#inMemory ? null : this.#path);
      // The writer's data_version moves with other connections' commits only: a commit of this
      // process's own (a page view's) cannot have changed a key unless release() said so.
      const stamp = this.#keyChanges.value(this.#stampConnection(), () => this.#writerVersion());
      if (stamp === null) return null;
      this.#keysStamp = stamp;
      setImmediate(() => (this.#keysStamp = null));
    }
    return this.#keysStamp;
  }

  /**
   * Changes whenever a webhook event was written, whichever process wrote it: the counter of
   * migration 0038's trigger, read only after a commit of any connection, as keysStamp reads its
   * own. Null before the migration.
   */
  outboxStamp(): string | null {
    this.#outboxChanges ??= new TriggerCounter('outbox_changes', this.#inMemory ? null : this.#path);
    return this.#outboxChanges.value(this.#stampConnection());
  }

  /**
   * A connection of its own for the counter: after any commit, the first read of a connection
   * starts its page cache over, at a cost that grows with the pages it holds (measured: 40 µs on
   * the reader against 17 µs here, at every request of a blog being tracked).
   */
  #stampConnection(): SqliteConnection {
    if (this.#inMemory) return this.reader;
    if (this.#stampReader === null) {
      this.#stampReader = new SqliteConnection(this.#path, { cacheKiB: 64 });
      this.#stampReader.raw.exec('PRAGMA query_only = 1');
    }
    return this.#stampReader;
  }

  /**
   * Changes when another process (the CLI) committed, but not with this process's own writes: the
   * writer connection's data_version counts only the commits of other connections, and the reader
   * never writes; the commits of this process's task thread are acknowledged once it answered.
   */
  foreignStamp(): string {
    const version = this.#writer.dataVersion();
    if (version !== this.#seenVersion) {
      this.#seenVersion = version;
      this.#foreignChanges++;
    }
    return String(this.#foreignChanges);
  }

  /** The commits seen so far were this process's own (its task thread's): not foreign. */
  acknowledgeOwnCommits(): void {
    this.#seenVersion = this.#writer.dataVersion();
  }

  /** A read outside any transaction, straight on the reader connection. */
  read(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    return retryWhileBusy(() => this.reader.prepare(sql).all(...(parameters as never[])), this.busyWaitMs);
  }

  async close(): Promise<void> {
    await this.#checkpointer?.stop();
    this.#snapshot?.close();
    this.#stampReader?.close();
    this.#keyChanges?.close();
    this.#outboxChanges?.close();
    if (this.reader !== this.#writer) this.reader.close();
    this.#writer.close();
  }
}

/**
 * A one-row counter that triggers advance (`version` of row 1), read again only once a connection
 * committed since it was last read: the WAL index's header is looked at first (wal-index-watch.ts),
 * then the counter, so that a look finding nothing new vouches for the last value read. Each
 * counter has a watch of its own, since each is asked at its own times.
 */
class TriggerCounter {
  readonly #sql: string;
  readonly #watch: WalIndexWatch | null;
  #read: string | null = null;
  /** What `othersCommitted` said just before the counter was last read. */
  #readAfter: string | null = null;

  /** `path`: the database file (null in memory, where every ask reads the counter). */
  constructor(table: string, path: string | null) {
    this.#sql = `select version from ${table} where id = 1`;
    this.#watch = path === null ? null : new WalIndexWatch(path);
  }

  /**
   * The counter, or null when it cannot be read (its table does not exist yet). `othersCommitted`,
   * when given, names the commits that may have moved it (null: any may have): after a commit, an
   * unchanged name spares the read.
   */
  value(connection: SqliteConnection, othersCommitted?: () => string | null): string | null {
    if (this.#watch?.unchanged() === true && this.#read !== null) return this.#read;
    const others = othersCommitted?.() ?? null;
    if (others !== null && others === this.#readAfter && this.#read !== null) return this.#read;
    this.#readAfter = others;
    try {
      const row = connection.prepare(this.#sql).get() as { version: number } | undefined;
      this.#read = row === undefined ? null : String(row.version);
    } catch {
      this.#read = null;
    }
    if (this.#read === null) this.#watch?.forget();
    return this.#read;
  }

  /** The next ask reads the counter. */
  forget(): void {
    this.#read = null;
  }

  close(): void {
    this.#watch?.close();
  }
}

const beginStatement = /^\s*begin(\s+(deferred|immediate|exclusive))?(\s+transaction)?\s*;?\s*$/i;
const rollbackStatement = /^\s*rollback(\s+transaction)?\s*;?\s*$/i;

interface Held {
  connection: SqliteConnection;
  release: () => void;
  /** A read-only transaction, on the snapshot connection. */
  snapshot: boolean;
  /** A statement that may change a project or an API key ran (keysStamp is read again on release). */
  wroteKeys?: boolean;
}

/**
 * What Kysely sees as one connection. It reads on the reader until it writes or begins a
 * transaction; from then on it holds the writer (and its lock) until Kysely releases it. A
 * read-only transaction holds the snapshot connection instead, so that it waits for no write.
 */
class ConnectionHandle implements DatabaseConnection {
  readonly #database: NodeSqliteDatabase;
  #held: Held | null = null;

  constructor(database: NodeSqliteDatabase) {
    this.#database = database;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const database = this.#database;
    if (this.#held === null && SelectQueryNode.is(query.query)) {
      return { rows: (await database.read(query.sql, query.parameters)) as R[] };
    }
    if (this.#held === null) {
      database.checkpointer?.wake();
      const release = await database.writerLock.lock();
      this.#held = { connection: database.writer, release, snapshot: false };
      database.reopenWriterIfWritable();
      this.#held.connection = database.writer;
    }
    const { connection, snapshot } = this.#held;
    // SQLite rolls a transaction back by itself when a write fails for a full disk or an I/O
    // error: the caller's rollback then has nothing to do, and must not hide that failure.
    if (rollbackStatement.test(query.sql) && !connection.raw.isTransaction) return { rows: [] };
    if (snapshot) return connection.run(query.sql, query.parameters) as QueryResult<R>;
    // A deferred transaction would take the write lock at its first write, where SQLITE_BUSY can
    // no longer be retried (its snapshot may be stale): take it at the start instead.
    const sql = beginStatement.test(query.sql) ? 'begin immediate' : query.sql;
    if (mayChangeKeys(sql)) this.#held.wroteKeys = true;
    const run = () => {
      try {
        return connection.run(sql, query.parameters);
      } catch (error) {
        throw database.writeFailure(error);
      }
    };
    if (connection.raw.isTransaction) return run() as QueryResult<R>;
    return database.write(run) as Promise<QueryResult<R>>;
  }

  /** Begins a read-only transaction: a deferred one, which reads one snapshot and takes no write lock. */
  async beginSnapshot(): Promise<void> {
    const database = this.#database;
    const connection = database.snapshotConnection();
    const lock = connection === database.writer ? database.writerLock : database.snapshotLock;
    const release = await lock.lock();
    this.#held = { connection, release, snapshot: true };
    connection.raw.exec('begin deferred');
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams only select queries');
    const connection = this.#held?.connection ?? this.#database.reader;
    // A statement of its own: a cached one could be reset by another request mid-iteration.
    const statement = connection.raw.prepare(query.sql);
    for (const row of statement.iterate(...(query.parameters as never[]))) yield { rows: [row as R] };
  }

  release(): void {
    const held = this.#held;
    this.#held = null;
    if (held === null) return;
    // A transaction left open by a failed caller must not be inherited by the next one.
    if (held.connection.raw.isOpen && held.connection.raw.isTransaction) {
      try {
        held.connection.raw.exec('rollback');
      } catch {
        // nothing to roll back
      }
    }
    held.release();
    // After the commit: the next lookup reads the counter the change advanced, even in this turn.
    if (held.wroteKeys === true) this.#database.forgetStamp();
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

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.accessMode === 'read only') await (connection as ConnectionHandle).beginSnapshot();
    else await connection.executeQuery(CompiledQuery.raw('begin immediate'));
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
