// Page views, the daily visitor salts, and the rollups that statistics are read from: per day and
// article and per day of the whole project (counts, sums, bounce, engagement and scroll thresholds,
// and for the project the distinct visitors), per day and country, and the set of the visitor ids
// of the last two days that tells when a visitor is new.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

// eslint-disable-next-line max-lines-per-function -- a migration is frozen: its tables stay written as they first were, one after another.
export function analytics(dialect: DialectName): Migration {
  return {
    // eslint-disable-next-line max-lines-per-function -- frozen, as above
    async up(db: Kysely<any>) {
      const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
      const double = dialect === 'postgres' ? 'double precision' : 'real';
      const key = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
      // SQLite stores a WITHOUT ROWID table in the order of its primary key: a period of a project's
      // rollups is then one contiguous range, read without a second lookup per row.
      const clustered = dialect === 'sqlite' ? sql`without rowid` : sql``;

      await db.schema
        .createTable('page_views')
        // A time-ordered prefix and 128 random bits: unguessable, and new rows append to the index.
        .addColumn('id', key, (col) => col.primaryKey())
        .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
        // No foreign key: the page views of an article removed by an import stay counted in totals.
        .addColumn('article_id', key, (col) => col.notNull())
        .addColumn('day', key, (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addColumn('visitor_id', 'text', (col) => col.notNull())
        .addColumn('session_id', 'text', (col) => col.notNull())
        .addColumn('source', 'text', (col) => col.notNull())
        .addColumn('country', 'text')
        .addColumn('time_on_page_ms', bigint, (col) => col.notNull())
        .addColumn('scroll_depth_centi', 'integer', (col) => col.notNull())
        .addColumn('exit_position', double)
        .addColumn('bounced', 'integer')
        .addColumn('screen_width', 'integer')
        .addColumn('screen_height', 'integer')
        .addColumn('event_count', 'integer', (col) => col.notNull())
        .addColumn('page_url', 'text')
        .addColumn('page_title', 'text')
        .addColumn('referrer', 'text')
        .addColumn('utm_source', 'text')
        .addColumn('utm_medium', 'text')
        .addColumn('utm_campaign', 'text')
        .addColumn('utm_term', 'text')
        .addColumn('utm_content', 'text')
        .addColumn('events', 'text', (col) => col.notNull())
        .execute();
      await db.schema
        .createIndex('page_views_project_day')
        .on('page_views')
        .columns(['project_id', 'day'])
        .execute();

      await db.schema
        .createTable('analytics_salts')
        .addColumn('day', key, (col) => col.primaryKey())
        .addColumn('salt', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .execute();

      await db.schema
        .createTable('analytics_daily_visitors')
        .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('day', key, (col) => col.notNull())
        .addColumn('visitor_id', key, (col) => col.notNull())
        .addPrimaryKeyConstraint('analytics_daily_visitors_pk', ['project_id', 'day', 'visitor_id'])
        .modifyEnd(clustered)
        .execute();

      const counters = [
        'views',
        'sdk_views',
        'time_on_page_ms',
        'scroll_depth_centi',
        'bounced',
        'engaged',
        'reached25',
        'reached50',
        'reached75',
        'reached90',
      ];
      // The whole project per day (what the summary and the funnel read: one row a day), with the
      // count of distinct visitors of the day.
      let totals = db.schema
        .createTable('analytics_daily_totals')
        .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('day', key, (col) => col.notNull())
        .addColumn('visitors', bigint, (col) => col.notNull());
      for (const counter of counters) totals = totals.addColumn(counter, bigint, (col) => col.notNull());
      await totals
        .addPrimaryKeyConstraint('analytics_daily_totals_pk', ['project_id', 'day'])
        .modifyEnd(clustered)
        .execute();

      let articles = db.schema
        .createTable('analytics_daily_articles')
        .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('day', key, (col) => col.notNull())
        .addColumn('article_id', key, (col) => col.notNull());
      for (const counter of counters) articles = articles.addColumn(counter, bigint, (col) => col.notNull());
      await articles
        .addPrimaryKeyConstraint('analytics_daily_articles_pk', ['project_id', 'day', 'article_id'])
        .modifyEnd(clustered)
        .execute();
      // The funnel of one article reads its days without visiting the project's other articles.
      await db.schema
        .createIndex('analytics_daily_articles_article')
        .on('analytics_daily_articles')
        .columns(['project_id', 'article_id', 'day'])
        .execute();

      await db.schema
        .createTable('analytics_daily_countries')
        .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('day', key, (col) => col.notNull())
        .addColumn('country', key, (col) => col.notNull())
        .addColumn('views', bigint, (col) => col.notNull())
        .addPrimaryKeyConstraint('analytics_daily_countries_pk', ['project_id', 'day', 'country'])
        .modifyEnd(clustered)
        .execute();
    },
  };
}
