// PostgreSQL: page views in the compact layout of frozen/0031-compact-page-views.ts (typed days and
// times, columns ordered against padding). A database without page views takes it here; one with
// page views keeps its table, since rewriting it would hold up the start and tracking for as long
// as the copy takes: `folio db convert-page-views` copies it online and swaps it in. The code reads
// and writes both layouts alike until then. SQLite: nothing changes.
import { type Kysely, type Migration, sql } from 'kysely';
import type { DialectName } from '../database.ts';
import { monthsBetween } from './frozen/0020-keyed-page-views.ts';
import {
  createCompactTable,
  hasCompactLayout,
  swapInCompactTable,
} from './frozen/0031-compact-page-views.ts';

export function compactPageViews(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect !== 'postgres') return;
      if (await hasCompactLayout(db, dialect)) return;
      const { rows } = await sql`select 1 from page_views limit 1`.execute(db);
      if (rows.length > 0) return;
      // An empty table that migration 0022 left with its string columns (it had rows then) has
      // nothing to move: the compact layout has none.
      const now = new Date();
      const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
      const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 1));
      await createCompactTable(
        db,
        monthsBetween(from.toISOString().slice(0, 10), to.toISOString().slice(0, 10)),
      );
      await swapInCompactTable(db);
    },
  };
}
