// The ids of every project, in order: the cleanup deletes project by project, so that each batch
// walks one project's range of an index that starts with project_id.
import type { Executor } from '../../../db/schema.ts';

export async function projectIds(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('projects').select('id').orderBy('id').execute();
  return rows.map((row) => row.id);
}
