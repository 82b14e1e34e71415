// `folio db convert-page-views`: gives an existing database the keyed page-view layout of migration
// 0020 (frozen/0020-keyed-page-views.ts) online. The new table is made beside the old one; triggers
// copy every write of the old table into it from then on; the rows already there are copied in
// batches of one short transaction each, in the order of the old key, so that tracking goes on
// between them; then one short transaction puts the new table in the old one's place. Stopped at any
// point, it starts again where the tables are: a row copied twice is kept once, a row the triggers
// copied is newer than the batch's copy and kept. Then the strings of the page views stored before
// migration 0022 move to page_view_strings (page-view-string-conversion.ts). compactPageViews, run
// by the command next, copies a PostgreSQL table the same way into the compact layout of migration
// 0031 (frozen/0031-compact-page-views.ts), its days and times typed.
import { type RawBuilder, sql } from 'kysely';
import type { Db } from './database.ts';
import {
  createMonthPartitions,
  createNextTable,
  hasKeyedLayout,
  monthsBetween,
  nextTableName,
  swapInNextTable,
} from './migrations/frozen/0020-keyed-page-views.ts';
import {
  compactColumns,
  createCompactTable,
  hasCompactLayout,
  swapInCompactTable,
} from './migrations/frozen/0031-compact-page-views.ts';
import { legacyStringColumns, movePageViewStrings } from './page-view-string-conversion.ts';
import type { Executor } from './schema.ts';

export interface ConversionOptions {
  /** Rows per batch (default 2,000 on SQLite, 10,000 on PostgreSQL). */
  batchSize?: number;
  /** SQLite: the pause after each batch, for the writes waiting for the one writer. */
  pauseMs?: number;
  /** Told after each batch of the rows copied so far. */
  onBatch?: (copied: number) => void | Promise<void>;
  /** Told after each batch of the strings' move of the rows that had strings moved so far. */
  onStringBatch?: (moved: number) => void | Promise<void>;
}

export interface ConversionResult {
  /** false: the table had the keyed layout already. */
  converted: boolean;
  /** Rows copied by the batches (not those the triggers copied). */
  copied: number;
  /** Rows whose strings moved to page_view_strings. */
  moved: number;
}

export async function convertPageViews(db: Db, options: ConversionOptions = {}): Promise<ConversionResult> {
  const executor = db.kysely as Executor;
  let copied = 0;
  const converted = !(await hasKeyedLayout(executor, db.dialect));
  if (converted) {
    await prepareNextTable(db);
    copied = await copyBatches(db, options);
    await swap(db);
    await sql`drop table page_views_old`.execute(executor);
  }
  const moved = await movePageViewStrings(db, {
    batchSize: options.batchSize,
    pauseMs: options.pauseMs,
    onBatch: options.onStringBatch,
  });
  return { converted, copied, moved };
}

export interface CompactionResult {
  /** false: the table had the compact layout already (always so on SQLite). */
  compacted: boolean;
  /** Rows copied by the batches (not those the triggers copied). */
  copied: number;
}

/**
 * PostgreSQL: gives the keyed page views, their strings moved (convertPageViews), the compact
 * layout of migration 0031 online, as convertPageViews gives the keyed one. Refused, the table left
 * as it is, if a stored day or time would not read back the same (UnconvertibleValueError).
 */
export async function compactPageViews(
  db: Db,
  options: Pick<ConversionOptions, 'batchSize' | 'onBatch'> = {},
): Promise<CompactionResult> {
  const executor = db.kysely as Executor;
  if (await hasCompactLayout(executor, db.dialect)) return { compacted: false, copied: 0 };
  // The compact table has no column for a string not moved yet: it would be lost.
  if (
    !(await hasKeyedLayout(executor, db.dialect)) ||
    (await legacyStringColumns(executor, db.dialect)).length > 0
  ) {
    throw new Error('the page views need the keyed layout and their strings moved first (convertPageViews)');
  }
  await prepareCompactTable(db);
  const copied = await copyCompactBatches(db, options);
  await swapCompact(db);
  return { compacted: true, copied };
}

/** A stored value the compact layout would not give back as it is: the conversion refuses it. */
export class UnconvertibleValueError extends Error {}

