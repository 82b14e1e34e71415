// One bounded batch of a range delete: at most `limit` rows of a project from the days before
// `beforeDay`, found through an index that starts with (project_id, day), deleted by their physical
// keys in one short statement. A single `delete … where day < ?` over millions of rows outlives
// the request timeout and deletes nothing; batches each finish in milliseconds and never hold a
// lock or a transaction for long, so tracking keeps writing between them.
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** The tables emptied by day, with the key that names a row on SQLite (null: the rowid). */
export const dayKeyedTables = {
  page_views: null,
  analytics_daily_visitors: ['project_id', 'day', 'visitor_id'],
  analytics_visitor_sets: ['project_id', 'day', 'scope', 'visitor_id'],
} as const;

export type DayKeyedTable = keyof typeof dayKeyedTables;

/** Deletes one batch; returns how many rows went (0: none of the project's days before is left). */
export async function deleteDayBatch(
  db: Kysely<Database>,
  table: DayKeyedTable,
  projectId: string,
  beforeDay: string,
  limit: number,
): Promise<number> {
  const name = sql.table(table);
  const key = keyOf(db, table);
  // In the order of the (project_id, day) index, so that the scan stops after `limit` rows.
  const rows = sql`select ${sql.raw(key.join(', '))} from ${name}
    where project_id = ${projectId} and day < ${beforeDay} order by day limit ${limit}`;
  if (!isPostgres(db)) {
    const result = await sql`delete from ${name} where (${sql.raw(key.join(', '))}) in (${rows})`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  }
  return db.transaction().execute(async (trx) => {
    // A plain index scan, which stops at the batch's last row. Statistics that lag a bulk insert
    // (a few rows expected) made the planner read the whole range into a bitmap and sort it:
    // 0.3 s a batch of 2,000 at 200,000 rows, and past the query timeout at millions.
    await sql`select set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`.execute(
      trx,
    );
    // A TID scan: the batch's rows are fetched by their addresses, not looked up again.
    const result = await sql`delete from ${name} where ctid = any(array(${rows}))`.execute(trx);
    return Number(result.numAffectedRows ?? 0);
  });
}

/** The oldest day of a project's rows in `table`, or null when it has none. */
export async function oldestDay(
  db: Kysely<Database>,
  table: DayKeyedTable,
  projectId: string,
): Promise<string | null> {
  // Ordered and limited rather than min(): the first entry of the (project_id, day) index.
  const row = await db
    .selectFrom(table)
    .select('day')
    .where('project_id', '=', projectId)
    .orderBy('day')
    .limit(1)
    .executeTakeFirst();
  return row?.day ?? null;
}

function keyOf(db: Kysely<Database>, table: DayKeyedTable): readonly string[] {
  if (isPostgres(db)) return ['ctid'];
  // SQLite's WITHOUT ROWID tables are named by their primary key, which a row value matches.
  return dayKeyedTables[table] ?? ['rowid'];
}

function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
