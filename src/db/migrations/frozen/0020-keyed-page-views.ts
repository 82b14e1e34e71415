// The layout of page views from migration 0020 on, shared by the migration (an empty table takes it
// at once) and by `folio db convert-page-views` (an existing one is copied into it online, then
// swapped in). Frozen: a later layout comes with a migration and a conversion of its own.
//
// The same columns in the same order, keyed by (project_id, day, id): the one index every query of
// page views uses (a project's days, a view by its id and the day the id begins with), instead of a
// key of ids and a second index of (project_id, day, id). SQLite stores the rows in the order of that
// key (WITHOUT ROWID); PostgreSQL partitions them by month of `day` (`page_views_mYYYY_MM`, and
// `page_views_mdefault` for the days of months without a partition, so that no write can fail for
// want of one), so that a month of page views is dropped as a whole.
import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../../database.ts';

export const nextTableName = 'page_views_next';

/** Whether `page_views` already has this layout. */
export async function hasKeyedLayout(db: Kysely<any>, dialect: DialectName): Promise<boolean> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ kind: string }>`select relkind as kind from pg_class
      where relname = 'page_views' and relnamespace = current_schema()::regnamespace`.execute(db);
    return rows[0]?.kind === 'p';
  }
  const { rows } = await sql<{
    sql: string;
  }>`select sql from sqlite_schema where name = 'page_views'`.execute(db);
  return /without\s+rowid/i.test(rows[0]?.sql ?? '');
}

/** Creates `page_views_next`, empty, with the columns of `page_views` in the keyed layout. */
export async function createNextTable(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') {
    await sql`create table page_views_next (like page_views including defaults including constraints,
      constraint page_views_next_key primary key (project_id, day, id),
      constraint page_views_next_project foreign key (project_id) references projects (id) on delete cascade
    ) partition by range (day)`.execute(db);
    await sql`create table page_views_mdefault partition of page_views_next default`.execute(db);
    await testViewsIndex(db);
    return;
  }
  const { rows } = await sql<{ name: string; type: string; notnull: number; dflt_value: string | null }>`
    select name, type, "notnull", dflt_value from pragma_table_info('page_views') order by cid`.execute(db);
  const columns = rows.map(
    (column) =>
      `"${column.name}" ${column.type}${column.notnull ? ' not null' : ''}${
        column.dflt_value === null ? '' : ` default ${column.dflt_value}`
      }`,
  );
  await sql`create table page_views_next (${sql.raw(columns.join(', '))},
    primary key (project_id, day, id),
    foreign key (project_id) references projects (id) on delete cascade
  ) without rowid`.execute(db);
  await testViewsIndex(db);
}

/**
 * Migration 0018's partial index of the test views moves to the new table at once (index names are
 * the schema's, not the table's): reads that include test views scan the old table's rows without it
 * until the swap, which then has no index to build.
 */
async function testViewsIndex(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists page_views_test`.execute(db);
  await sql`create index page_views_test on page_views_next (project_id, day, id) where test = 1`.execute(db);
}

/** The first day of each month from `first` to `last` (`YYYY-MM-DD` days), in order. */
export function monthsBetween(first: string, last: string): string[] {
  const months: string[] = [];
  let [year, month] = first.split('-').map(Number);
  const end = last.slice(0, 7);
  for (;;) {
    const name = `${year}-${String(month).padStart(2, '0')}`;
    if (name > end) return months;
    months.push(`${name}-01`);
    [year, month] = month === 12 ? [year + 1, 1] : [year, month + 1];
  }
}

/** The day after the month of `monthStart`: the partition's upper bound. */
export function nextMonth(monthStart: string): string {
  const [year, month] = monthStart.split('-').map(Number);
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
}

/** The name of the partition of the month starting on `monthStart`. */
export function partitionName(monthStart: string): string {
  return `page_views_m${monthStart.slice(0, 4)}_${monthStart.slice(5, 7)}`;
}

/**
 * PostgreSQL: the partition of each month of `monthStarts` of `table` that has none yet. Only while
 * the default partition holds no row of that month (a new table, or ahead of time).
 */
export async function createMonthPartitions(
  db: Kysely<any>,
  table: string,
  monthStarts: string[],
): Promise<void> {
  for (const start of monthStarts) {
    await sql`create table if not exists ${sql.table(partitionName(start))} partition of ${sql.table(table)}
      for values from (${sql.lit(start)}) to (${sql.lit(nextMonth(start))})`.execute(db);
  }
}

/**
 * Puts `page_views_next` in the place of `page_views` (in the caller's transaction) and drops the
 * old table, whose rows it must already hold.
 */
export async function swapInNextTable(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await sql`alter table page_views rename to page_views_old`.execute(db);
  await sql`alter table page_views_next rename to page_views`.execute(db);
  if (dialect === 'postgres') {
    await sql`alter table page_views rename constraint page_views_next_key to page_views_key`.execute(db);
    await sql`alter table page_views rename constraint page_views_next_project to page_views_project`.execute(
      db,
    );
  }
}
