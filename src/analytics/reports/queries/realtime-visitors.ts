// Distinct visitors and page views of a project between two instants: read from the raw page
// views, since the window is a few minutes. A page view's id begins with its creation time, so the
// window is a range of ids within each of its (one or two) days of the (project_id, day, id) index.
// The upper bound keeps out page views stamped later than now (a clock that stepped back, imported
// rows).
import type { Executor } from '../../../db/schema.ts';
import { shiftDay, utcDay } from '../../days.ts';
import { pageViewIdPrefix } from '../../page-view-ids.ts';

export async function realtimeVisitors(
  executor: Executor,
  projectId: string,
  since: string,
  until: string,
  includeTest: boolean,
): Promise<{ visitors: number; pageViews: number }> {
  const sinceMs = Date.parse(since);
  const untilMs = Date.parse(until);
  const days: string[] = [];
  for (let day = utcDay(sinceMs); day <= utcDay(untilMs); day = shiftDay(day, 1)) days.push(day);
  if (days.length === 0) return { visitors: 0, pageViews: 0 };
  let query = executor
    .selectFrom('page_views')
    .where('project_id', '=', projectId)
    .where('day', 'in', days)
    .where('id', '>=', pageViewIdPrefix(sinceMs))
    .where('id', '<', pageViewIdPrefix(untilMs + 1))
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
