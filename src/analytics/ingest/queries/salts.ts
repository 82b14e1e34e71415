// SQL of the daily visitor salts, as tracking creates them. The cleanup deletes them
// (expired-salts.ts).
import type { Executor } from '../../../db/schema.ts';

/** The salt of `day`: `candidate` when this call creates it, else the one another instance made. */
export async function ensureSalt(
  executor: Executor,
  day: string,
  candidate: string,
  now: string,
): Promise<string> {
  await executor
    .insertInto('analytics_salts')
    .values({ day, salt: candidate, created_at: now })
    .onConflict((conflict) => conflict.column('day').doNothing())
    .execute();
  const row = await executor
    .selectFrom('analytics_salts')
    .select('salt')
    .where('day', '=', day)
    .executeTakeFirstOrThrow();
  return row.salt;
}
