// PostgreSQL only: a change of a key's scopes or test flag notifies `folio_keys` like any other
// change of what a key lookup returns, so that every instance drops the lookups it keeps and the
// next request is answered by the key's new scopes. (SQLite's counter learnt these columns in 0017.)
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const keyColumns = 'key_hash, revoked_at, kind, rate_limit, allowed_origins, project_id';

async function notifyOnUpdateOf(db: Kysely<any>, columns: string): Promise<void> {
  await sql`drop trigger api_keys_notify on api_keys`.execute(db);
  await sql
    .raw(
      `create trigger api_keys_notify after insert or delete or truncate or update of ${columns} ` +
        'on api_keys for each statement execute function folio_notify_keys()',
    )
    .execute(db);
}

export function keyScopeNotifications(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await notifyOnUpdateOf(db, `${keyColumns}, scopes, test`);
    },
    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      await notifyOnUpdateOf(db, keyColumns);
    },
  };
}