/**
 * PostgreSQL: the compact table with its triggers, made once (a conversion started again finds
 * them), after a check that every day and time stored reads back the same from its typed column.
 */
async function prepareCompactTable(db: Db): Promise<void> {
  const executor = db.kysely as Executor;
  const day = String.raw`^\d{4}-\d{2}-\d{2}$`;
  const time = String.raw`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`;
  const { rows: odd } = await sql<{ id: string; day: string; created_at: string; updated_at: string }>`
    select id, day, created_at, updated_at from page_views
    where not (day ~ ${day} and created_at ~ ${time} and updated_at ~ ${time}) limit 1`.execute(executor);
  if (odd.length > 0) {
    const row = odd[0];
    throw new UnconvertibleValueError(
      `page view ${row.id} has a day or time the compact layout would not keep as it is (day ${JSON.stringify(row.day)}, created_at ${JSON.stringify(row.created_at)}, updated_at ${JSON.stringify(row.updated_at)}); the table was left as it is`,
    );
  }
  await executor.transaction().execute(async (trx) => {
    const { rows } = await sql<{
      made: boolean;
    }>`select to_regclass(${nextTableName}) is not null as made`.execute(trx);
    if (rows[0].made) return;
    const { rows: bounds } = await sql<{ first: string | null }>`
      select cast(min(day) as text) as first from page_views`.execute(trx);
    const today = new Date().toISOString().slice(0, 10);
    const ahead = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)) + 1, 1));
    const first = bounds[0].first !== null && bounds[0].first < today ? bounds[0].first : today;
    await createCompactTable(trx, monthsBetween(first, ahead.toISOString().slice(0, 10)).slice(-240));
    // Each row written is copied with its values as the compact table's types: the same text read
    // by each column's type.
    const names = compactColumns.map(([name]) => name);
    const list = names.join(', ');
    const typed = names.map((name) => `r.${name}`).join(', ');
    const updates = names.map((name) => `${name} = excluded.${name}`).join(', ');
    await sql`create function page_views_copy() returns trigger language plpgsql as ${sql.lit(`begin
      if tg_op = 'DELETE' then
        delete from page_views_next as p using json_populate_record(null::page_views_next, to_json(old)) as r
          where p.project_id = r.project_id and p.day = r.day and p.id = r.id;
        return null;
      end if;
      insert into page_views_next (${list})
        select ${typed} from json_populate_record(null::page_views_next, to_json(new)) as r
        on conflict (project_id, day, id) do update set ${updates};
      return null;
    end`)}`.execute(trx);
    await sql`create trigger page_views_copy after insert or update or delete on page_views
      for each row execute function page_views_copy()`.execute(trx);
  });
}

/**
 * Copies the rows in the order of the key (project_id, day, id), a batch a transaction, each row
 * locked (FOR SHARE) until its copy commits, as copyBatches does. A row already in the new table
 * was put there by the triggers, from a later write, and is left as it is. The walk stops at the last
 * key of the moment the triggers exist: the rows written since are theirs to copy.
 */
async function copyCompactBatches(
  db: Db,
  options: Pick<ConversionOptions, 'batchSize' | 'onBatch'>,
): Promise<number> {
  const executor = db.kysely as Executor;
  const limit = options.batchSize ?? 10_000;
  const names = compactColumns.map(([name]) => name);
  const list = sql.raw(names.join(', '));
  const typed = sql.raw(names.map((name) => `r.${name}`).join(', '));
  const { rows: tops } = await sql<ViewKey>`select project_id, cast(day as text) as day, id from page_views
    order by project_id desc, day desc, id desc limit 1`.execute(executor);
  if (tops.length === 0) return 0;
  const top = tops[0];
  let copied = 0;
  for (let after: ViewKey | null = null; ;) {
    const start: RawBuilder<unknown> = sql`where (project_id, day, id) <= (${top.project_id}, ${top.day}, ${top.id})
      ${after === null ? sql`` : sql`and (project_id, day, id) > (${after.project_id}, ${after.day}, ${after.id})`}`;
    const { rows }: { rows: CopiedBatch[] } = await sql<CopiedBatch>`
      with batch as (
        select * from page_views ${start} order by project_id, day, id limit ${limit} for share
      ), copied as (
        insert into page_views_next (${list})
        select ${typed} from batch cross join lateral json_populate_record(null::page_views_next, to_json(batch)) as r
        on conflict do nothing
      ), last as (select project_id, day, id from batch order by project_id desc, day desc, id desc limit 1)
      select (select count(*) from batch) as n, last.project_id, cast(last.day as text) as day, last.id
      from (select 1) as one left join last on true`.execute(executor);
    const n = Number(rows[0].n);
    if (n === 0) return copied;
    copied += n;
    after = { project_id: rows[0].project_id!, day: rows[0].day!, id: rows[0].id! };
    await options.onBatch?.(copied);
  }
}

