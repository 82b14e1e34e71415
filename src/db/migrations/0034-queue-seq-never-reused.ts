// SQLite only: the rollup queue's sequence numbers are never given twice. SQLite gives a new row
// the highest rowid plus one, so once the newest entries were deleted (a rebuild takes a day's
// entries, a project's deletion takes its own), the next entry queued took the number of one of
// them. A roll-up reads its batch before its transaction and then deletes the batch by number,
// counting the rows deleted to learn whether another took any meanwhile: it deleted the new entry
// instead, found the count whole, and added what it had read a second time while the new write was
// never counted. AUTOINCREMENT never gives a number twice; it cannot be added to a table, so the
// table is made again (the queue holds the last second or so of writes). PostgreSQL's bigserial
// never gives a number twice.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const columns = `page_view_id, project_id, day, created, time_on_page_ms, scroll_depth_centi,
  exit_position, bounced, event_count, was_time_on_page_ms, was_scroll_depth_centi,
  was_exit_position, was_bounced, was_event_count`;

export function queueSeqNeverReused(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'sqlite') return;
      await db.transaction().execute(async (trx) => {
        await sql`create table rollup_queue_next (
          seq integer primary key autoincrement,
          page_view_id text not null,
          project_id text not null,
          day text not null,
          created integer not null,
          time_on_page_ms integer not null,
          scroll_depth_centi integer not null,
          exit_position double precision,
          bounced integer,
          event_count integer not null,
          was_time_on_page_ms integer,
          was_scroll_depth_centi integer,
          was_exit_position double precision,
          was_bounced integer,
          was_event_count integer
        )`.execute(trx);
        await sql`insert into rollup_queue_next (seq, ${sql.raw(columns)})
          select seq, ${sql.raw(columns)} from rollup_queue order by seq`.execute(trx);
        await sql`drop table rollup_queue`.execute(trx);
        await sql`alter table rollup_queue_next rename to rollup_queue`.execute(trx);
      });
    },
  };
}
