// SQL of the daily visitor salts, as tracking creates them. The cleanup deletes them
// (expired-salts.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';

type Executor = Kysely<Database>;

/** The salt of `day`: `candidate` when this call creates it, else the one another instance made. */
export async function ensureSalt(db: Executor, day: string, candidate: string, now: string): Promise<string> {
  await db
    .insertInto('analytics_salts')
    .values({ day, salt: candidate, created_at: now })
    .onConflict((conflict) => conflict.column('day').doNothing())
    .execute();
  const row = await db
    .selectFrom('analytics_salts')
    .select('salt')
    .where('day', '=', day)
    .executeTakeFirstOrThrow();
  return row.salt;
}
