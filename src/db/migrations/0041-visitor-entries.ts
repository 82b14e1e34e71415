// The visitor sets (which visitors a rollup row counted on a day, so that each is counted once) move
// to `analytics_visitor_entries`: a row is the project's number, the day, and one 16-byte entry for
// the project, scope and visitor id together (db/visitor-entries.ts), instead of the project's id, the day as
// text, the scope (`s:<article id>:h:<hour>`, a breakdown's value) and the visitor id as text. A
// roll-up writes about nine entries for a view of a new visitor; each took about 310 bytes with its
// key on PostgreSQL, and takes about 90 now.
//
// The table is made empty, at once. The sets of `analytics_visitor_sets` are only ever read to learn
// whether a visitor is new, and only for yesterday and today: a roll-up still asks them (an entry
// found there is not new), the cleanup empties them within two days as it always did, and a rebuild
// clears a day in both. No row is copied, so the migration takes no time whatever the sets hold. Its
// index by day goes: the cleanup walks each project's days in the primary key.
//
// No foreign key on PostgreSQL (see 0033): deleting a project deletes its entries explicitly.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function visitorEntries(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'sqlite') {
        await sql`create table analytics_visitor_entries (
          project_num integer not null,
          day text not null,
          entry blob not null,
          primary key (project_num, day, entry)
        ) without rowid`.execute(db);
      } else {
        await sql`create table analytics_visitor_entries (
          project_num integer not null,
          day date not null,
          entry uuid not null,
          constraint analytics_visitor_entries_pk primary key (project_num, day, entry)
        )`.execute(db);
      }
      await sql`drop index if exists analytics_visitor_sets_day`.execute(db);
    },
    async down(db: Kysely<any>) {
      await sql`drop table analytics_visitor_entries`.execute(db);
      await sql`create index analytics_visitor_sets_day on analytics_visitor_sets (day)`.execute(db);
    },
  };
}
