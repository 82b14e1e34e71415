// The rollups of the insights read side: time series per hour and per day, breakdowns by
// referrer source, UTM fields, country, device class and event type, and per article the reach
// (drop-off) and reading-time histograms. Each is kept up to date by the tracking writes, by the
// difference a write makes, like the rollups of 0002. Distinct visitors are counted with sets of
// visitor ids kept for the last two days only (ids change daily), like analytics_daily_visitors.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export const reachDeciles = Array.from({ length: 11 }, (_, decile) => `reach${decile}`);

export function insights(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
      const key = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
      const clustered = dialect === 'sqlite' ? sql`without rowid` : sql``;
      const project = (col: any) => col.notNull().references('projects.id').onDelete('cascade');

      // `article_id` '' is the whole project; `granularity` 'h' buckets are `YYYY-MM-DDTHH`, 'd' ones
      // `YYYY-MM-DD`. A series is one contiguous range of the primary key.
      await db.schema
        .createTable('analytics_series')
        .addColumn('project_id', key, project)
        .addColumn('article_id', key, (col) => col.notNull())
        .addColumn('granularity', key, (col) => col.notNull())
        .addColumn('bucket', key, (col) => col.notNull())
        .addColumn('views', bigint, (col) => col.notNull())
        .addColumn('visitors', bigint, (col) => col.notNull())
        .addColumn('time_on_page_ms', bigint, (col) => col.notNull())
        .addColumn('scroll_depth_centi', bigint, (col) => col.notNull())
        .addPrimaryKeyConstraint('analytics_series_pk', ['project_id', 'article_id', 'granularity', 'bucket'])
        .modifyEnd(clustered)
        .execute();

      await db.schema
        .createTable('analytics_breakdowns')
        .addColumn('project_id', key, project)
        .addColumn('dimension', key, (col) => col.notNull())
        .addColumn('day', key, (col) => col.notNull())
        .addColumn('value', key, (col) => col.notNull())
        .addColumn('views', bigint, (col) => col.notNull())
        .addColumn('visitors', bigint, (col) => col.notNull())
        .addColumn('events', bigint, (col) => col.notNull())
        .addPrimaryKeyConstraint('analytics_breakdowns_pk', ['project_id', 'dimension', 'day', 'value'])
        .modifyEnd(clustered)
        .execute();

      // reachN: page views whose furthest point (max of scroll depth and exit position) lies in
      // [10·N, 10·N + 10) percent, 100 in reach10.
      let reading = db.schema
        .createTable('analytics_reading')
        .addColumn('project_id', key, project)
        .addColumn('article_id', key, (col) => col.notNull())
        .addColumn('day', key, (col) => col.notNull());
      for (const column of reachDeciles) reading = reading.addColumn(column, bigint, (col) => col.notNull());
      await reading
        .addPrimaryKeyConstraint('analytics_reading_pk', ['project_id', 'article_id', 'day'])
        .modifyEnd(clustered)
        .execute();

      // Page views by time on page, in buckets named by their lower bound in seconds (see
      // readTimeBucket); deep_views are those that also reached 90% of the text.
      await db.schema
        .createTable('analytics_read_times')
        .addColumn('project_id', key, project)
        .addColumn('article_id', key, (col) => col.notNull())
        .addColumn('day', key, (col) => col.notNull())
        .addColumn('seconds', 'integer', (col) => col.notNull())
        .addColumn('views', bigint, (col) => col.notNull())
        .addColumn('deep_views', bigint, (col) => col.notNull())
        .addPrimaryKeyConstraint('analytics_read_times_pk', ['project_id', 'article_id', 'day', 'seconds'])
        .modifyEnd(clustered)
        .execute();

      await db.schema
        .createTable('analytics_visitor_sets')
        .addColumn('project_id', key, project)
        .addColumn('day', key, (col) => col.notNull())
        .addColumn('scope', key, (col) => col.notNull())
        .addColumn('visitor_id', key, (col) => col.notNull())
        .addPrimaryKeyConstraint('analytics_visitor_sets_pk', ['project_id', 'day', 'scope', 'visitor_id'])
        .modifyEnd(clustered)
        .execute();
      // Forgetting the sets of old days, on every instance's salt rotation, is a range delete.
      await db.schema
        .createIndex('analytics_visitor_sets_day')
        .on('analytics_visitor_sets')
        .column('day')
        .execute();

      // Realtime visitors read the last minutes of a project's raw page views.
      await db.schema
        .createIndex('page_views_project_created')
        .on('page_views')
        .columns(['project_id', 'created_at'])
        .execute();
    },
  };
}
