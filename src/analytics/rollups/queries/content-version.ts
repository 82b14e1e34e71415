// A project's content version: bumped by every change that past answers or past days' sums must
// not outlive (a rebuild of the rollups among them), so that caches keyed by it start again.
import type { Executor } from '../../../db/schema.ts';

/** The project's content version, or -1 when it no longer exists. */
export async function contentVersion(executor: Executor, projectId: string): Promise<number> {
  const row = await executor
    .selectFrom('projects')
    .select('content_version')
    .where('id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.content_version ?? -1);
}
