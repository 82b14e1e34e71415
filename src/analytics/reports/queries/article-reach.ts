// How many page views of an article reached each decile of its text (the furthest point of each
// view, in [10·N, 10·N + 10) percent, 100 in the last), over a range of days: sums of its daily rows.
import type { Executor } from '../../../db/schema.ts';
import { reachColumns } from '../../rollups/insight-changes.ts';

export async function articleReach(
  executor: Executor,
  projectId: string,
  articleId: string,
  firstDay: string,
  lastDay: string,
): Promise<number[]> {
  const row = await executor
    .selectFrom('analytics_daily_articles')
    .where('project_id', '=', projectId)
    .where('article_id', '=', articleId)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .select((eb) => reachColumns.map((column) => eb.fn.sum<number | null>(column).as(column)))
    .executeTakeFirst();
  return reachColumns.map((column) => Number((row as Record<string, unknown> | undefined)?.[column] ?? 0));
}
