// The webhook dispatcher takes the oldest events not yet fanned out in (created_at, id) order, 200
// at a time. The pending events' index held created_at alone, and the events that one statement
// records share its timestamp (the announcement of many due articles, a publication of many), so
// every batch sorted all of them by id again: 50,000 events announced at once took 11 s of the
// event loop on SQLite to fan out, quadratic in their number. Indexed in the batch's own order, a
// batch reads its 200 entries.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

export function pendingEventsOrder(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await sql`drop index outbox_events_pending`.execute(db);
      await sql`create index outbox_events_pending on outbox_events (created_at, id)
        where dispatched_at is null`.execute(db);
    },
  };
}
