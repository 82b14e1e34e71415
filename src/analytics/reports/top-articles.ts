// The 10 articles with most page views in a period, ties by slug. Past days never change (page views
// are created at the time of their request), so the views of the days before yesterday come from
// the closed-day cache (closed-day-views.ts); each request adds those of yesterday and today from
// the rollups. A year of a thousand articles is then a thousand additions instead of 365,000
// rollup rows.
import type { Executor } from '../../db/schema.ts';
import type { ClosedDayViews } from '../rollups/closed-day-views.ts';
import { articleViews } from '../rollups/queries/article-views.ts';
import { type ArticleName, articlesById } from './queries/articles-by-id.ts';
import { lastClosedDay, shiftDay } from '../days.ts';

export interface TopArticle {
  articleId: string;
  title: string;
  slug: string;
  views: number;
}

/**
 * `closedDays`: the closed-day cache of the database handle that `executor` (a transaction) reads.
 * `extraViews`: views to add to the rollups' (the test views, when asked for).
 */
export async function topArticles(
  executor: Executor,
  closedDays: ClosedDayViews,
  projectId: string,
  firstDay: string,
  lastDay: string,
  limit: number,
  extraViews?: Map<string, number>,
): Promise<TopArticle[]> {
  const closedEnd = lastClosedDay(lastDay);
  // A copy: the cached map is shared.
  const views: Map<string, number> =
    firstDay <= closedEnd
      ? new Map(await closedDays.get(executor, projectId, firstDay, closedEnd))
      : new Map();
  for (const [id, count] of extraViews ?? []) views.set(id, (views.get(id) ?? 0) + count);
  const liveFrom = firstDay <= closedEnd ? shiftDay(closedEnd, 1) : firstDay;
  for (const [id, count] of await articleViews(executor, projectId, liveFrom, lastDay)) {
    views.set(id, (views.get(id) ?? 0) + count);
  }
  return rankArticles(views, (ids) => articlesById(executor, projectId, ids), limit);
}

/**
 * The `limit` existing articles with most views, ties by slug. Articles are looked up by groups in
 * order of views, each group taking every article tied with its last one, until `limit` exist:
 * an article not looked up has fewer views than all those found.
 */
export async function rankArticles(
  views: Map<string, number>,
  lookup: (ids: string[]) => Promise<ArticleName[]>,
  limit: number,
): Promise<TopArticle[]> {
  const ordered = [...views].filter(([, count]) => count > 0).sort((a, b) => b[1] - a[1]);
  const found: TopArticle[] = [];
  let next = 0;
  while (found.length < limit && next < ordered.length) {
    let end = Math.min(ordered.length, next + limit - found.length);
    while (end < ordered.length && ordered[end][1] === ordered[end - 1][1]) end++;
    const articles = await lookup(ordered.slice(next, end).map(([id]) => id));
    for (const article of articles) {
      found.push({
        articleId: article.id,
        title: article.title,
        slug: article.slug,
        views: views.get(article.id)!,
      });
    }
    next = end;
  }
  return found
    .sort((a, b) => b.views - a.views || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
    .slice(0, limit);
}