interface ViewKey {
  project_id: string;
  day: string;
  id: string;
}

interface CopiedBatch {
  n: string;
  project_id: string | null;
  day: string | null;
  id: string | null;
}

/** The compact table takes the old one's place, as swap() does for the keyed one. */
async function swapCompact(db: Db): Promise<void> {
  const executor = db.kysely as Executor;
  for (let attempt = 1; ; attempt++) {
    try {
      await executor.transaction().execute(async (trx) => {
        await sql`set local lock_timeout = '5s'`.execute(trx);
        await sql`lock table page_views in access exclusive mode`.execute(trx);
        await sql`drop trigger page_views_copy on page_views`.execute(trx);
        await sql`drop function page_views_copy()`.execute(trx);
        await swapInCompactTable(trx);
      });
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55P03' || attempt >= 10) throw error;
    }
  }
}

/** The new table with its triggers, made once (a conversion started again finds them). */
async function prepareNextTable(db: Db): Promise<void> {
  const executor = db.kysely as Executor;
  await executor.transaction().execute(async (trx) => {
    const exists =
      db.dialect === 'postgres'
        ? (
            await sql<{ made: boolean }>`select to_regclass(${nextTableName}) is not null as made`.execute(
              trx,
            )
          ).rows[0].made
        : (await sql`select 1 from sqlite_schema where name = ${nextTableName}`.execute(trx)).rows.length > 0;
    if (exists) return;
    await createNextTable(trx, db.dialect);
    if (db.dialect === 'postgres') {
      // A partition for each month of the stored views, and ahead; the rest go to the default one.
      const { rows } = await sql<{ first: string | null; last: string | null }>`
        select min(day) as first, max(day) as last from page_views`.execute(trx);
      const today = new Date().toISOString().slice(0, 10);
      const ahead = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)) + 1, 1));
      const first = rows[0].first !== null && rows[0].first < today ? rows[0].first : today;
      const months = monthsBetween(first, ahead.toISOString().slice(0, 10));
      await createMonthPartitions(trx, nextTableName, months.slice(-240));
    }
    await createTriggers(trx, db.dialect);
  });
}

async function pageViewColumns(executor: Executor, dialect: Db['dialect']): Promise<string[]> {
  const { rows } =
    dialect === 'postgres'
      ? await sql<{ name: string }>`select attname as name from pg_attribute
          where attrelid = 'page_views'::regclass and attnum > 0 and not attisdropped order by attnum`.execute(
          executor,
        )
      : await sql<{ name: string }>`select name from pragma_table_info('page_views') order by cid`.execute(
          executor,
        );
  return rows.map((row) => row.name);
}

/** Every insert, update and delete of the old table from now on is made in the new one too. */
async function createTriggers(executor: Executor, dialect: Db['dialect']): Promise<void> {
  const columns = await pageViewColumns(executor, dialect);
  const list = columns.map((column) => `"${column}"`).join(', ');
  if (dialect === 'postgres') {
    const updates = columns.map((column) => `"${column}" = excluded."${column}"`).join(', ');
    await sql`create function page_views_copy() returns trigger language plpgsql as ${sql.lit(`begin
      if tg_op = 'DELETE' then
        delete from page_views_next where project_id = old.project_id and day = old.day and id = old.id;
        return null;
      end if;
      insert into page_views_next (${list}) select (new).*
        on conflict (project_id, day, id) do update set ${updates};
      return null;
    end`)}`.execute(executor);
    await sql`create trigger page_views_copy after insert or update or delete on page_views
      for each row execute function page_views_copy()`.execute(executor);
    return;
  }
  const values = columns.map((column) => `new."${column}"`).join(', ');
  for (const event of ['insert', 'update']) {
    await sql`create trigger ${sql.raw(`page_views_copy_${event}`)} after ${sql.raw(event)} on page_views begin
      insert or replace into page_views_next (${sql.raw(list)}) values (${sql.raw(values)}); end`.execute(
      executor,
    );
  }
  await sql`create trigger page_views_copy_delete after delete on page_views begin
    delete from page_views_next where project_id = old.project_id and day = old.day and id = old.id; end`.execute(
    executor,
  );
}

