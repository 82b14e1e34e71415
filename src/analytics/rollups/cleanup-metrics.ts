// What the cleanup (retention.ts) did, per database handle, and the metrics that show it: rows
// deleted by table, the age of the oldest row each table still holds, and runs by outcome. A
// cleanup that stops deleting (every batch failing, say) shows as failed runs and a growing age.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Db } from '../../db/database.ts';

/** The tables the cleanup deletes from. */
export type CleanupTable =
  | 'page_views'
  | 'page_view_strings'
  | 'analytics_salts'
  | 'analytics_daily_visitors'
  | 'analytics_visitor_sets';

interface CleanupTally {
  deleted: Map<CleanupTable, number>;
  /** The oldest day each table held at the end of the last run that completed. */
  oldest: Map<CleanupTable, string>;
  runs: { completed: number; failed: number };
}

const tallies = new WeakMap<Db, CleanupTally>();

function tallyOf(db: Db): CleanupTally {
  let tally = tallies.get(db);
  if (tally === undefined) {
    tally = { deleted: new Map(), oldest: new Map(), runs: { completed: 0, failed: 0 } };
    tallies.set(db, tally);
  }
  return tally;
}

export function recordDeleted(db: Db, table: CleanupTable, rows: number): void {
  const { deleted } = tallyOf(db);
  deleted.set(table, (deleted.get(table) ?? 0) + rows);
}

/** The end of a run: its outcome and, when it completed, the oldest day left in each table. */
export function recordRun(db: Db, oldest: Partial<Record<CleanupTable, string | null>> | null): void {
  const tally = tallyOf(db);
  if (oldest === null) {
    tally.runs.failed++;
    return;
  }
  tally.runs.completed++;
  for (const [table, day] of Object.entries(oldest) as Array<[CleanupTable, string | null]>) {
    if (day === null) tally.oldest.delete(table);
    else tally.oldest.set(table, day);
  }
}

/** Registers the cleanup's metrics of `db` on `registry`. */
export function registerCleanupMetrics(registry: Registry, db: Db): void {
  new Counter({
    name: 'folio_cleanup_deleted_rows_total',
    help: 'Rows deleted by the retention and daily cleanup, by table',
    labelNames: ['table'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [table, rows] of tallyOf(db).deleted) this.inc({ table }, rows);
    },
  });
  new Gauge({
    name: 'folio_cleanup_oldest_row_age_seconds',
    help: 'Age of the start of the oldest UTC day a table holds rows of, as of the last completed cleanup run; absent when it held none',
    labelNames: ['table'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [table, day] of tallyOf(db).oldest)
        this.set({ table }, Math.max(0, (Date.now() - Date.parse(`${day}T00:00:00Z`)) / 1000));
    },
  });
  new Counter({
    name: 'folio_cleanup_runs_total',
    help: 'Runs of the retention and daily cleanup, by outcome (completed or failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const { runs } = tallyOf(db);
      this.inc({ outcome: 'completed' }, runs.completed);
      this.inc({ outcome: 'failed' }, runs.failed);
    },
  });
}
