// The second step of `folio db convert-page-views`: the page views stored before migration 0022 hold
// their strings (page URL and title, referrer, UTM values) in columns of their own; this moves each
// to page_view_strings and sets the row's id of it, a batch of rows a short transaction, in the
// order of the table's key, while tracking goes on (new page views hold ids only, and updates never
// change a string). Stopped, it starts again from the first row. Then PostgreSQL drops the emptied
// columns (a change of the catalogue only); SQLite keeps them, empty (one byte each a row), since
// dropping a column there rewrites the whole table in one transaction.
import { CompiledQuery, sql } from 'kysely';
import type { Db } from './database.ts';
import { columnArrays, unnestArrays } from './dialect-sql.ts';
import { StringIdCache, type StringIdLookup, stringIds, stringIdColumns } from './page-view-strings.ts';
import { type Executor, pageViewStringColumns, type PageViewStringColumn } from './schema.ts';

type Key = { project_id: string; day: string; id: string };
type LegacyRow = Key & Partial<Record<PageViewStringColumn, string | null>>;

/** The string columns that page_views still has (all of them before migration 0022's move). */
export async function legacyStringColumns(executor: Executor, dialect: Db['dialect']): Promise<string[]> {
  const { rows } =
    dialect === 'postgres'
      ? await sql<{ name: string }>`select attname as name from pg_attribute
          where attrelid = 'page_views'::regclass and attnum > 0 and not attisdropped`.execute(executor)
      : await sql<{ name: string }>`select name from pragma_table_info('page_views')`.execute(executor);
  const present = new Set(rows.map((row) => row.name));
  return pageViewStringColumns.filter((column) => present.has(column));
}

export interface StringMoveOptions {
  batchSize?: number;
  /** SQLite: the pause after each batch, for the writes waiting for the one writer. */
  pauseMs?: number;
  onBatch?: (moved: number) => void | Promise<void>;
}

/** Moves the strings of the rows that hold them; returns how many rows had some. */
export async function movePageViewStrings(db: Db, options: StringMoveOptions = {}): Promise<number> {
  const executor = db.kysely as Executor;
  const legacy = await legacyStringColumns(executor, db.dialect);
  if (legacy.length === 0) return 0;
  const limit = options.batchSize ?? (db.dialect === 'postgres' ? 10_000 : 2_000);
  const cache = new StringIdCache();
  let moved = 0;
  // SQLite keeps the emptied columns: a row without strings in them is skipped after a seek.
  for (let after: Key | null = null; ;) {
    // The ids read reach the cache once the batch has committed: a rollback undoes their stamps.
    const strings = cache.deferred();
    const batch: { rows: number; moved: number; last: Key | null } = await executor
      .transaction()
      .execute((trx) => moveBatch(trx, db.dialect, legacy, after, limit, strings));
    strings.commit();
    moved += batch.moved;
    if (batch.rows === 0 || batch.last === null) break;
    after = batch.last;
    await options.onBatch?.(moved);
    // A short batch reached the end of the table: the rows written since hold ids only.
    if (batch.rows < limit) break;
    if (db.dialect === 'sqlite') await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 10));
  }
  if (db.dialect === 'postgres') await dropColumns(executor, legacy);
  return moved;
}

async function moveBatch(
  trx: Executor,
  dialect: Db['dialect'],
  legacy: string[],
  after: Key | null,
  limit: number,
  cache: StringIdLookup,
): Promise<{ rows: number; moved: number; last: Key | null }> {
  const start =
    after === null
      ? sql``
      : sql`where (project_id, day, id) > (${after.project_id}, ${after.day}, ${after.id})`;
  const { rows } = await sql<LegacyRow>`select project_id, day, id, ${sql.join(legacy.map((c) => sql.ref(c)))}
    from page_views ${start} order by project_id, day, id limit ${limit}`.execute(trx);
  if (rows.length === 0) return { rows: 0, moved: 0, last: null };
  const last = rows[rows.length - 1];
  const holding = rows.filter((row) =>
    pageViewStringColumns.some((column) => (row[column] ?? null) !== null),
  );
  if (holding.length === 0) return { rows: rows.length, moved: 0, last };
  const values = holding.flatMap((row) =>
    pageViewStringColumns.flatMap((column) => ((row[column] ?? null) === null ? [] : [row[column]!])),
  );
  const ids = await stringIds(trx, values, cache);
  const updates = holding.map((row) => {
    const update: Record<string, string | number | null> = {
      project_id: row.project_id,
      day: row.day,
      id: row.id,
    };
    for (const column of pageViewStringColumns) {
      const value = row[column] ?? null;
      update[`${column}_id`] = value === null ? null : ids.get(value)!;
    }
    return update;
  });
  if (dialect === 'postgres') {
    const columns = ['project_id', 'day', 'id', ...stringIdColumns];
    const set = [
      ...stringIdColumns.map((column) => `${column} = u.${column}`),
      ...legacy.map((column) => `${column} = null`),
    ].join(', ');
    await trx.executeQuery(
      CompiledQuery.raw(
        `update page_views as p set ${set}
        from ${unnestArrays(
          columns.map((column) => (stringIdColumns.includes(column as never) ? 'int4' : 'text')),
          columns,
        )}
        where p.project_id = u.project_id and p.day = u.day and p.id = u.id`,
        columnArrays(updates, columns),
      ),
    );
    return { rows: rows.length, moved: holding.length, last };
  }
  for (const update of updates) {
    await sql`update page_views set ${sql.join(
      [
        ...stringIdColumns.map((column) => sql`${sql.ref(column)} = ${update[column]}`),
        ...legacy.map((column) => sql`${sql.ref(column)} = null`),
      ],
      sql`, `,
    )} where project_id = ${update.project_id} and day = ${update.day} and id = ${update.id}`.execute(trx);
  }
  return { rows: rows.length, moved: holding.length, last };
}

/** PostgreSQL: drops the emptied columns, waiting up to 5 s for the lock at each of ten tries. */
async function dropColumns(executor: Executor, legacy: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await executor.transaction().execute(async (trx) => {
        await sql`set local lock_timeout = '5s'`.execute(trx);
        await sql`alter table page_views ${sql.join(
          legacy.map((column) => sql`drop column ${sql.ref(column)}`),
          sql`, `,
        )}`.execute(trx);
      });
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55P03' || attempt >= 10) throw error;
    }
  }
}
