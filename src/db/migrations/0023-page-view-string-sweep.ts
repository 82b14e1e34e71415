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
        // The strings there count as read now: a writer may hold any of them.
        const now = Math.floor(Date.now() / 1000);
        if (dialect === 'postgres') {
          // now() is taken once for the rows there (no rewrite of the table), and at each insert
          // of code that does not set it. An identity never gives an id twice.
          await sql`alter table page_view_strings
            add column used_at bigint not null default extract(epoch from now())::bigint`.execute(trx);
        } else {
          // SQLite gives a new row the highest rowid plus one: once the string of the highest id
          // is deleted, its id would name the next string. AUTOINCREMENT never gives an id twice;
          // it cannot be added to a table, so the table is made again (strings are few beside
          // the page views that name them).
          await sql`create table page_view_strings_next (
            id integer primary key autoincrement,
            hash blob not null unique,
            value text not null,
            used_at integer not null
          )`.execute(trx);
          await sql`insert into page_view_strings_next (id, hash, value, used_at)
            select id, hash, value, ${now} from page_view_strings order by id`.execute(trx);
          await sql`drop table page_view_strings`.execute(trx);
          await sql`alter table page_view_strings_next rename to page_view_strings`.execute(trx);
        }
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
