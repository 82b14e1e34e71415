// Distinct visitors and page views of a project between two instants: read from the raw page
// views, through the (project_id, created_at) index, since the window is a few minutes. The upper
// bound keeps out page views stamped later than now (a clock that stepped back, imported rows).
import type { Executor } from '../../../db/schema.ts';

export async function realtimeVisitors(
  executor: Executor,
  projectId: string,
  since: string,
  until: string,
  includeTest: boolean,
): Promise<{ visitors: number; pageViews: number }> {
  let query = executor
    .selectFrom('page_views')
    .where('project_id', '=', projectId)
    .where('created_at', '>=', since)
    .where('created_at', '<=', until);
  // The page views of test keys count only when asked for.
  if (!includeTest) query = query.where('test', '=', 0);
  const row = await query
    .select((eb) => [
      eb.fn.count<number>('visitor_id').distinct().as('visitors'),
      eb.fn.countAll<number>().as('page_views'),
    ])
    .executeTakeFirstOrThrow();
  return { visitors: Number(row.visitors), pageViews: Number(row.page_views) };
}
