// Deletes at most `limit` raw page views of a project from the days before `beforeDay`, through
// the (project_id, day) index; returns how many went. Callers repeat it, so that no statement
// holds more than one small batch.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { deleteDayBatch } from './delete-batch.ts';

export function deleteExpiredPageViews(
  db: Kysely<Database>,
  projectId: string,
  beforeDay: string,
  limit: number,
): Promise<number> {
  return deleteDayBatch(db, 'page_views', projectId, beforeDay, limit);
}
