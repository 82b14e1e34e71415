// One rollup row per article and day. analytics_daily_articles takes what other tables held under
// the same (project, day, article) key: the article's distinct visitors of the day (its 'd' row of
// analytics_series, whose other sums repeated the daily row's), its reach deciles
// (analytics_reading), and, as text, its counts by hour (its 'h' rows of analytics_series) and by
// reading time (analytics_read_times): `key:count…` entries joined by commas in ascending key
// order, without all-zero entries. A quiet article has a view or two a day, each in its own hour
// and reading-time bucket; every one of those rows paid a row header and a primary-key entry of two
// text UUIDs for a count or two.
//
// On PostgreSQL the day's counts take 4 bytes (sums of times and depths keep 8: a popular article's
// milliseconds of a day pass 2^31), and the index finding an article's days names the article and
// the day only (article ids are unique across projects). The table is made anew in one pass, then
// swapped in: the former rows are rollups (about one per page view), and one INSERT … SELECT costs
// far less than updating each row once per moved table.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const reachDeciles = Array.from({ length: 11 }, (_, decile) => `reach${decile}`);
const counters = [
  ['views', 'count'],
  ['sdk_views', 'count'],
  ['time_on_page_ms', 'sum'],
  ['scroll_depth_centi', 'sum'],
  ['bounced', 'count'],
  ['engaged', 'count'],
  ['reached25', 'count'],
  ['reached50', 'count'],
  ['reached75', 'count'],
  ['reached90', 'count'],
] as const;

export function articleDays(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const apply = async (trx: Kysely<any>) => {
        const key = dialect === 'postgres' ? 'text collate "C"' : 'text';
        const sum = dialect === 'postgres' ? 'bigint' : 'integer';
        const columns = [
          `project_id ${key} not null references projects (id) on delete cascade`,
          `day ${key} not null`,
          `article_id ${key} not null`,
          ...counters.map(([name, kind]) => `${name} ${kind === 'sum' ? sum : 'integer'} not null`),
          'visitors integer not null',
          ...reachDeciles.map((name) => `${name} integer not null`),
          `hours text not null default ''`,
          `read_times text not null default ''`,
          'constraint analytics_daily_articles_next_pk primary key (project_id, day, article_id)',
        ];
        await sql`create table analytics_daily_articles_next (${sql.raw(columns.join(', '))})
          ${sql.raw(dialect === 'sqlite' ? 'without rowid' : '')}`.execute(trx);

        await fillArticleDays(trx);

        await sql`drop table analytics_daily_articles`.execute(trx);
        await sql`drop table analytics_reading`.execute(trx);
        await sql`drop table analytics_read_times`.execute(trx);
        await sql`delete from analytics_series where article_id <> ''`.execute(trx);
        await sql`alter table analytics_daily_articles_next rename to analytics_daily_articles`.execute(trx);
        if (dialect === 'postgres') {
          // The former table's name for the constraint and its index (renamed with it).
          await sql`alter table analytics_daily_articles
            rename constraint analytics_daily_articles_next_pk to analytics_daily_articles_pk`.execute(trx);
        }
        await sql`create index analytics_daily_articles_article
          on analytics_daily_articles (article_id, day)`.execute(trx);
      };
      if (dialect === 'sqlite') await db.transaction().execute(apply);
      else await apply(db);
    },
  };
}

/** Fills analytics_daily_articles_next from the former tables, every figure of every article day. */
async function fillArticleDays(trx: Kysely<any>): Promise<void> {
  const text = (expression: string) => `cast(${expression} as text)`;
  // string_agg with ORDER BY: PostgreSQL, and SQLite from 3.44 (node:sqlite ships a later one).
  const joined = (parts: string[], order: string) =>
    `string_agg(${parts.map(text).join(` || ':' || `)}, ',' order by ${order})`;
  const same = (table: string) =>
    `${table}.project_id = k.project_id and ${table}.day = k.day and ${table}.article_id = k.article_id`;
  const names = [
    'project_id',
    'day',
    'article_id',
    ...counters.map(([name]) => name),
    'visitors',
    ...reachDeciles,
    'hours',
    'read_times',
  ];
  await sql`with hourly as (
        select project_id, substr(bucket, 1, 10) as day, article_id,
          ${sql.raw(joined(['cast(substr(bucket, 12, 2) as integer)', 'views', 'visitors', 'time_on_page_ms', 'scroll_depth_centi'], 'bucket'))} as packed
        from analytics_series
        where article_id <> '' and granularity = 'h'
          and (views <> 0 or visitors <> 0 or time_on_page_ms <> 0 or scroll_depth_centi <> 0)
        group by project_id, substr(bucket, 1, 10), article_id),
      timed as (
        select project_id, day, article_id,
          ${sql.raw(joined(['seconds', 'views', 'deep_views'], 'seconds'))} as packed
        from analytics_read_times where views <> 0 or deep_views <> 0
        group by project_id, day, article_id),
      daily as (
        select project_id, bucket as day, article_id, visitors from analytics_series
        where article_id <> '' and granularity = 'd'),
      article_days as (
        select project_id, day, article_id from analytics_daily_articles
        union select project_id, day, article_id from daily
        union select project_id, day, article_id from analytics_reading
        union select project_id, day, article_id from hourly
        union select project_id, day, article_id from timed)
      insert into analytics_daily_articles_next (${sql.raw(names.join(', '))})
      select k.project_id, k.day, k.article_id,
        ${sql.raw(counters.map(([name]) => `coalesce(d.${name}, 0)`).join(', '))},
        coalesce(s.visitors, 0),
        ${sql.raw(reachDeciles.map((name) => `coalesce(r.${name}, 0)`).join(', '))},
        coalesce(h.packed, ''), coalesce(t.packed, '')
      from article_days as k
        left join analytics_daily_articles as d on ${sql.raw(same('d'))}
        left join daily as s on ${sql.raw(same('s'))}
        left join analytics_reading as r on ${sql.raw(same('r'))}
        left join hourly as h on ${sql.raw(same('h'))}
        left join timed as t on ${sql.raw(same('t'))}`.execute(trx);
}
