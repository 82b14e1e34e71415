// A signal of every event written to the webhook outbox, whichever process wrote it (another
// instance, the CLI, plain SQL), so that a webhook dispatcher asks the database for new events only
// once one was written (Db.outboxStamp) rather than at every poll: an idle instance sent two
// statements a second to PostgreSQL for nothing, and at one page view a second they were a third of
// its statements. SQLite: a counter that a trigger advances, as migration 0016's counts key
// changes; PostgreSQL: a notification on `folio_outbox`, as 0003's on `folio_keys`. Apart from
// those, so that no kept key lookup is dropped by an event.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function outboxChanges(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'sqlite') {
        await sql`create table outbox_changes (id integer primary key check (id = 1), version integer not null)`.execute(
          db,
        );
        await sql`insert into outbox_changes (id, version) values (1, 0)`.execute(db);
        await sql`create trigger outbox_events_changes after insert on outbox_events
          begin update outbox_changes set version = version + 1; end`.execute(db);
        return;
      }
      await sql`create function folio_notify_outbox() returns trigger language plpgsql as $$
        begin
          perform pg_notify('folio_outbox', '');
          return null;
        end $$`.execute(db);
      await sql`create trigger outbox_events_notify after insert on outbox_events
        for each statement execute function folio_notify_outbox()`.execute(db);
    },
    async down(db: Kysely<any>) {
      if (dialect === 'sqlite') {
        await sql`drop trigger outbox_events_changes`.execute(db);
        await sql`drop table outbox_changes`.execute(db);
        return;
      }
      await sql`drop trigger outbox_events_notify on outbox_events`.execute(db);
      await sql`drop function folio_notify_outbox()`.execute(db);
    },
  };
}
