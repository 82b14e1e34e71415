// The page views of a project's day in id order, straight from an index: the rollup rebuild reads a
// day in pages of ids, and with the (project_id, day) index alone each page fetched and sorted the
// whole day again (on 10 million page views, a day of 27,000 read six times over, from all over
// the table). The new index serves every query the old one did, so it replaces it.
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';

export function pageViewsByDay(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createIndex('page_views_project_day_id')
        .on('page_views')
        .columns(['project_id', 'day', 'id'])
        .execute();
      await db.schema.dropIndex('page_views_project_day').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema
        .createIndex('page_views_project_day')
        .on('page_views')
        .columns(['project_id', 'day'])
        .execute();
      await db.schema.dropIndex('page_views_project_day_id').execute();
    },
  };
}
