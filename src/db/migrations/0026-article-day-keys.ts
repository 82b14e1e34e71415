// Narrower article-day rows on PostgreSQL. The index that finds an article's days names the article
// and the day only: article ids are unique across projects, and the project's id (a 36-character
// text) made each entry a third longer. The day's counts of one article take 4 bytes each instead
// of 8 (sums of times and depths keep 8: a popular article's milliseconds of a day pass 2^31).
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const counts = [
  'views',
  'sdk_views',
  'bounced',
  'engaged',
  'reached25',
  'reached50',
  'reached75',
  'reached90',
];

export function articleDayKeys(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const apply = async (trx: Kysely<any>) => {
        await sql`drop index analytics_daily_articles_article`.execute(trx);
        await sql`create index analytics_daily_articles_article
          on analytics_daily_articles (article_id, day)`.execute(trx);
        // SQLite stores an integer in as few bytes as its value needs whatever the declared type.
        if (dialect === 'postgres') {
          await sql`alter table analytics_daily_articles ${sql.raw(
            counts.map((column) => `alter column ${column} type integer`).join(', '),
          )}`.execute(trx);
        }
      };
      if (dialect === 'sqlite') await db.transaction().execute(apply);
      else await apply(db);
    },
  };
}
