// Page views move to `page_view_rows`, each value in its most compact exact form (db/page-view-rows.ts
// says which): about half the bytes of `page_views`. The migration only makes the empty table, at
// once: this release writes every new page view there, and moves those of `page_views` across in
// short batches while it tracks (db/page-view-move.ts), the newest first, or all at once with
// `folio db convert-page-views`. `page_views` stays, so that an instance of an older release still
// running writes where it always did; its rows are moved in turn.
//
// Keyed by (project_num, day, created_ms, rid): a page view's id gives the whole key, and a window of
// time is a range of it (the realtime figures, an export in time order). On PostgreSQL partitioned
// by month of `day`, as page_views was (`page_view_rows_mYYYY_MM`, and `page_view_rows_mdefault` for
// a month without its own).
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const monthsAround = (now: Date): string[] =>
  [-1, 0, 1, 2].map((offset) =>
    new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString().slice(0, 10),
  );

export function pageViewRows(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'sqlite') await createSqliteTable(db);
      else await createPostgresTable(db);
      // The test views, which the reports read from the raw rows when asked (migration 0018's).
      await sql`create index page_view_rows_test on page_view_rows (project_num, day, created_ms, rid) where test = 1`.execute(
        db,
      );
    },
    async down(db: Kysely<any>) {
      await sql`drop table page_view_rows`.execute(db);
    },
  };
}

async function createSqliteTable(db: Kysely<any>): Promise<void> {
  await sql`create table page_view_rows (
    project_num integer not null references project_nums (num) on delete cascade,
    day text not null,
    rid blob not null,
    article_num integer not null,
    created_ms integer not null,
    updated_ms integer not null,
    visitor blob not null,
    session blob not null,
    source integer not null,
    test integer not null,
    country text,
    time_on_page_ms integer not null,
    scroll_depth_centi integer not null,
    exit_position real,
    bounced integer,
    screen_width integer,
    screen_height integer,
    event_count integer not null,
    page_url_id integer,
    page_title_id integer,
    referrer_id integer,
    utm_source_id integer,
    utm_medium_id integer,
    utm_campaign_id integer,
    utm_term_id integer,
    utm_content_id integer,
    events text,
    id_text text,
    visitor_text text,
    session_text text,
    primary key (project_num, day, created_ms, rid)
  ) without rowid`.execute(db);
}

async function createPostgresTable(db: Kysely<any>): Promise<void> {
  // Widest alignment first, so that no byte is lost to padding; uuid needs none.
  await sql`create table page_view_rows (
    exit_position double precision,
    day date not null,
    project_num integer not null references project_nums (num) on delete cascade,
    article_num integer not null,
    created_ms integer not null,
    updated_ms integer not null,
    time_on_page_ms integer not null,
    screen_width integer,
    screen_height integer,
    event_count integer not null,
    page_url_id integer,
    page_title_id integer,
    referrer_id integer,
    utm_source_id integer,
    utm_medium_id integer,
    utm_campaign_id integer,
    utm_term_id integer,
    utm_content_id integer,
    scroll_depth_centi smallint not null,
    bounced smallint,
    source smallint not null,
    test smallint not null,
    rid uuid not null,
    visitor uuid not null,
    session uuid not null,
    country text,
    events text,
    id_text text,
    visitor_text text,
    session_text text,
    constraint page_view_rows_key primary key (project_num, day, created_ms, rid)
  ) partition by range (day)`.execute(db);
  await sql`create table page_view_rows_mdefault partition of page_view_rows default`.execute(db);
  for (const start of monthsAround(new Date())) {
    const [year, month] = start.split('-').map(Number);
    const next = new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 10);
    await sql`create table ${sql.table(`page_view_rows_m${start.slice(0, 4)}_${start.slice(5, 7)}`)}
      partition of page_view_rows for values from (${sql.lit(start)}) to (${sql.lit(next)})`.execute(db);
  }
}
