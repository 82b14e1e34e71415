// An article day's counts by hour and by reading time (analytics_article_days.hours, read_times)
// are stored as bytes, a varint for each key and count (analytics/rollups/packed-counts.ts), instead
// of text (`9:1:1:41250:8000,10:…`): the text was about 190 of an article day's 330 bytes on
// PostgreSQL, about 11 bytes a page view; packed it takes about a third.
//
// PostgreSQL gets folio_varint(bigint), the varint of an integer as JavaScript writes it (the
// rebuild packs its sums with it; SQLite's is a function of the connection, sqlite-connection.ts).
// The stored rows are converted at start, as migration 0042 moved them: rollups are about one row
// per article and day, not per view, and those past the retention cannot be summed again. On
// PostgreSQL the columns change type (one rewrite of the table, the text packed by a function of
// this migration); SQLite cannot change a column's type, so the table is made again and its rows
// copied, packed by sqlite-connection.ts's folio_packed_text. Measured on 300,000 article days of
// about 40 numbers each: 13.6 s on PostgreSQL, 3.0 s on SQLite. The view analytics_daily_articles
// is made again over the new columns, as 0042 made it.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const reachDeciles = Array.from({ length: 11 }, (_, decile) => `reach${decile}`);
const wide = ['time_on_page_ms', 'scroll_depth_centi'];
const narrow = [
  'views',
  'sdk_views',
  'bounced',
  'engaged',
  'reached25',
  'reached50',
  'reached75',
  'reached90',
  'visitors',
  ...reachDeciles,
];
const counted = [...wide, ...narrow];

export function packedArticleDays(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') await upPostgres(db);
      else await db.transaction().execute(upSqlite);
    },
  };
}

async function upPostgres(db: Kysely<any>): Promise<void> {
  await sql`create function folio_varint(value bigint) returns bytea
    language plpgsql immutable strict parallel safe as $$
    declare
      rest bigint := case when value >= 0 then value * 2 else -value * 2 - 1 end;
      bytes bytea := ''::bytea;
    begin
      while rest >= 128 loop
        bytes := bytes || set_byte('\\x00'::bytea, 0, (rest % 128)::int + 128);
        rest := rest / 128;
      end loop;
      return bytes || set_byte('\\x00'::bytea, 0, rest::int);
    end $$`.execute(db);
  // The text's numbers in order (entries by commas, numbers by colons), each one's varint. Only for
  // this conversion: a column's new type cannot be computed by a subquery, and a call for each
  // number (folio_varint) took 22.7 s where this takes 13.6.
  await sql`create function folio_packed_text(text text) returns bytea
    language plpgsql immutable strict as $$
    declare
      part text;
      rest bigint;
      bytes bytea := ''::bytea;
    begin
      if text = '' then
        return bytes;
      end if;
      foreach part in array regexp_split_to_array(text, '[,:]') loop
        rest := part::bigint;
        rest := case when rest >= 0 then rest * 2 else -rest * 2 - 1 end;
        while rest >= 128 loop
          bytes := bytes || set_byte('\\x00'::bytea, 0, (rest % 128)::int + 128);
          rest := rest / 128;
        end loop;
        bytes := bytes || set_byte('\\x00'::bytea, 0, rest::int);
      end loop;
      return bytes;
    end $$`.execute(db);
  await sql`drop view analytics_daily_articles`.execute(db);
  await sql`alter table analytics_article_days
    alter column hours drop default,
    alter column hours type bytea using folio_packed_text(hours),
    alter column hours set default ''::bytea,
    alter column read_times drop default,
    alter column read_times type bytea using folio_packed_text(read_times),
    alter column read_times set default ''::bytea`.execute(db);
  await sql`drop function folio_packed_text(text)`.execute(db);
  await createView(db);
}

async function upSqlite(trx: Kysely<any>): Promise<void> {
  const columns = [
    ...wide.map((name) => `${name} integer not null`),
    'project_num integer not null references project_nums (num) on delete cascade',
    'article_num integer not null',
    ...narrow.map((name) => `${name} integer not null`),
    'day text not null',
    `hours blob not null default x''`,
    `read_times blob not null default x''`,
    'constraint analytics_article_days_pk primary key (project_num, day, article_num)',
  ];
  await sql`drop view analytics_daily_articles`.execute(trx);
  await sql`create table analytics_article_days_packed (${sql.raw(columns.join(', '))}) without rowid`.execute(
    trx,
  );
  const packed = (column: string) => sql.raw(`folio_packed_text(d.${column})`);
  await sql`insert into analytics_article_days_packed (project_num, day, article_num, ${sql.raw(counted.join(', '))}, hours, read_times)
    select d.project_num, d.day, d.article_num, ${sql.raw(counted.map((name) => `d.${name}`).join(', '))},
      ${packed('hours')}, ${packed('read_times')}
    from analytics_article_days as d
    order by d.project_num, d.day, d.article_num`.execute(trx);
  await sql`drop table analytics_article_days`.execute(trx);
  await sql`alter table analytics_article_days_packed rename to analytics_article_days`.execute(trx);
  await sql`create index analytics_article_days_article on analytics_article_days (article_num, day)`.execute(
    trx,
  );
  await createView(trx);
}

async function createView(db: Kysely<any>): Promise<void> {
  await sql`create view analytics_daily_articles as
    select p.project_id, d.day, a.article_id, ${sql.raw(counted.map((name) => `d.${name}`).join(', '))},
      d.hours, d.read_times
    from analytics_article_days as d
      join project_nums as p on p.num = d.project_num
      join article_nums as a on a.num = d.article_num`.execute(db);
}
