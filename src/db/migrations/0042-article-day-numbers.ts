// An article's daily rollup rows move to `analytics_article_days`, keyed by the project's and the
// article's numbers (migration 0039) instead of their ids: 8 bytes where two UUIDs as text took 74,
// in the row, in its primary key and (the article's) in the index of an article's days. With about
// one row per article and day that has a view, that is most of what the rows cost beyond their
// counts. `analytics_daily_articles` becomes a view of the new table with the ids joined back, the
// columns it had: every query that reads an article's days reads it as before; the roll-ups and the
// rebuild write the table.
//
// The rows are copied in one INSERT … SELECT, as migration 0024 made them: rollups are about one row
// per article and day, far fewer than page views, and those past the retention cannot be summed
// again, so they are moved rather than rebuilt. An article deleted before migration 0039 (its rows
// outlive it) gets its number here.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const reachDeciles = Array.from({ length: 11 }, (_, decile) => `reach${decile}`);
/** The counted columns, those summing times and depths first (8 bytes on PostgreSQL). */
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

export function articleDayNumbers(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const apply = async (trx: Kysely<any>) => {
        const key = dialect === 'postgres' ? 'text collate "C"' : 'text';
        const sum = dialect === 'postgres' ? 'bigint' : 'integer';
        // Widest alignment first on PostgreSQL, so that no byte is lost to padding.
        const columns = [
          ...wide.map((name) => `${name} ${sum} not null`),
          'project_num integer not null references project_nums (num) on delete cascade',
          'article_num integer not null',
          ...narrow.map((name) => `${name} integer not null`),
          `day ${key} not null`,
          `hours text not null default ''`,
          `read_times text not null default ''`,
          'constraint analytics_article_days_pk primary key (project_num, day, article_num)',
        ];
        await sql`create table analytics_article_days (${sql.raw(columns.join(', '))})
          ${sql.raw(dialect === 'sqlite' ? 'without rowid' : '')}`.execute(trx);

        const orIgnore = dialect === 'sqlite' ? sql`or ignore` : sql``;
        const onConflict = dialect === 'postgres' ? sql`on conflict do nothing` : sql``;
        await sql`insert ${orIgnore} into article_nums (article_id, project_id)
          select distinct d.article_id, d.project_id from analytics_daily_articles as d
          where not exists (select 1 from article_nums as n where n.article_id = d.article_id)
          order by d.project_id, d.article_id ${onConflict}`.execute(trx);
        const copied = counted.join(', ');
        await sql`insert into analytics_article_days (project_num, day, article_num, ${sql.raw(copied)}, hours, read_times)
          select p.num, d.day, a.num, ${sql.raw(counted.map((name) => `d.${name}`).join(', '))}, d.hours, d.read_times
          from analytics_daily_articles as d
            join project_nums as p on p.project_id = d.project_id
            join article_nums as a on a.article_id = d.article_id
          order by p.num, d.day, a.num`.execute(trx);
        await sql`drop table analytics_daily_articles`.execute(trx);
        await sql`create index analytics_article_days_article on analytics_article_days (article_num, day)`.execute(
          trx,
        );
        await sql`create view analytics_daily_articles as
          select p.project_id, d.day, a.article_id, ${sql.raw(counted.map((name) => `d.${name}`).join(', '))},
            d.hours, d.read_times
          from analytics_article_days as d
            join project_nums as p on p.num = d.project_num
            join article_nums as a on a.num = d.article_num`.execute(trx);
      };
      if (dialect === 'sqlite') await db.transaction().execute(apply);
      else await apply(db);
    },
  };
}
