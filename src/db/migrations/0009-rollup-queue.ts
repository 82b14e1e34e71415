// The rollup queue: a tracking write no longer updates the rollups in its own transaction. It
// commits the raw page view (and its article's view count) with one queued entry saying what
// changed, and the entries are rolled up later in large batches (analytics/rollups/rollup-queue.ts): by a
// timer, and by every read of statistics before it reads, so statistics stay exact. An entry holds
// the measures after the write and, for an update, before it: the rollups only ever add
// differences, so entries may be rolled up in any order, and a page view updated before its
// creation was rolled up is still counted once with its first measures plus each change.
//
// View counts are summed there too (a view count may lag page views by a few seconds), so on PostgreSQL the `folio_views`
// notification (0003) now follows the view counts instead of the page-view inserts: other
// instances refresh the answers showing a count once it has changed, not before.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function rollupQueue(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
      await db.schema
        .createTable('rollup_queue')
        .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (col) => col.primaryKey())
        .addColumn('page_view_id', 'text', (col) => col.notNull())
        .addColumn('project_id', 'text', (col) => col.notNull())
        .addColumn('day', 'text', (col) => col.notNull())
        // 1: a new page view (its first measures); 0: an update (the measures before it in was_*).
        .addColumn('created', 'integer', (col) => col.notNull())
        .addColumn('time_on_page_ms', bigint, (col) => col.notNull())
        .addColumn('scroll_depth_centi', 'integer', (col) => col.notNull())
        .addColumn('exit_position', 'double precision')
        .addColumn('bounced', 'integer')
        .addColumn('event_count', 'integer', (col) => col.notNull())
        .addColumn('was_time_on_page_ms', bigint)
        .addColumn('was_scroll_depth_centi', 'integer')
        .addColumn('was_exit_position', 'double precision')
        .addColumn('was_bounced', 'integer')
        .addColumn('was_event_count', 'integer')
        .execute();
      if (dialect !== 'postgres') return;
      await sql`drop trigger page_views_notify on page_views`.execute(db);
      // An upsert fires the insert and the update trigger; both see their rows as `inserted`,
      // which folio_notify_views() reads (article_id).
      for (const event of ['insert', 'update']) {
        await sql`create trigger ${sql.raw(`article_views_notify_${event}`)} after ${sql.raw(event)} on article_views
          referencing new table as inserted for each statement execute function folio_notify_views()`.execute(
          db,
        );
      }
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('rollup_queue').execute();
      if (dialect !== 'postgres') return;
      await sql`drop trigger article_views_notify_insert on article_views`.execute(db);
      await sql`drop trigger article_views_notify_update on article_views`.execute(db);
      await sql`create trigger page_views_notify after insert on page_views
        referencing new table as inserted for each statement execute function folio_notify_views()`.execute(
        db,
      );
    },
  };
}
