// The stored hours or days of a series (the project's, or one article's) between two buckets; the
// buckets without page views have no row. An article's days are its daily rollup rows.
import type { Executor } from '../../../db/schema.ts';

export interface SeriesPoint {
  bucket: string;
  views: number;
  visitors: number;
  time_on_page_ms: number;
  scroll_depth_centi: number;
}

export async function seriesPoints(
  executor: Executor,
  projectId: string,
  articleId: string,
  granularity: 'h' | 'd',
  firstBucket: string,
  lastBucket: string,
): Promise<SeriesPoint[]> {
  const rows =
    articleId !== '' && granularity === 'd'
      ? await executor
          .selectFrom('analytics_daily_articles')
          .select(['day as bucket', 'views', 'visitors', 'time_on_page_ms', 'scroll_depth_centi'])
          .where('project_id', '=', projectId)
          .where('article_id', '=', articleId)
          .where('day', '>=', firstBucket)
          .where('day', '<=', lastBucket)
          .orderBy('day')
          .execute()
      : await storedSeries(executor, projectId, articleId, granularity, firstBucket, lastBucket);
  return rows.map((row) => ({
    bucket: row.bucket,
    views: Number(row.views),
    visitors: Number(row.visitors),
    time_on_page_ms: Number(row.time_on_page_ms),
    scroll_depth_centi: Number(row.scroll_depth_centi),
  }));
}

function storedSeries(
  executor: Executor,
  projectId: string,
  articleId: string,
  granularity: 'h' | 'd',
  firstBucket: string,
  lastBucket: string,
) {
  return executor
    .selectFrom('analytics_series')
    .select(['bucket', 'views', 'visitors', 'time_on_page_ms', 'scroll_depth_centi'])
    .where('project_id', '=', projectId)
    .where('article_id', '=', articleId)
    .where('granularity', '=', granularity)
    .where('bucket', '>=', firstBucket)
    .where('bucket', '<=', lastBucket)
    .orderBy('bucket')
    .execute();
}
