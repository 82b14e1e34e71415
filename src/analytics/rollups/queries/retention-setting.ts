// The retention a server runs with, recorded in the database (migration 0012) for the rebuild of
// the rollups, which must start where the raw page views are still complete. Besides the number of
// days, the first day that a shorter earlier setting may already have trimmed past is kept: raising
// the retention does not bring back the page views deleted under the old one.
import { sql } from 'kysely';
import type { Executor } from '../../../db/schema.ts';
import { firstRetainedDay } from '../retention.ts';

export interface RecordedRetention {
  days: number;
  /** The first day whose raw page views no earlier setting has trimmed; null: none has. */
  completeFrom: string | null;
  recordedAt: string;
}

/** What a server records at start: its retention, and where an earlier, shorter one left off. */
export async function recordRetentionDays(executor: Executor, days: number, now: Date): Promise<void> {
  await executor.transaction().execute(async (trx) => {
    const previous = await recordedRetention(trx);
    let completeFrom = previous?.completeFrom ?? null;
    if (previous !== null && previous.days < days) {
      const trimmedBefore = firstRetainedDay(previous.days, now);
      if (completeFrom === null || completeFrom < trimmedBefore) completeFrom = trimmedBefore;
    }
    const at = now.toISOString();
    const settings: Array<[string, string | null]> = [
      ['retention_days', String(days)],
      ['retention_complete_from', completeFrom],
    ];
    for (const [name, value] of settings) {
      if (value === null) continue;
      await sql`insert into analytics_settings (name, value, updated_at) values (${name}, ${value}, ${at})
        on conflict (name) do update set value = excluded.value, updated_at = excluded.updated_at`.execute(
        trx,
      );
    }
  });
}

/** The retention last recorded by a server; null when none has started since migration 0012. */
export async function recordedRetention(executor: Executor): Promise<RecordedRetention | null> {
  const { rows } = await sql<{ name: string; value: string; updated_at: string }>`
    select name, value, updated_at from analytics_settings
    where name in ('retention_days', 'retention_complete_from')`.execute(executor);
  const days = rows.find((row) => row.name === 'retention_days');
  if (days === undefined) return null;
  return {
    days: Number(days.value),
    completeFrom: rows.find((row) => row.name === 'retention_complete_from')?.value ?? null,
    recordedAt: days.updated_at,
  };
}

/** The first day a rebuild may recompute under `retention`: days before it keep their rollups. */
export function firstRebuiltDay(
  retention: Pick<RecordedRetention, 'days' | 'completeFrom'>,
  now: Date,
): string {
  const retained = firstRetainedDay(retention.days, now);
  return retention.completeFrom !== null && retention.completeFrom > retained
    ? retention.completeFrom
    : retained;
}
