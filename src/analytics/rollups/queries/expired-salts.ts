// SQL of the cleanup of daily visitor salts. The visitor ids of a day are forgotten with its salt,
// in batches (delete-batch.ts), by the cleanup (retention.ts).
import type { Executor } from '../../../db/schema.ts';

/** Deletes the salts of the days before `day` (one row a day: one statement); returns how many. */
export async function deleteSaltsBefore(db: Executor, day: string): Promise<number> {
  const result = await db.deleteFrom('analytics_salts').where('day', '<', day).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The oldest day that still has a salt, or null. */
export async function oldestSaltDay(db: Executor): Promise<string | null> {
  const row = await db.selectFrom('analytics_salts').select('day').orderBy('day').limit(1).executeTakeFirst();
  return row?.day ?? null;
}
