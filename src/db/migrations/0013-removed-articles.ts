// What an import with --prune knew of each article it removed, by slug, so that importing the same
// slug again brings the same article back: its id (its page views and rollups name it), its
// creation and publication dates, and its view count as it was, plus the page views rolled up
// while it was gone (the rollup views then, compared with those at the restore).
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function removedArticles(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const key = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
      const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
      await db.schema
        .createTable('removed_articles')
        .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('slug', key, (col) => col.notNull())
        .addColumn('article_id', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('published_at', 'text')
        .addColumn('view_count', bigint, (col) => col.notNull())
        .addColumn('rolled_up_views', bigint, (col) => col.notNull())
        .addColumn('removed_at', 'text', (col) => col.notNull())
        .addPrimaryKeyConstraint('removed_articles_pk', ['project_id', 'slug'])
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('removed_articles').execute();
    },
  };
}
