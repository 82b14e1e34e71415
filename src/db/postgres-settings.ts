// Server settings of PostgreSQL that Folio's write pattern depends on, checked once at start: each
// page view inserts and later deletes a row of rollup_queue, and page views and rollups are updated
// in place. Without autovacuum their dead rows are never reclaimed: the tables and their indexes
// only grow, and every read and write walks past more dead rows.
import { sql } from 'kysely';
import type { Executor } from './schema.ts';

/** What an operator should be told of the server's settings; empty when they are as expected. */
export async function postgresSettingWarnings(executor: Executor): Promise<string[]> {
  const { rows } = await sql<{ name: string; setting: string }>`
    select name, setting from pg_settings where name in ('autovacuum', 'track_counts')`.execute(executor);
  const settings = new Map(rows.map((row) => [row.name, row.setting]));
  return settingWarnings(settings);
}

export function settingWarnings(settings: ReadonlyMap<string, string>): string[] {
  const warnings: string[] = [];
  for (const name of ['autovacuum', 'track_counts']) {
    if (settings.get(name) !== 'off') continue;
    warnings.push(
      `PostgreSQL's ${name} is off: dead rows of page views, rollups and the roll-up queue are never reclaimed, so those tables grow and tracking and statistics slow down; turn it on (the default) or run VACUUM (ANALYZE) on Folio's database regularly`,
    );
  }
  return warnings;
}