/**
 * Copies the old table's rows in the order of its key (PostgreSQL: the id, SQLite: the rowid), a
 * batch a transaction. A row already in the new table is left as it is: the triggers put it there,
 * from a write after the batch's read. PostgreSQL: the batch's rows are locked (FOR SHARE) until it
 * commits, so that a delete of one waits, and its trigger then removes the copy.
 */
async function copyBatches(db: Db, options: ConversionOptions): Promise<number> {
  const executor = db.kysely as Executor;
  const limit = options.batchSize ?? (db.dialect === 'postgres' ? 10_000 : 2_000);
  // The rows written since the triggers exist are theirs to copy: the batches stop at the last key
  // of that moment, rather than chase the new rows of a busy service for ever.
  const { rows } =
    db.dialect === 'postgres'
      ? await sql<{ last: string | null }>`select max(id) as last from page_views`.execute(executor)
      : await sql<{ last: number | null }>`select max(rowid) as last from page_views`.execute(executor);
  const upTo = rows[0].last;
  if (upTo === null) return 0;
  let copied = 0;
  for (let after: string | number | null = null; ;) {
    const batch: { rows: number; last: string | number | null } =
      db.dialect === 'postgres'
        ? await copyPostgresBatch(executor, after as string | null, upTo as string, limit)
        : await copySqliteBatch(executor, (after as number | null) ?? 0, upTo as number, limit);
    if (batch.rows === 0) return copied;
    copied += batch.rows;
    after = batch.last;
    await options.onBatch?.(copied);
    if (db.dialect === 'sqlite') await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 10));
  }
}

async function copyPostgresBatch(executor: Executor, after: string | null, upTo: string, limit: number) {
  const start = after === null ? sql`` : sql`and id > ${after}`;
  const { rows } = await sql<{ n: string; last: string | null }>`with batch as (
      select * from page_views where id <= ${upTo} ${start} order by id limit ${limit} for share
    ), copied as (insert into page_views_next select * from batch on conflict do nothing)
    select count(*) as n, max(id) as last from batch`.execute(executor);
  return { rows: Number(rows[0].n), last: rows[0].last };
}

async function copySqliteBatch(executor: Executor, after: number, upTo: number, limit: number) {
  return executor.transaction().execute(async (trx) => {
    const { rows } = await sql<{ n: number; last: number | null }>`select count(*) as n, max(rowid) as last
      from (select rowid from page_views where rowid > ${after} and rowid <= ${upTo} order by rowid limit ${limit})`.execute(
      trx,
    );
    const { n, last } = rows[0];
    if (n > 0) {
      await sql`insert or ignore into page_views_next select * from page_views
        where rowid > ${after} and rowid <= ${last}`.execute(trx);
    }
    return { rows: Number(n), last };
  });
}

/**
 * The new table takes the old one's place in one short transaction; no write can fall between the
 * two (PostgreSQL: an exclusive lock on the old table, waited for up to 5 s and tried again).
 */
async function swap(db: Db): Promise<void> {
  const executor = db.kysely as Executor;
  for (let attempt = 1; ; attempt++) {
    try {
      await executor.transaction().execute(async (trx) => {
        if (db.dialect === 'postgres') {
          await sql`set local lock_timeout = '5s'`.execute(trx);
          await sql`lock table page_views in access exclusive mode`.execute(trx);
          await sql`drop trigger page_views_copy on page_views`.execute(trx);
          await sql`drop function page_views_copy()`.execute(trx);
        } else {
          for (const event of ['insert', 'update', 'delete'])
            await sql`drop trigger ${sql.raw(`page_views_copy_${event}`)}`.execute(trx);
        }
        await swapInNextTable(trx, db.dialect);
      });
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55P03' || attempt >= 10) throw error;
    }
  }
}
