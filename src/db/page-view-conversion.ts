// `folio db convert-page-views`: gives an existing database the keyed page-view layout of migration
// 0020 (frozen/0020-keyed-page-views.ts) online. The new table is made beside the old one; triggers
// copy every write of the old table into it from then on; the rows already there are copied in
// batches of one short transaction each, in the order of the old key, so that tracking goes on
// between them; then one short transaction puts the new table in the old one's place. Stopped at any
// point, it starts again where the tables are: a row copied twice is kept once, a row the triggers
// copied is newer than the batch's copy and kept. Then the strings of the page views stored before
// migration 0022 move to page_view_strings (page-view-string-conversion.ts).
import { sql } from 'kysely';
import type { Db } from './database.ts';
import {
  createMonthPartitions,
  createNextTable,
  hasKeyedLayout,
  monthsBetween,
  nextTableName,
  swapInNextTable,
} from './migrations/frozen/0020-keyed-page-views.ts';
import { movePageViewStrings } from './page-view-string-conversion.ts';
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
