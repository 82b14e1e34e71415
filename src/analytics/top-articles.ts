// The 10 articles with most page views in a period, ties by slug. Past days never change (page views
// are created at the time of their request), so the views of the days before yesterday are summed
// once and kept in memory; each request adds those of yesterday and today from the rollups. A year
// of a thousand articles is then a thousand additions instead of 365,000 rollup rows. Only a
// rebuild changes past days' rollups, from any process: it bumps the project's content version,
// which the kept sums are keyed by, so every instance sums them again on its next request.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { articleViews } from './queries/article-views.ts';
import { type ArticleName, articlesById } from './queries/articles-by-id.ts';
import { lastClosedDay, shiftDay } from './days.ts';

export interface TopArticle {
  articleId: string;
  title: string;
  slug: string;
  views: number;
}

const cacheEntries = 500;

/** Per project and range of closed days: the views of each article. One per process. */
class ClosedDayViews {
  readonly #entries = new Map<string, { views: Map<string, number>; version: number }>();

  async get(
    db: Kysely<Database>,
    projectId: string,
    firstDay: string,
    lastDay: string,
  ): Promise<Map<string, number>> {
    const key = `${projectId}\u0000${firstDay}\u0000${lastDay}`;
    // Read before the sums: a rebuild committing meanwhile leaves them under the older version.
    const version = await contentVersion(db, projectId);
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.version === version) return entry.views;
    const views = await articleViews(db, projectId, firstDay, lastDay);
    this.#entries.delete(key);
    if (this.#entries.size >= cacheEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { views, version });
    return views;
  }

  /** A page view of a past day was written (only possible from inside the process: tests, tools). */
  forget(projectId: string): void {
    for (const key of this.#entries.keys())
      if (key.startsWith(`${projectId}\u0000`)) this.#entries.delete(key);
  }
}

export const closedDayViews = new ClosedDayViews();

async function contentVersion(db: Kysely<Database>, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('projects')
    .select('content_version')
    .where('id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.content_version ?? -1);
}

export async function topArticles(
  db: Kysely<Database>,
  projectId: string,
  firstDay: string,
  lastDay: string,
  limit: number,
): Promise<TopArticle[]> {
  const closedEnd = lastClosedDay(lastDay);
  const views =
    firstDay <= closedEnd ? new Map(await closedDayViews.get(db, projectId, firstDay, closedEnd)) : new Map();
  const liveFrom = firstDay <= closedEnd ? shiftDay(closedEnd, 1) : firstDay;
  for (const [id, count] of await articleViews(db, projectId, liveFrom, lastDay)) {
    views.set(id, (views.get(id) ?? 0) + count);
  }
  return rankArticles(views, (ids) => articlesById(db, projectId, ids), limit);
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
