// The published articles not yet announced for their publication date (content/announcements.ts),
// indexed alone. The webhook dispatcher asks for the earliest of them at start, every 15 s and after
// every write, and every article write asks for its project's due ones in its transaction. Without
// an index each was a scan of the whole articles table, texts included: 130 to 400 ms at 100,000
// articles, on SQLite on the event loop (every request waited) and, for a write, while it held the
// writer lock (every page view waited). An article leaves the index once announced, so it holds the
// scheduled articles and the few a write just published: it costs nearly nothing to keep.
//
// By project first: SQLite picks this index for a project's due articles only when it serves as
// many terms as the (project_id, status, published_at, ordinal) index does; the earliest of all
// projects reads the whole of this small index.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function unannouncedIndex(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await sql`create index articles_unannounced on articles (project_id, status, published_at)
        where status = 'published' and published_at is not null
          and (announced_published_at is null or announced_published_at <> published_at)`.execute(db);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropIndex('articles_unannounced').ifExists().execute();
    },
  };
}
