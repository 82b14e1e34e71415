// The realtime window is read by page-view ids (their first 12 characters are the creation time in
// hexadecimal) through the (project_id, day, id) index, so the (project_id, created_at) index of
// 0006 goes: 78 bytes a page view on SQLite, 90 on PostgreSQL, written with every view. Dropping an
// index is quick whatever the table's size, so it does not hold up a start.
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';

export function realtimeById(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.dropIndex('page_views_project_created').ifExists().execute();
    },
    async down(db: Kysely<any>) {
      await db.schema
        .createIndex('page_views_project_created')
        .on('page_views')
        .columns(['project_id', 'created_at'])
        .execute();
    },
  };
}
