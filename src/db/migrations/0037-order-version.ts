// The content version of a project's last change that can move an article in a list sorted by
// createdAt or title, or in or out of a status or tag filter (an article created or deleted, its
// status, publishedAt, createdAt, title or tags changed). A deep page is found from marks along
// the list (content/page-marks.ts), which a content change made unreachable: an edit of an
// article's text, the most common write, made the next deep page find them again (5 to 70 ms at
// 100,000 articles instead of 3 to 7). Those marks are kept by this version instead. Existing
// projects start at their content version: nothing is known of their earlier changes. A column
// already there (tests lend it to older schemas, whose rows today's code writes) is kept.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function orderVersion(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const { rows } = await (
        dialect === 'sqlite'
          ? sql`select 1 from pragma_table_info('projects') where name = 'order_version'`
          : sql`select 1 from information_schema.columns
            where table_schema = current_schema() and table_name = 'projects' and column_name = 'order_version'`
      ).execute(db);
      if (rows.length === 0)
        await db.schema
          .alterTable('projects')
          .addColumn('order_version', 'bigint', (col) => col.notNull().defaultTo(0))
          .execute();
      await sql`update projects set order_version = content_version`.execute(db);
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('projects').dropColumn('order_version').execute();
    },
  };
}
