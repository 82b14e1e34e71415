// Projects, API keys, tags, articles and their variants, with the substring-search index of each
// database: FTS5 trigram on SQLite, pg_trgm on PostgreSQL.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

// eslint-disable-next-line max-lines-per-function -- a migration is frozen: its tables stay written as they first were, one after another.
export function content(dialect: DialectName): Migration {
  return {
    // eslint-disable-next-line max-lines-per-function -- frozen, as above
    async up(db: Kysely<any>) {
      const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
      // Identifiers and sort keys compare byte by byte on both databases (SQLite's BINARY is the
      // default there), so that orders and page boundaries are the same whatever the server locale.
      const key = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
      await db.schema
        .createTable('projects')
        .addColumn('id', key, (col) => col.primaryKey())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('slug', key, (col) => col.notNull().unique())
        .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
        .addColumn('site_url', 'text')
        .addColumn('logo_url', 'text')
        .addColumn('storage_limit_bytes', bigint, (col) => col.notNull())
        // Bumped by every write that changes what the API answers for the project: cached answers
        // are keyed by it, so that every instance sees a change on its next request.
        .addColumn('content_version', bigint, (col) => col.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', key, (col) => col.primaryKey())
        .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('kind', 'text', (col) => col.notNull())
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('prefix', 'text', (col) => col.notNull())
        .addColumn('key_hash', 'text', (col) => col.notNull().unique())
        .addColumn('rate_limit', 'integer')
        .addColumn('allowed_origins', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('api_keys_project').on('api_keys').column('project_id').execute();

      await db.schema
        .createTable('tags')
        .addColumn('id', key, (col) => col.primaryKey())
        .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('name_key', key, (col) => col.notNull())
        .addColumn('color', 'text')
        .addColumn('icon', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addUniqueConstraint('tags_project_name', ['project_id', 'name_key'])
        .execute();

      await db.schema
        .createTable('articles')
        .addColumn('id', key, (col) => col.primaryKey())
        .addColumn('project_id', key, (col) => col.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('slug', key, (col) => col.notNull())
        .addColumn('title', 'text', (col) => col.notNull())
        .addColumn('title_key', key, (col) => col.notNull())
        .addColumn('excerpt', 'text')
        .addColumn('cover_image', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('published_at', 'text')
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .addColumn('view_count', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('word_count', 'integer', (col) => col.notNull())
        .addColumn('character_count', 'integer', (col) => col.notNull())
        .addColumn('read_time_minutes', 'integer', (col) => col.notNull())
        .addColumn('author_name', 'text', (col) => col.notNull())
        .addColumn('author_image', 'text')
        .addColumn('last_updated_by_name', 'text')
        .addColumn('last_updated_by_image', 'text')
        .addColumn('storage_bytes', bigint, (col) => col.notNull())
        .addColumn('content_hash', 'text', (col) => col.notNull())
        .addColumn('search_rowid', 'integer')
        // Long texts last: SQLite reads a row's columns in order, so the short ones before them are
        // read without touching the overflow pages of the content.
        .addColumn('summary', 'text', (col) => col.notNull())
        .addColumn('seo', 'text')
        .addColumn('content', 'text', (col) => col.notNull())
        .addUniqueConstraint('articles_project_slug', ['project_id', 'slug'])
        .execute();
      for (const column of ['created_at', 'updated_at', 'published_at', 'title_key', 'view_count']) {
        await db.schema
          .createIndex(`articles_project_${column}`)
          .on('articles')
          .columns(['project_id', column, 'id'])
          .execute();
      }

      await db.schema
        .createTable('article_tags')
        .addColumn('article_id', key, (col) => col.notNull().references('articles.id').onDelete('cascade'))
        .addColumn('tag_id', key, (col) => col.notNull().references('tags.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('article_tags_pk', ['article_id', 'tag_id'])
        .execute();
      await db.schema
        .createIndex('article_tags_tag')
        .on('article_tags')
        .columns(['tag_id', 'article_id'])
        .execute();

      await db.schema
        .createTable('article_variants')
        .addColumn('id', key, (col) => col.primaryKey())
        .addColumn('article_id', key, (col) => col.notNull().references('articles.id').onDelete('cascade'))
        .addColumn('key', 'text', (col) => col.notNull())
        .addColumn('title', 'text')
        .addColumn('excerpt', 'text')
        .addColumn('content', 'text')
        .addUniqueConstraint('article_variants_article_key', ['article_id', 'key'])
        .execute();

      if (dialect === 'postgres') {
        await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
        await sql`CREATE INDEX articles_title_trgm ON articles USING gin (title gin_trgm_ops)`.execute(db);
        await sql`CREATE INDEX articles_content_trgm ON articles USING gin (content gin_trgm_ops)`.execute(
          db,
        );
      } else {
        // A standalone trigram index kept in step by triggers; its rowid is saved on the article so
        // that updates and deletes find the index row directly (article rowids may change on VACUUM).
        await sql`CREATE VIRTUAL TABLE article_search USING fts5(title, content, tokenize = 'trigram case_sensitive 0')`.execute(
          db,
        );
        await sql`CREATE INDEX articles_search_rowid ON articles (search_rowid)`.execute(db);
        await sql`CREATE TRIGGER articles_search_insert AFTER INSERT ON articles BEGIN
          INSERT INTO article_search (title, content) VALUES (new.title, new.content);
          UPDATE articles SET search_rowid = last_insert_rowid() WHERE id = new.id;
        END`.execute(db);
        await sql`CREATE TRIGGER articles_search_update AFTER UPDATE OF title, content ON articles BEGIN
          UPDATE article_search SET title = new.title, content = new.content WHERE rowid = new.search_rowid;
        END`.execute(db);
        await sql`CREATE TRIGGER articles_search_delete AFTER DELETE ON articles BEGIN
          DELETE FROM article_search WHERE rowid = old.search_rowid;
        END`.execute(db);
      }
    },
  };
}
