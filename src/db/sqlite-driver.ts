// Adapts node:sqlite to the interface Kysely's SqliteDialect expects (that of better-sqlite3), with a
// cache of prepared statements so that a query compiled once is never prepared again.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const statementCacheSize = 500;

class CachedStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #statement: StatementSync;

  constructor(statement: StatementSync) {
    this.#statement = statement;
    this.reader = statement.columns().length > 0;
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.#statement.all(...(parameters as never[]));
  }

  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.#statement.run(...(parameters as never[]));
  }

  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.#statement.iterate(...(parameters as never[])) as IterableIterator<unknown>;
  }
}

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly raw: DatabaseSync;
  readonly #statements = new Map<string, CachedStatement>();

  constructor(path: string) {
    this.raw = new DatabaseSync(path, { timeout: 5000 });
    // WAL lets the CLI write while the server reads; NORMAL synchronous is still durable in WAL mode
    // against a process crash (the only crash the contract speaks of), and much faster than FULL.
    this.raw.exec('PRAGMA journal_mode = WAL');
    this.raw.exec('PRAGMA synchronous = NORMAL');
    this.raw.exec('PRAGMA foreign_keys = ON');
    this.raw.exec('PRAGMA busy_timeout = 5000');
    this.raw.function('folio_icontains', { deterministic: true }, (haystack, needle) =>
      typeof haystack === 'string' && typeof needle === 'string' && haystack.toLowerCase().includes(needle)
        ? 1
        : 0,
    );
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = new CachedStatement(this.raw.prepare(sql));
      if (this.#statements.size >= statementCacheSize) {
        const oldest = this.#statements.keys().next().value as string;
        this.#statements.delete(oldest);
      }
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Changes whenever the database may have changed: another connection committed (data_version)
   * or this one wrote (total_changes). Lets a cached read stay exact without reading the data.
   */
  changeStamp(): string {
    const row = this.prepare(
      'select total_changes() as c, (select data_version from pragma_data_version) as v',
    ).all([])[0] as { c: number; v: number };
    return `${row.v}:${row.c}`;
  }

  /** Changes when another connection committed (PRAGMA data_version). */
  foreignStamp(): string {
    const row = this.prepare('select data_version as v from pragma_data_version').all([])[0] as { v: number };
    return String(row.v);
  }

  close(): void {
    this.#statements.clear();
    if (this.raw.isOpen) this.raw.close();
  }
}
