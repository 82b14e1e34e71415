// The compact layout of page views on PostgreSQL (migration 0031), shared by the migration (an empty
// table takes it at once) and by `folio db convert-page-views` (an existing one is copied into it
// online, then swapped in). Frozen: a later layout comes with a migration and a conversion of its own.
//
// The keyed, partitioned table of migration 0020 with the strings of 0022, its columns typed rather
// than text where the values allow it: the day a `date` (4 bytes, not 11), the two times
// `timestamptz` (8 bytes, not 25), the small measures `smallint`. Columns come widest alignment
// first, so that no byte is lost to padding between them. Every value the code writes reads back the
// same: days are `YYYY-MM-DD` and times `toISOString()` text, both of which these types keep exactly
// (the driver reads them back as that text). SQLite stores every value by its own type, whatever
// the column's: its layout stays as it is.
import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../../database.ts';
import { nextMonth, partitionName } from './0020-keyed-page-views.ts';

/** The columns of the compact table, in their stored order, with their types. */
export const compactColumns: ReadonlyArray<readonly [string, string]> = [
  ['created_at', 'timestamptz not null'],
  ['updated_at', 'timestamptz not null'],
  ['time_on_page_ms', 'bigint not null'],
  ['exit_position', 'double precision'],
  ['day', 'date not null'],
  ['screen_width', 'integer'],
  ['screen_height', 'integer'],
  ['event_count', 'integer not null'],
  ['page_url_id', 'integer'],
  ['page_title_id', 'integer'],
  ['referrer_id', 'integer'],
  ['utm_source_id', 'integer'],
  ['utm_medium_id', 'integer'],
  ['utm_campaign_id', 'integer'],
  ['utm_term_id', 'integer'],
  ['utm_content_id', 'integer'],
  ['scroll_depth_centi', 'smallint not null'],
  ['bounced', 'smallint'],
  ['test', 'smallint not null default 0'],
  ['id', 'text collate "C" not null'],
  ['project_id', 'text collate "C" not null'],
  ['article_id', 'text collate "C" not null'],
  ['visitor_id', 'text not null'],
  ['session_id', 'text not null'],
  ['source', 'text not null'],
  ['country', 'text'],
  ['events', 'text not null'],
];

/** Whether `page_views` has the compact layout (always so on SQLite, which has only one). */
export async function hasCompactLayout(db: Kysely<any>, dialect: DialectName): Promise<boolean> {
  if (dialect === 'sqlite') return true;
  const { rows } = await sql<{
    type: string;
  }>`select format_type(atttypid, atttypmod) as type from pg_attribute
    where attrelid = 'page_views'::regclass and attname = 'created_at' and not attisdropped`.execute(db);
  return rows[0]?.type === 'timestamp with time zone';
}

/**
 * Creates `page_views_next`, empty, in the compact layout: keyed by (project_id, day, id),
 * partitioned by month of `day` with a default partition and those of `monthStarts`.
 */
export async function createCompactTable(db: Kysely<any>, monthStarts: string[]): Promise<void> {
  const columns = compactColumns.map(([name, type]) => `${name} ${type}`).join(', ');
  await sql`create table page_views_next (${sql.raw(columns)},
    constraint page_views_next_key primary key (project_id, day, id),
    constraint page_views_next_project foreign key (project_id) references projects (id) on delete cascade
  ) partition by range (day)`.execute(db);
  await sql`create table page_views_mdefault_next partition of page_views_next default`.execute(db);
  for (const start of monthStarts) {
    await sql`create table ${sql.table(`${partitionName(start)}_next`)} partition of page_views_next
      for values from (${sql.lit(start)}) to (${sql.lit(nextMonth(start))})`.execute(db);
  }
  // Index names are the schema's: the old table's goes at the swap, this one is renamed then.
  await sql`create index page_views_test_next on page_views_next (project_id, day, id) where test = 1`.execute(
    db,
  );
}

/**
 * Puts `page_views_next` in the place of `page_views` (in the caller's transaction) and drops the
 * old table, whose rows it must already hold; the partitions take the names of the old ones.
 */
export async function swapInCompactTable(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ name: string }>`select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid where i.inhparent = 'page_views_next'::regclass`.execute(db);
  await sql`drop table page_views`.execute(db);
  await sql`alter table page_views_next rename to page_views`.execute(db);
  for (const { name } of rows) {
    await sql`alter table ${sql.table(name)} rename to ${sql.table(name.replace(/_next$/, ''))}`.execute(db);
  }
  await sql`alter index page_views_test_next rename to page_views_test`.execute(db);
  await sql`alter table page_views rename constraint page_views_next_key to page_views_key`.execute(db);
  await sql`alter table page_views rename constraint page_views_next_project to page_views_project`.execute(
    db,
  );
}
