// The monthly partitions of page views on PostgreSQL (page_view_rows, migration 0040, as page_views
// from migration 0020): made ahead of time, and dropped whole by the retention. A month without a
// partition is not an error: its rows go to the default partition until the month's partition is
// made, which then takes them over. page_views, which only an older release still running writes,
// has its past months dropped too.
import { sql } from 'kysely';
import { dialectOf } from './dialect-sql.ts';
import type { Executor } from './schema.ts';
import { monthsBetween, nextMonth } from './migrations/frozen/0020-keyed-page-views.ts';

type PartitionedTable = 'page_view_rows' | 'page_views';

/** The partition of `table` of the month starting on `monthStart`: `<table>_mYYYY_MM`. */
export function partitionName(table: PartitionedTable, monthStart: string): string {
  return `${table}_m${monthStart.slice(0, 4)}_${monthStart.slice(5, 7)}`;
}

/** How many months after the current one have a partition made ahead. */
const monthsAhead = 2;

/** Whether `table` is partitioned (PostgreSQL; page_views once migrated or converted to the keyed layout). */
export async function pageViewsArePartitioned(
  executor: Executor,
  table: PartitionedTable = 'page_view_rows',
): Promise<boolean> {
  if (dialectOf(executor) !== 'postgres') return false;
  const { rows } = await sql<{ kind: string }>`select relkind as kind from pg_class
    where relname = ${table} and relnamespace = current_schema()::regnamespace`.execute(executor);
  return rows[0]?.kind === 'p';
}

/** The monthly partitions of `table`, by the first day of their month. */
async function monthPartitions(executor: Executor, table: PartitionedTable): Promise<string[]> {
  const prefix = `${table}_m`;
  const { rows } = await sql<{ name: string }>`select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${table}::regclass and c.relname ~ ${`^${prefix}[0-9]{4}_[0-9]{2}$`}`.execute(
    executor,
  );
  const at = prefix.length;
  return rows.map((row) => `${row.name.slice(at, at + 4)}-${row.name.slice(at + 5, at + 7)}-01`).sort();
}

/**
 * Makes the partitions of this month and the next two (none on SQLite or before the conversion).
 * A month whose rows went to the default partition meanwhile gets them moved in the same
 * transaction. Two instances at once: one makes it, the other finds it made.
 */
export async function preparePageViewPartitions(executor: Executor, now: Date): Promise<string[]> {
  if (!(await pageViewsArePartitioned(executor))) return [];
  const present = new Set(await monthPartitions(executor, 'page_view_rows'));
  const today = now.toISOString().slice(0, 10);
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + monthsAhead, 1));
  const made: string[] = [];
  for (const month of monthsBetween(today, last.toISOString().slice(0, 10))) {
    if (present.has(month)) continue;
    await makeMonthPartition(executor, month);
    made.push(month);
  }
  return made;
}

/** The partition of the month starting on `month`, with the rows the default partition holds of it. */
export async function makeMonthPartition(executor: Executor, month: string): Promise<void> {
  const name = sql.table(partitionName('page_view_rows', month));
  const [from, to] = [sql.lit(month), sql.lit(nextMonth(month))];
  await executor.transaction().execute(async (trx) => {
    // Attaching checks that the default partition holds no row of the month: none comes in meanwhile.
    await sql`lock table page_view_rows_mdefault in share row exclusive mode`.execute(trx);
    const { rows } = await sql<{
      made: boolean;
    }>`select to_regclass(${partitionName('page_view_rows', month)}) is not null as made`.execute(trx);
    if (rows[0].made) return;
    await sql`create table ${name} (like page_view_rows including defaults including constraints)`.execute(
      trx,
    );
    await sql`with moved as (delete from page_view_rows_mdefault where day >= ${from} and day < ${to} returning *)
      insert into ${name} select * from moved`.execute(trx);
    await sql`alter table page_view_rows attach partition ${name} for values from (${from}) to (${to})`.execute(
      trx,
    );
  });
}

/**
 * Drops the partitions of the months that end on or before `before` (every row older than the
 * retention); returns how many page views went. Dropping a partition waits for the queries of
 * page views under way; one that cannot have its lock within a second is left to the next run.
 */
export async function dropPageViewMonthsBefore(executor: Executor, before: string): Promise<number> {
  let dropped = 0;
  for (const table of ['page_view_rows', 'page_views'] as const) {
    if (!(await pageViewsArePartitioned(executor, table))) continue;
    for (const month of await monthPartitions(executor, table)) {
      if (nextMonth(month) > before) break;
      const name = sql.table(partitionName(table, month));
      dropped += await executor
        .transaction()
        .execute(async (trx) => {
          await sql`set local lock_timeout = '1s'`.execute(trx);
          await sql`lock table ${sql.table(table)} in access exclusive mode`.execute(trx);
          const { rows } = await sql<{ n: string }>`select count(*) as n from ${name}`.execute(trx);
          await sql`drop table ${name}`.execute(trx);
          return Number(rows[0].n);
        })
        .catch((error: { code?: string }) => {
          if (error.code === '55P03') return 0;
          throw error;
        });
    }
  }
  return dropped;
}
