// PostgreSQL only: the two tables of visitor ids (analytics_daily_visitors, 0002, and
// analytics_visitor_sets, 0006) lose their foreign key to projects. A roll-up inserts about nine
// visitor-set rows for each view of a new visitor, and PostgreSQL checks a foreign key row by row in
// a trigger: measured, the check took longer than the insert itself (3.8 ms against 3.3 ms for 300
// rows). The tables keep a day's ids only while its salt lives (two days), and a roll-up writes them
// in the transaction that writes the day's rollups, whose foreign keys still refuse a project deleted
// meanwhile; deleting a project deletes its rows explicitly (projects/queries.ts). SQLite checks a
// foreign key by one index lookup, and changing one there rebuilds the table: its tables keep theirs.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';

const tables = ['analytics_daily_visitors', 'analytics_visitor_sets'];

export function visitorSetsUnbound(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      for (const table of tables) {
        const { rows } = await sql<{ name: string }>`
          select conname as name from pg_constraint
          where conrelid = ${table}::regclass and contype = 'f'`.execute(db);
        for (const { name } of rows) {
          await sql`alter table ${sql.table(table)} drop constraint ${sql.id(name)}`.execute(db);
        }
      }
    },
    async down(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      for (const table of tables) {
        await sql`delete from ${sql.table(table)} as v
          where not exists (select 1 from projects as p where p.id = v.project_id)`.execute(db);
        await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_project_id_fkey`)}
          foreign key (project_id) references projects (id) on delete cascade`.execute(db);
      }
    },
  };
}
