// Indexes that let a search read what it needs without visiting table rows:
// - the sort indexes of articles (created, updated, published, title) also hold each article's
//   ordinal: a page of a search found by the ordinals of its matches walks the index alone,
//   instead of fetching every walked row for its ordinal (page 2,000 of a term in every article
//   walked 20,000 rows of 100,000 articles);
// - PostgreSQL: the key of article_sets also carries the members, so that the word sets of a
//   term are read by an index-only scan, the chunks of one set side by side, instead of one heap
//   page per chunk (a fragment held by 2,000 words: 43,000 chunks on 50,000 pages, against 9,000
//   index pages). SQLite stores article_sets by its key already (WITHOUT ROWID).
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const sortColumns = ['created_at', 'updated_at', 'published_at', 'title_key'];

export function searchReads(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const apply = async (trx: Kysely<any>) => {
        for (const column of sortColumns) {
          await trx.schema.dropIndex(`articles_project_${column}`).execute();
          await trx.schema
            .createIndex(`articles_project_${column}`)
            .on('articles')
            .columns(['project_id', column, 'id', 'ordinal'])
            .execute();
        }
        // SQLite's planner knows an index by its statistics: without them it would walk a new
        // sort index to read ten articles by id.
        if (dialect === 'sqlite') await sql`analyze articles`.execute(trx);
        if (dialect === 'postgres') {
          await sql`alter table article_sets drop constraint article_sets_pk,
            add constraint article_sets_pk primary key (project_id, set_key, chunk) include (members)`.execute(
            trx,
          );
          // An index-only scan reads the table's page for any row changed since the last vacuum:
          // vacuumed after 5% of the rows changed rather than 20%, the sets stay read from the index.
          await sql`alter table article_sets set (autovacuum_vacuum_scale_factor = 0.05,
            autovacuum_vacuum_insert_scale_factor = 0.05)`.execute(trx);
        }
      };
      if (dialect === 'sqlite') await db.transaction().execute(apply);
      else await apply(db);
    },
    async down(db: Kysely<any>) {
      for (const column of sortColumns) {
        await db.schema.dropIndex(`articles_project_${column}`).execute();
        await db.schema
          .createIndex(`articles_project_${column}`)
          .on('articles')
          .columns(['project_id', column, 'id'])
          .execute();
      }
      if (dialect === 'postgres') {
        await sql`alter table article_sets drop constraint article_sets_pk,
          add constraint article_sets_pk primary key (project_id, set_key, chunk)`.execute(db);
        await sql`alter table article_sets reset (autovacuum_vacuum_scale_factor,
          autovacuum_vacuum_insert_scale_factor)`.execute(db);
      }
    },
  };
}
