// Deletes at most `limit` raw page views of a project from the days before `beforeDay`, through
// the (project_id, day) index; returns how many went. Callers repeat it, so that no transaction
// holds more than one small batch.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

export async function deleteExpiredPageViews(
  db: Kysely<Database>,
  projectId: string,
  beforeDay: string,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('page_views')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('page_views')
        .select('id')
        .where('project_id', '=', projectId)
        .where('day', '<', beforeDay)
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
