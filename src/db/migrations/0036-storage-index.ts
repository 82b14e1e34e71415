// A write that grows an article checks the project's storage limit by summing its articles' bytes
// (content/write-articles.ts). Read from the rows, that was a scan of every article, texts
// included: 160 ms at 100,000 articles, on SQLite while the write held the writer lock on the
// event loop. From this index it reads only the project's entries of it.
import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';

export function storageIndex(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createIndex('articles_project_storage')
        .on('articles')
        .columns(['project_id', 'storage_bytes'])
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropIndex('articles_project_storage').ifExists().execute();
    },
  };
}
