// Strings of page views (page_view_strings) are deleted once no page view names them. A writer
// keeps the ids it reads for a few minutes without asking the database again, so a string no view
// names may still be about to be named: each string records when a writer last read or inserted it
// (`used_at`, Unix seconds), and only strings unread for longer than any writer keeps an id are
// deleted. A deleted project's strings are found by reading every page view; the deletion leaves a
// request for that read (page_view_string_sweeps), which the cleanup of a later hour serves.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function pageViewStringSweep(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const apply = async (trx: Kysely<any>) => {
        // The strings there are count as read now: a writer may hold any of them. SQLite adds a
        // column with a constant default only; on PostgreSQL, now() is taken once for the rows there
        // (no rewrite of the table) and at each insert of code that does not set it.
        const now = Math.floor(Date.now() / 1000);
        await sql`alter table page_view_strings add column used_at ${sql.raw(
          dialect === 'postgres'
            ? 'bigint not null default extract(epoch from now())::bigint'
            : `integer not null default ${now}`,
        )}`.execute(trx);
        await sql`create index page_view_strings_used_at on page_view_strings (used_at, id)`.execute(trx);
        await sql`create table page_view_string_sweeps (
          requested_at ${sql.raw(dialect === 'postgres' ? 'bigint' : 'integer')} not null
        )`.execute(trx);
      };
      if (dialect === 'sqlite') await db.transaction().execute(apply);
      else await apply(db);
    },
  };
}
