// An article's page views by time on page (buckets named by their lower bound in seconds, see
// readTimeBucket), with those that also reached 90% of the text, over a range of days, shortest
// first: the sums of the counts by reading time of its daily rows.
import type { Executor } from '../../../db/schema.ts';
import { addCounts, type CountsByKey, readTimeWidth, unpackCounts } from '../../rollups/packed-counts.ts';

export interface ReadTimeBucket {
  seconds: number;
  views: number;
  deepViews: number;
}

export async function articleReadTimes(
  executor: Executor,
  projectId: string,
  articleId: string,
  firstDay: string,
  lastDay: string,
): Promise<ReadTimeBucket[]> {
  const rows = await executor
    .selectFrom('analytics_daily_articles')
    .select('read_times')
    .where('project_id', '=', projectId)
    .where('article_id', '=', articleId)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .execute();
  const sums: CountsByKey = new Map();
  for (const row of rows) addCounts(sums, unpackCounts(row.read_times, readTimeWidth), readTimeWidth);
  return [...sums.keys()]
    .sort((a, b) => a - b)
    .map((seconds) => {
      const [views, deepViews] = sums.get(seconds)!;
      return { seconds, views, deepViews };
    });
}
