// SQLite only: a counter that triggers advance whenever a project or an API key changes, whichever
// process made the change (the server, another instance on the file, the CLI, plain SQL), so that
// the key lookups kept in memory (projects/key-lookup.ts, through Db.keysStamp) are dropped by
// these changes alone, never by page views. SQLite's own change signal, data_version, moves with
// every commit of another connection, page views and roll-ups included. A key's last use
// (`last_used_at`, recorded once a minute) changes nothing a lookup returns and is not counted.
// PostgreSQL has migration 0003's NOTIFY triggers instead.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const bump = 'begin update key_changes set version = version + 1; end';

export function keyChanges(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      await sql`create table key_changes (id integer primary key check (id = 1), version integer not null)`.execute(
        db,
      );
      await sql`insert into key_changes (id, version) values (1, 0)`.execute(db);
      for (const event of ['insert', 'update', 'delete']) {
        await sql
          .raw(`create trigger projects_key_changes_${event} after ${event} on projects ${bump}`)
          .execute(db);
      }
      const keyColumns = 'key_hash, revoked_at, kind, rate_limit, allowed_origins, project_id';
      for (const [name, event] of [
        ['insert', 'insert'],
        ['update', `update of ${keyColumns}`],
        ['delete', 'delete'],
      ]) {
        await sql
          .raw(`create trigger api_keys_key_changes_${name} after ${event} on api_keys ${bump}`)
          .execute(db);
      }
    },
    async down(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      for (const event of ['insert', 'update', 'delete']) {
        await sql.raw(`drop trigger projects_key_changes_${event}`).execute(db);
        await sql.raw(`drop trigger api_keys_key_changes_${event}`).execute(db);
      }
      await sql`drop table key_changes`.execute(db);
    },
  };
}
