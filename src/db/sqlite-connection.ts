// One node:sqlite connection with a cache of prepared statements, and what SQLite's result codes
// say about a failure.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { QueryResult } from 'kysely';

const statementCacheSize = 500;
/** The page cache of each connection. */
const cacheKiB = 32 * 1024;
const sqliteBusy = 5;

/** A prepared statement, and whether it returns rows (asked once: `columns()` builds an object per
 * column at each call, 17 µs for 20 columns, measured). */
interface Prepared {
  statement: StatementSync;
  returnsRows: boolean;
}

export class SqliteConnection {
  readonly raw: DatabaseSync;
  readonly #statements = new Map<string, Prepared>();

  constructor(path: string, options: { readOnly?: boolean } = {}) {
    this.raw = new DatabaseSync(path, { timeout: 0, readOnly: options.readOnly === true });
    // SQLite's default page cache is 2 MiB a connection: too small for the article rows and
    // rollup pages that every request touches, which then come from the OS at each use.
    this.raw.exec(`PRAGMA cache_size = -${cacheKiB}`);
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

function primaryCode(error: unknown): number | null {
  const errcode = (error as { errcode?: unknown })?.errcode;
  // SQLite's primary result code is the low byte of the extended one.
  return typeof errcode === 'number' ? errcode & 0xff : null;
}

export function isSqliteBusy(error: unknown): boolean {
  return primaryCode(error) === sqliteBusy;
}
