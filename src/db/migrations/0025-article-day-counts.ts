// An article's hours and reading times move into its daily rollup row, as text: `key:count…`
// entries joined by commas in ascending key order, without all-zero entries (hours: hour of the
// day, views, visitors, time on page, scroll depth; reading times: bucket in seconds, views, deep
// views). A quiet article has a view or two a day, each in its own hour and bucket: a row per
// hour (analytics_series 'h' of an article) and per bucket (analytics_read_times) cost a row
// header and a primary-key entry of two text UUIDs for a count or two.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function articleDayCounts(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const apply = async (trx: Kysely<any>) => {
        for (const column of ['hours', 'read_times']) {
          await sql`alter table analytics_daily_articles
            add column ${sql.raw(column)} text not null default ''`.execute(trx);
        }
        const counters = sql.raw(
          'views, sdk_views, time_on_page_ms, scroll_depth_centi, bounced, engaged, reached25, reached50, reached75, reached90',
        );
        const zeros = sql.raw(new Array(10).fill('0').join(', '));
        const text = (column: string) => sql.raw(`cast(${column} as text)`);
        // string_agg with ORDER BY: PostgreSQL, and SQLite from 3.44 (node:sqlite ships a later one).
        await sql`insert into analytics_daily_articles (project_id, day, article_id, ${counters}, hours)
          select project_id, substr(bucket, 1, 10), article_id, ${zeros},
            string_agg(${text('cast(substr(bucket, 12, 2) as integer)')} || ':' || ${text('views')} || ':' || ${text('visitors')}
              || ':' || ${text('time_on_page_ms')} || ':' || ${text('scroll_depth_centi')}, ',' order by bucket)
          from analytics_series
          where article_id <> '' and granularity = 'h'
            and (views <> 0 or visitors <> 0 or time_on_page_ms <> 0 or scroll_depth_centi <> 0)
          group by project_id, substr(bucket, 1, 10), article_id
          on conflict (project_id, day, article_id) do update set hours = excluded.hours`.execute(trx);
        await sql`insert into analytics_daily_articles (project_id, day, article_id, ${counters}, read_times)
          select project_id, day, article_id, ${zeros},
            string_agg(${text('seconds')} || ':' || ${text('views')} || ':' || ${text('deep_views')}, ',' order by seconds)
          from analytics_read_times
          where views <> 0 or deep_views <> 0
          group by project_id, day, article_id
          on conflict (project_id, day, article_id) do update set read_times = excluded.read_times`.execute(
          trx,
        );
        await sql`delete from analytics_series where article_id <> ''`.execute(trx);
        await sql`drop table analytics_read_times`.execute(trx);
      };
      if (dialect === 'sqlite') await db.transaction().execute(apply);
      else await apply(db);
    },
  };
}
