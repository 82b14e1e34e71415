// Opens the database named by DATABASE_URL: PostgreSQL for a postgres:// URL, else an SQLite file
// (folder created on demand). Both sit behind one Kysely instance and one set of migrations.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { isPostgresUrl } from '../config.ts';
import { PostgresChangeListener, type ViewsListener } from './change-listener.ts';
import type { Database } from './schema.ts';
import { SqliteReadWorker } from './read-worker.ts';
import { NodeSqliteDatabase } from './sqlite-driver.ts';

export type DialectName = 'sqlite' | 'postgres';

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
   * SQLite: a value that changes whenever any connection may have changed the database, so that
   * a cached read is exact while it holds. PostgreSQL: one that changes with every notified change
   * of a project or API key (change-listener.ts), or null while not listening.
   */
  changeStamp(): string | null;
  /**
   * Runs a read-only query where it cannot block the event loop, for the expensive ones (searches,
   * counts): on SQLite a worker thread with its own read-only connection (read-worker.ts), which
   * sees committed data only, one per lane so that searches never queue the other reads; on
   * PostgreSQL the pool, as any query.
   */
  readOffThread<R>(query: CompiledQuery<R>, lane?: 'search' | 'list'): Promise<R[]>;
  /**
   * SQLite: a value that changes when another connection (the CLI, another process) committed.
   * PostgreSQL: null; `onViews` tells of page views committed anywhere instead.
   */
  foreignStamp(): string | null;
  /** PostgreSQL: calls back for each article with new page views, (null, null) for "maybe any". */
  onViews(listener: ViewsListener): () => void;
  /** Resolves once every change committed before the call is reflected in changeStamp/onViews. */
  changesSeen(): Promise<void>;
  close(): Promise<void>;
}

// int8 (counts, sums) arrives as text by default; every such value here fits in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

export function openDatabase(url: string, options: { poolSize?: number } = {}): Db {
  if (isPostgresUrl(url)) {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
    // An idle client that loses its connection must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    // Started by the first caller of changeStamp/onViews (the server), never by the CLI.
    const listener = new PostgresChangeListener(url);
    listener.watchLocalWrites(pool);
    return {
      kysely,
      dialect: 'postgres',
      executeCompiled: async (query) => (await kysely.executeQuery(query)).rows,
      readOffThread: async (query) => (await kysely.executeQuery(query)).rows,
      changeStamp: () => listener.stamp(),
      foreignStamp: () => null,
      onViews: (callback) => listener.onViews(callback),
      changesSeen: () => listener.seen(),
      close: async () => {
        await listener.close();
        await kysely.destroy();
      },
    };
  }
  const path = url.startsWith('file:') ? url.slice('file:'.length) : url;
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new NodeSqliteDatabase(path);
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  const readers =
    path === ':memory:' || path === ''
      ? null
      : { search: new SqliteReadWorker(path), list: new SqliteReadWorker(path) };
  return {
    kysely,
    dialect: 'sqlite',
    // Inside another caller's open transaction (the connection is shared) the query waits its turn
    // through Kysely, so that it never reads writes that may still roll back.
    executeCompiled: async (query) =>
      database.raw.isTransaction
        ? ((await kysely.executeQuery(query)).rows as never)
        : (database.prepare(query.sql).all(query.parameters) as never),
    changeStamp: () => database.changeStamp(),
    foreignStamp: () => database.foreignStamp(),
    onViews: () => () => {},
    changesSeen: async () => {},
    // An in-memory database exists only on its own connection: it is read there.
    readOffThread: async (query, lane = 'list') =>
      readers === null
        ? ((await kysely.executeQuery(query)).rows as never)
        : ((await readers[lane].all(query.sql, query.parameters)) as never),
    close: async () => {
      await Promise.all([readers?.search.close(), readers?.list.close()]);
      await kysely.destroy();
    },
  };
}
