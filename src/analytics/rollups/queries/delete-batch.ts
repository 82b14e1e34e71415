// One bounded batch of a range delete: at most `limit` rows of a project from the days before
// `beforeDay`, in the order of an index that starts with (project_id, day), deleted in one short
// statement. A single `delete … where day < ?` over millions of rows outlives the request timeout
// and deletes nothing; batches each finish in milliseconds and never hold a lock or a transaction
// for long, so tracking keeps writing between them.
import { sql } from 'kysely';
import { dialectOf } from '../../../db/dialect-sql.ts';
import type { Executor } from '../../../db/schema.ts';
import { projectNumSql } from '../../../db/id-numbers.ts';

/**
 * The tables emptied by day, with the columns after the project's of the index a batch walks: the
 * primary key of the visitor tables, (project_num, day, created_ms, rid) for page views (migration
 * 0040) and (project_id, day, id) for those an older release left in page_views.
 */
const indexKeys = {
  page_view_rows: ['day', 'created_ms', 'rid'],
  page_views: ['day', 'id'],
  analytics_daily_visitors: ['day', 'visitor_id'],
  analytics_visitor_sets: ['day', 'scope', 'visitor_id'],
  analytics_visitor_entries: ['day', 'entry'],
} as const;

/** The tables that name a project by its number (migration 0039). */
const byProjectNum = new Set<DayKeyedTable>(['page_view_rows', 'analytics_visitor_entries']);

/** The column naming a row's project, and the SQL of its value for a project's id. */
function projectOf(table: DayKeyedTable, projectId: string) {
  return byProjectNum.has(table)
    ? { name: 'project_num', value: projectNumSql(projectId) }
    : { name: 'project_id', value: sql`${projectId}` };
}

export type DayKeyedTable = keyof typeof indexKeys;

export interface DayBatch {
  deleted: number;
  /** Where the next batch starts (after this key); null once a batch found nothing. */
  after: string[] | null;
}

/** Deletes one batch, starting after the key `after` (PostgreSQL) or at the first row left. */
export function deleteDayBatch(
  executor: Executor,
  table: DayKeyedTable,
  projectId: string,
  beforeDay: string,
  limit: number,
  after: string[] | null = null,
): Promise<DayBatch> {
  return dialectOf(executor) === 'postgres'
    ? deletePostgresBatch(executor, table, projectId, beforeDay, limit, after)
    : deleteSqliteBatch(executor, table, projectId, beforeDay, limit);
}

/**
 * SQLite removes a deleted row from its indexes at once: each batch takes the first rows left,
 * named by the columns of the index it walks (the key of page views kept WITHOUT ROWID, which have
 * no rowid, and an index of the older layout).
 */
async function deleteSqliteBatch(
  executor: Executor,
  table: DayKeyedTable,
  projectId: string,
  beforeDay: string,
  limit: number,
): Promise<DayBatch> {
  const project = projectOf(table, projectId);
  const key = sql.raw([project.name, ...indexKeys[table]].join(', '));
  const result = await sql`delete from ${sql.table(table)} where (${key}) in (
    select ${key} from ${sql.table(table)}
    where ${sql.raw(project.name)} = ${project.value} and day < ${beforeDay} order by day limit ${limit})`.execute(
    executor,
  );
  const deleted = Number(result.numAffectedRows ?? 0);
  return { deleted, after: deleted === 0 ? null : [] };
}

/**
 * PostgreSQL keeps a deleted row's index entries until a vacuum, and while any transaction older
 * than the delete is open (a long import, a backup) a scan cannot skip them: batches that each
 * started from the first day read every entry deleted before them (measured: 26 ms a batch of
 * 2,000 at first, 200 ms after 300 batches). Each batch starts after the last key of the one
 * before, in a plain index scan that stops after `limit` rows: statistics that lag a bulk insert
 * made the planner read the whole range into a bitmap and sort it instead (0.3 s a batch at
 * 200,000 rows). The rows are deleted by their addresses (a TID scan), each with its table: a
 * partition of page views has addresses of its own, so that the same address names a row of this
 * month and one of a month past the retention.
 *
 * A batch takes only rows no other transaction holds (`for update skip locked`), and the delete
 * touches no other: two instances cleaning up at once never wait for each other's rows. Deleting
 * without that, they deadlocked now and then (CI: 'deadlock detected while deleting tuple in
 * relation "analytics_visitor_sets"'). A row skipped is deleted by whoever holds it, or by a later
 * walk or run.
 */
async function deletePostgresBatch(
  executor: Executor,
  table: DayKeyedTable,
  projectId: string,
  beforeDay: string,
  limit: number,
  after: string[] | null,
): Promise<DayBatch> {
  const name = sql.table(table);
  const columns = sql.raw(indexKeys[table].join(', '));
  // As text: page views' day is a date in the compact layout (migration 0031), its id text.
  const texts = sql.raw(indexKeys[table].map((column) => `cast(${column} as text)`).join(', '));
  const descending = sql.raw(indexKeys[table].map((column) => `${column} desc`).join(', '));
  const start = after === null ? sql`` : sql`and (${columns}) > (${sql.join(after)})`;
  const project = projectOf(table, projectId);
  return executor.transaction().execute(async (trx) => {
    await sql`select set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`.execute(
      trx,
    );
    const { rows } = await sql<{ deleted: number; last: string[] }>`with batch as (
        select tableoid, ctid, ${columns} from ${name}
        where ${sql.raw(project.name)} = ${project.value} and day < ${beforeDay} ${start}
        order by ${sql.raw(project.name)}, ${columns} limit ${limit}
        for update skip locked
      ), gone as (delete from ${name} where ctid = any(array(select ctid from batch))
        and (tableoid, ctid) in (select tableoid, ctid from batch) returning 1)
      select (select count(*) from gone) as deleted, array[${texts}] as last
      from (select ${columns} from batch order by ${descending} limit 1) as last_row`.execute(trx);
    return rows.length === 0
      ? { deleted: 0, after: null }
      : { deleted: Number(rows[0].deleted), after: rows[0].last };
  });
}

/** The oldest day of a project's rows in `table`, or null when it has none. */
export async function oldestDay(
  executor: Executor,
  table: DayKeyedTable,
  projectId: string,
): Promise<string | null> {
  // Ordered and limited rather than min(): the first entry of the (project, day) index.
  const project = projectOf(table, projectId);
  const { rows } = await sql<{ day: string }>`select cast(day as text) as day from ${sql.table(table)}
    where ${sql.raw(project.name)} = ${project.value} order by day limit 1`.execute(executor);
  return rows[0]?.day ?? null;
}
