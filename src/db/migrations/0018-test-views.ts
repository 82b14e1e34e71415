// The page views tracked with test keys (page_views.test = 1, migration 0017) count in no rollup:
// a report asked to include them sums them from the raw rows. This partial index holds those rows
// alone, so that such a read visits the test views of its period and none of the others, and so
// that the normal writes never touch it (a normal view is not in it).
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function testViews(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await sql`create index page_views_test on page_views (project_id, day, id) where test = 1`.execute(db);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropIndex('page_views_test').execute();
    },
  };
}
