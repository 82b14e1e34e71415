// The stored hours or days of a series (the project's, or one article's) between two buckets; the
// buckets without page views have no row. An article's days and hours are in its daily rows.
import type { Executor } from '../../../db/schema.ts';
import { hourWidth, unpackCounts } from '../../rollups/packed-counts.ts';

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
  if (articleId !== '')
    return articlePoints(executor, projectId, articleId, granularity, firstBucket, lastBucket);
  const rows = await executor
    .selectFrom('analytics_series')
    .select(['bucket', 'views', 'visitors', 'time_on_page_ms', 'scroll_depth_centi'])
    .where('project_id', '=', projectId)
    .where('article_id', '=', '')
    .where('granularity', '=', granularity)
    .where('bucket', '>=', firstBucket)
    .where('bucket', '<=', lastBucket)
    .orderBy('bucket')
    .execute();
  return rows.map((row) => ({
    bucket: row.bucket,
    views: Number(row.views),
    visitors: Number(row.visitors),
    time_on_page_ms: Number(row.time_on_page_ms),
    scroll_depth_centi: Number(row.scroll_depth_centi),
  }));
}

/** An article's days, or hours, from its daily rows (a day's hours are packed in its row). */
async function articlePoints(
  executor: Executor,
  projectId: string,
  articleId: string,
  granularity: 'h' | 'd',
  firstBucket: string,
  lastBucket: string,
): Promise<SeriesPoint[]> {
  const rows = await executor
    .selectFrom('analytics_daily_articles')
    .select(['day', 'views', 'visitors', 'time_on_page_ms', 'scroll_depth_centi', 'hours'])
    .where('project_id', '=', projectId)
    .where('article_id', '=', articleId)
    .where('day', '>=', firstBucket.slice(0, 10))
    .where('day', '<=', lastBucket.slice(0, 10))
    .orderBy('day')
    .execute();
  if (granularity === 'd') {
    return rows.map((row) => ({
      bucket: row.day,
      views: Number(row.views),
      visitors: Number(row.visitors),
      time_on_page_ms: Number(row.time_on_page_ms),
      scroll_depth_centi: Number(row.scroll_depth_centi),
    }));
  }
  const points: SeriesPoint[] = [];
  for (const row of rows) {
    const hours = unpackCounts(row.hours, hourWidth);
    for (const hour of [...hours.keys()].sort((a, b) => a - b)) {
      const bucket = `${row.day}T${String(hour).padStart(2, '0')}`;
      if (bucket < firstBucket || bucket > lastBucket) continue;
      const [views, visitors, time_on_page_ms, scroll_depth_centi] = hours.get(hour)!;
      points.push({ bucket, views, visitors, time_on_page_ms, scroll_depth_centi });
    }
  }
  return points;
}
