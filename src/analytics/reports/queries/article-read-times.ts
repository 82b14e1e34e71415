// An article's page views by time on page (buckets named by their lower bound in seconds, see
// readTimeBucket), with those that also reached 90% of the text, over a range of days, shortest first.
import type { Executor } from '../../../db/schema.ts';

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
    .selectFrom('analytics_read_times')
    .where('project_id', '=', projectId)
    .where('article_id', '=', articleId)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .groupBy('seconds')
    .select((eb) => [
      'seconds',
      eb.fn.sum<number>('views').as('views'),
      eb.fn.sum<number>('deep_views').as('deep_views'),
    ])
    .orderBy('seconds')
    .execute();
  return rows.map((row) => ({
    seconds: Number(row.seconds),
    views: Number(row.views),
    deepViews: Number(row.deep_views),
  }));
}
