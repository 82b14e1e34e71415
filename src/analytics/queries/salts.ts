// SQL of the daily visitor salts, and the forgetting of a day's visitor ids with its salt.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

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

/** Deletes the salts and visitor-id sets of the days before `day`; the daily counts stay. */
export async function forgetDaysBefore(db: Executor, day: string): Promise<void> {
  await db.deleteFrom('analytics_salts').where('day', '<', day).execute();
  await db.deleteFrom('analytics_daily_visitors').where('day', '<', day).execute();
  await db.deleteFrom('analytics_visitor_sets').where('day', '<', day).execute();
}
