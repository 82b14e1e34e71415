// One rollup row per article and day: analytics_daily_articles takes the article's distinct
// visitors of the day (until now its 'd' row of analytics_series, whose other sums repeated the
// daily row's) and its reach deciles (until now analytics_reading). Each row of those tables paid
// a row header and a primary-key entry with the same text key as the daily row.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const reachDeciles = Array.from({ length: 11 }, (_, decile) => `reach${decile}`);

export function articleDays(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const apply = async (trx: Kysely<any>) => {
        // A day's counts of one article fit in 32 bits; PostgreSQL then stores 4 bytes each, not 8.
        for (const column of ['visitors', ...reachDeciles]) {
          await sql`alter table analytics_daily_articles
            add column ${sql.raw(column)} integer not null default 0`.execute(trx);
        }
        // Every (project, day, article) of either table gets its row, whether or not the daily
        // table had one; `where true` lets SQLite read ON CONFLICT after a SELECT.
        const zeros = sql.raw(['0', '0', '0', '0', '0', '0', '0', '0', '0', '0'].join(', '));
        const counters = sql.raw(
          'views, sdk_views, time_on_page_ms, scroll_depth_centi, bounced, engaged, reached25, reached50, reached75, reached90',
        );
        await sql`insert into analytics_daily_articles (project_id, day, article_id, ${counters}, visitors)
          select project_id, bucket, article_id, ${zeros}, visitors from analytics_series
          where article_id <> '' and granularity = 'd' and true
          on conflict (project_id, day, article_id) do update set visitors = excluded.visitors`.execute(trx);
        const reach = sql.raw(reachDeciles.join(', '));
        await sql`insert into analytics_daily_articles (project_id, day, article_id, ${counters}, ${reach})
          select project_id, day, article_id, ${zeros}, ${reach} from analytics_reading where true
          on conflict (project_id, day, article_id) do update set ${sql.raw(
            reachDeciles.map((column) => `${column} = excluded.${column}`).join(', '),
          )}`.execute(trx);
        await sql`delete from analytics_series where article_id <> '' and granularity = 'd'`.execute(trx);
        await sql`drop table analytics_reading`.execute(trx);
      };
      if (dialect === 'sqlite') await db.transaction().execute(apply);
      else await apply(db);
    },
  };
}
