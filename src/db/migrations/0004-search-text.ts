// Search over the plain text: each article keeps `search_text` (title, excerpt and the plain text
// of its content, lower-cased: frozen/0004-search-text.ts), and the substring index moves from the
// Markdown to it: a trigram GIN index on PostgreSQL, an FTS5 trigram table on SQLite (now
// case-sensitive, since the text and the terms are both lower-cased before they meet). And an
// index for the counts of a status.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const batchSize = 500;

export function searchText(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('articles')
        .addColumn('search_text', 'text', (col) => col.notNull().defaultTo(''))
        .execute();
      // Existing articles: their plain text is derived again from the Markdown, a batch at a time.
      let after = '';
      for (;;) {
        const rows: Array<{ id: string; title: string; excerpt: string | null; content: string }> = await db
          .selectFrom('articles')
          .select(['id', 'title', 'excerpt', 'content'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(batchSize)
          .execute();
        if (rows.length === 0) break;
        // markdown-it is loaded only when there is Markdown to read: a new database has none, and
        // a module once loaded stays in the server's heap for good.
        const { plainTextOf, searchTextOf } = await import('./frozen/0004-search-text.ts');
        for (const row of rows) {
          await db
            .updateTable('articles')
            .set({ search_text: searchTextOf(row.title, row.excerpt, plainTextOf(row.content)) })
            .where('id', '=', row.id)
            .execute();
        }
        after = rows[rows.length - 1].id;
      }

      // Counts of a status (`status=`, `published=`, a public key's published-only reads) from the
      // index alone.
      await db.schema
        .createIndex('articles_project_status_published_at')
        .on('articles')
        .columns(['project_id', 'status', 'published_at'])
        .execute();

      if (dialect === 'postgres') {
        await sql`DROP INDEX articles_title_trgm`.execute(db);
        await sql`DROP INDEX articles_content_trgm`.execute(db);
        await sql`CREATE INDEX articles_search_text_trgm ON articles USING gin (search_text gin_trgm_ops)`.execute(
          db,
        );
        return;
      }
      for (const name of ['insert', 'update', 'delete']) {
        await sql.raw(`DROP TRIGGER articles_search_${name}`).execute(db);
      }
      await sql`DROP TABLE article_search`.execute(db);
      await sql`CREATE VIRTUAL TABLE article_search USING fts5(text, tokenize = 'trigram case_sensitive 1')`.execute(
        db,
      );
      // The articles keep their index rowids: the rows are filled again under the same ones.
      await sql`INSERT INTO article_search (rowid, text) SELECT search_rowid, search_text FROM articles`.execute(
        db,
      );
      await sql`CREATE TRIGGER articles_search_insert AFTER INSERT ON articles BEGIN
        INSERT INTO article_search (text) VALUES (new.search_text);
        UPDATE articles SET search_rowid = last_insert_rowid() WHERE id = new.id;
      END`.execute(db);
      await sql`CREATE TRIGGER articles_search_update AFTER UPDATE OF search_text ON articles BEGIN
        UPDATE article_search SET text = new.search_text WHERE rowid = new.search_rowid;
      END`.execute(db);
      await sql`CREATE TRIGGER articles_search_delete AFTER DELETE ON articles BEGIN
        DELETE FROM article_search WHERE rowid = old.search_rowid;
      END`.execute(db);
    },
  };
}
