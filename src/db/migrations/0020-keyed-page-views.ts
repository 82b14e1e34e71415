// Page views keyed by (project_id, day, id), partitioned by month on PostgreSQL (the layout is in
// frozen/0020-keyed-page-views.ts). A database without page views takes the layout here; one with
// page views keeps its table, since rewriting it would hold up the start and tracking for as long
// as the copy takes: `folio db convert-page-views` copies it online and swaps it in. The code
// reads and writes both layouts alike until then.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';
import {
  createMonthPartitions,
  createNextTable,
  monthsBetween,
  nextTableName,
  swapInNextTable,
} from './frozen/0020-keyed-page-views.ts';

export function keyedPageViews(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      const apply = async (trx: Kysely<any>) => {
        const { rows } = await sql`select 1 from page_views limit 1`.execute(trx);
        if (rows.length > 0) return;
        await createNextTable(trx, dialect);
        if (dialect === 'postgres') {
          const now = new Date();
          const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
          const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 1));
          const months = monthsBetween(from.toISOString().slice(0, 10), to.toISOString().slice(0, 10));
          await createMonthPartitions(trx, nextTableName, months);
        }
        await swapInNextTable(trx, dialect);
        await sql`drop table page_views_old`.execute(trx);
      };
      if (dialect === 'sqlite') await db.transaction().execute(apply);
      else await apply(db);
    },
  };
}
