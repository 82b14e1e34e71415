// View counts move from the articles table to a narrow table of their own. A page-view batch
// updated each article's row: on PostgreSQL a new version of the whole row, and since view_count
// was indexed (for sort=viewCount) never a HOT update, so every index of the table took a new
// entry, the search text's trigram index included (12.6 ms of a 13 ms batch statement, measured
// with auto_explain at 10,000 articles); on SQLite the row with its overflow pages of Markdown.
// A row here is written on an article's first page view (absent: 0 views) and deleted with it.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function articleViews(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('article_views')
        .addColumn('article_id', 'text', (col) =>
          col.primaryKey().references('articles.id').onDelete('cascade'),
        )
        .addColumn('project_id', 'text', (col) => col.notNull())
        .addColumn('view_count', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('article_views_project_view_count')
        .on('article_views')
        .columns(['project_id', 'view_count', 'article_id'])
        .execute();
      await sql`insert into article_views (article_id, project_id, view_count)
        select id, project_id, view_count from articles where view_count > 0`.execute(db);
      await db.schema.dropIndex('articles_project_view_count').execute();
      await db.schema.alterTable('articles').dropColumn('view_count').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema
        .alterTable('articles')
        .addColumn('view_count', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await sql`update articles set view_count = coalesce(
        (select v.view_count from article_views as v where v.article_id = articles.id), 0)`.execute(db);
      await db.schema
        .createIndex('articles_project_view_count')
        .on('articles')
        .columns(['project_id', 'view_count', 'id'])
        .execute();
      await db.schema.dropTable('article_views').execute();
    },
  };
}
