// The monthly partitions of page views on PostgreSQL (the layout of migration 0020): made ahead of
// time, and dropped whole by the retention. A month without a partition is not an error: its rows go
// to the default partition until the month's partition is made, which then takes them over.
import { PostgresAdapter, sql } from 'kysely';
import type { Executor } from './schema.ts';
import { monthsBetween, nextMonth, partitionName } from './migrations/frozen/0020-keyed-page-views.ts';

/** How many months after the current one have a partition made ahead. */
const monthsAhead = 2;

/** Whether page views are partitioned (PostgreSQL, once migrated or converted to the keyed layout). */
export async function pageViewsArePartitioned(executor: Executor): Promise<boolean> {
  if (!(executor.getExecutor().adapter instanceof PostgresAdapter)) return false;
  const { rows } = await sql<{ kind: string }>`select relkind as kind from pg_class
    where relname = 'page_views' and relnamespace = current_schema()::regnamespace`.execute(executor);
  return rows[0]?.kind === 'p';
}

/** The monthly partitions of page views, by the first day of their month. */
async function monthPartitions(executor: Executor): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'page_views'::regclass and c.relname ~ '^page_views_m[0-9]{4}_[0-9]{2}$'`.execute(
    executor,
  );
  return rows.map((row) => `${row.name.slice(12, 16)}-${row.name.slice(17, 19)}-01`).sort();
}

/**
 * Makes the partitions of this month and the next two (none on SQLite or before the conversion).
 * A month whose rows went to the default partition meanwhile gets them moved in the same
 * transaction. Two instances at once: one makes it, the other finds it made.
 */
export async function preparePageViewPartitions(executor: Executor, now: Date): Promise<string[]> {
  if (!(await pageViewsArePartitioned(executor))) return [];
  const present = new Set(await monthPartitions(executor));
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
  const name = sql.table(partitionName(month));
  const [from, to] = [sql.lit(month), sql.lit(nextMonth(month))];
  await executor.transaction().execute(async (trx) => {
    // Attaching checks that the default partition holds no row of the month: none comes in meanwhile.
    await sql`lock table page_views_mdefault in share row exclusive mode`.execute(trx);
    const { rows } = await sql<{
      made: boolean;
    }>`select to_regclass(${partitionName(month)}) is not null as made`.execute(trx);
    if (rows[0].made) return;
    await sql`create table ${name} (like page_views including defaults including constraints)`.execute(trx);
    await sql`with moved as (delete from page_views_mdefault where day >= ${from} and day < ${to} returning *)
      insert into ${name} select * from moved`.execute(trx);
    await sql`alter table page_views attach partition ${name} for values from (${from}) to (${to})`.execute(
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
  if (!(await pageViewsArePartitioned(executor))) return 0;
  let dropped = 0;
  for (const month of await monthPartitions(executor)) {
    if (nextMonth(month) > before) break;
    const name = sql.table(partitionName(month));
    dropped += await executor
      .transaction()
      .execute(async (trx) => {
        await sql`set local lock_timeout = '1s'`.execute(trx);
        await sql`lock table page_views in access exclusive mode`.execute(trx);
        const { rows } = await sql<{ n: string }>`select count(*) as n from ${name}`.execute(trx);
        await sql`drop table ${name}`.execute(trx);
        return Number(rows[0].n);
      })
      .catch((error: { code?: string }) => {
        if (error.code === '55P03') return 0;
        throw error;
      });
  }
  return dropped;
}
