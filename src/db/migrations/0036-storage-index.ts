// A write that grows an article checks the project's storage limit by summing its articles' bytes
// (content/write-articles.ts). Read from the rows, that was a scan of every article, texts
// included: 160 ms at 100,000 articles, on SQLite while the write held the writer lock on the
// event loop. From this index it reads only the project's entries of it.
//
// SQLite plans by the statistics ANALYZE keeps per index, and guesses for an index without them,
// here wrongly: at 100,000 articles it counted a project's articles by status through this index
// and each article's row (260 ms) instead of through (project_id, status, …) alone (9 ms). The
// articles' statistics are made again, this index's and that of 0035 included (290 ms at 100,000
// articles); an import keeps them current after that (PRAGMA optimize).
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function storageIndex(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createIndex('articles_project_storage')
        .on('articles')
        .columns(['project_id', 'storage_bytes'])
        .execute();
      if (dialect === 'sqlite') await sql`analyze articles`.execute(db);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropIndex('articles_project_storage').ifExists().execute();
    },
  };
}
