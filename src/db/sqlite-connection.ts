// One node:sqlite connection with a cache of prepared statements, and what SQLite's result codes
// say about a failure: busy (another connection holds the write lock), read-only, or neither; the
// retries while busy, and the lock by which the connection's users take turns.
import { accessSync, constants, existsSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import type { QueryResult } from 'kysely';
import { varint, varintsOfText } from './varint.ts';
import { visitorEntryOf } from './visitor-entries.ts';

const statementCacheSize = 500;
/** The page cache of each connection. */
const cacheKiB = 32 * 1024;
const sqliteBusy = 5;
const sqliteReadOnly = 8;
const sqliteIoError = 10;
const sqliteCantOpen = 14;

/** A prepared statement, and whether it returns rows (asked once: `columns()` builds an object per
 * column at each call, 17 µs for 20 columns, measured). */
interface Prepared {
  statement: StatementSync;
  returnsRows: boolean;
}

export class SqliteConnection {
  readonly raw: DatabaseSync;
  readonly #statements = new Map<string, Prepared>();

  /** `cacheKiB`: its page cache, when it reads a few pages only (default: the size every request needs). */
  constructor(path: string, options: { readOnly?: boolean; cacheKiB?: number } = {}) {
    this.raw = new DatabaseSync(path, { timeout: 0, readOnly: options.readOnly === true });
    // SQLite's default page cache is 2 MiB a connection: too small for the article rows and
    // rollup pages that every request touches, which then come from the OS at each use.
    this.raw.exec(`PRAGMA cache_size = -${options.cacheKiB ?? cacheKiB}`);
    // A page view's 16-byte visitor id as the tracking answered it (page-view-sql.ts): SQLite has no
    // base64 of its own.
    this.raw.function('folio_base64url', { deterministic: true }, (bytes) =>
      bytes instanceof Uint8Array ? Buffer.from(bytes).toString('base64url') : null,
    );
    // A visitor-set entry of a project, scope and visitor id, as the roll-ups hash it (visitor-entries.ts).
    this.raw.function('folio_visitor_entry', { deterministic: true }, (projectId, scope, visitorId) =>
      typeof projectId === 'string' && typeof scope === 'string' && typeof visitorId === 'string'
        ? visitorEntryOf(projectId, scope, visitorId)
        : null,
    );
    // An integer as a varint (varint.ts): the rebuild packs an article day's counts with it.
    this.raw.function('folio_varint', { deterministic: true }, (value) =>
      typeof value === 'number' || typeof value === 'bigint' ? varint(Number(value)) : null,
    );
    // The numbers of an article day's counts stored as text, as varints: migration 0043's conversion.
    this.raw.function('folio_packed_text', { deterministic: true }, (text) =>
      typeof text === 'string' ? varintsOfText(text) : null,
    );
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

  /** Whether writes are refused by this connection's own choice (PRAGMA query_only), not the file's. */
  queryOnly(): boolean {
    const row = this.prepare('PRAGMA query_only').all()[0] as { query_only: number };
    return row.query_only === 1;
  }

  close(): void {
    this.#statements.clear();
    if (this.raw.isOpen) this.raw.close();
  }
}

function primaryCode(error: unknown): number | null {
  const errcode = (error as { errcode?: unknown })?.errcode;
  // SQLite's primary result code is the low byte of the extended one.
  return typeof errcode === 'number' ? errcode & 0xff : null;
}

export function isSqliteBusy(error: unknown): boolean {
  return primaryCode(error) === sqliteBusy;
}

export function isSqliteReadOnly(error: unknown): boolean {
  return primaryCode(error) === sqliteReadOnly;
}

/** An I/O failure, which a file that became read-only under an open connection gives. */
export function isSqliteIoFailure(error: unknown): boolean {
  const code = primaryCode(error);
  return code === sqliteIoError || code === sqliteCantOpen;
}

/** A write refused because the file is read-only, whatever SQLite called it. */
export function readOnlyFailure(cause: unknown): Error {
  return Object.assign(new Error('attempt to write a readonly database'), {
    code: 'ERR_SQLITE_ERROR',
    errcode: sqliteReadOnly,
    errstr: 'attempt to write a readonly database',
    cause,
  });
}

/**
 * Whether this process may write the database file and those of its WAL (each that exists):
 * SQLite opens a connection read-only, for good, when it may not.
 */
export function isWritable(path: string): boolean {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue;
    try {
      accessSync(file, constants.W_OK);
    } catch {
      return false;
    }
  }
  return true;
}

// Short pauses: the lock is mostly held by this process's own roll-up thread for milliseconds, and
// a longer pause would leave it free and the writes waiting (measured: 50 ms pauses cost 10% of the
// ingest rate); a failed try costs microseconds.
export const maxBusyPauseMs = 4;

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

export class Mutex {
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
