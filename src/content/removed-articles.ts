// The articles an import's --prune removed, kept by slug (migration 0013), so that importing the
// same slug again restores the same article rather than a new one with no views: its page views
// and rollups name its id, and its view count is what it was, plus the views rolled up while it
// was gone (a page view tracked just before the prune is summed after it, without a count to add
// to). Both counts grow together while the article exists, so their difference at the restore is
// exactly what the count missed.
import { sql } from 'kysely';
import type { Executor, RemovedArticleTable } from '../db/schema.ts';

export type Removed = Pick<
  RemovedArticleTable,
  'article_id' | 'created_at' | 'published_at' | 'view_count' | 'rolled_up_views'
>;

/** The views of an article's daily rollups, which stay when the article and its count go. */
function rolledUpViews(projectId: string) {
  return sql<number>`coalesce((select sum(d.views) from analytics_daily_articles as d
    where d.project_id = ${projectId} and d.article_id = articles.id), 0)`;
}

/** Remembers the articles of `ids` (about to be deleted) by slug; a slug removed before is replaced. */
export async function rememberRemoved(
  trx: Executor,
  projectId: string,
  ids: string[],
  now: string,
): Promise<void> {
  if (ids.length === 0) return;
  const rows = await trx
    .selectFrom('articles')
    .leftJoin('article_views', 'article_views.article_id', 'articles.id')
    .select(['articles.id', 'articles.slug', 'articles.created_at', 'articles.published_at'])
    .select((eb) => [
      eb.fn.coalesce('article_views.view_count', sql<number>`0`).as('view_count'),
      rolledUpViews(projectId).as('rolled_up_views'),
    ])
    .where('articles.project_id', '=', projectId)
    .where('articles.id', 'in', ids)
    .execute();
  await trx
    .insertInto('removed_articles')
    .values(
      rows.map((row) => ({
        project_id: projectId,
        slug: row.slug,
        article_id: row.id,
        created_at: row.created_at,
        published_at: row.published_at,
        view_count: Number(row.view_count),
        rolled_up_views: Number(row.rolled_up_views),
        removed_at: now,
      })),
    )
    .onConflict((conflict) =>
      conflict.columns(['project_id', 'slug']).doUpdateSet((eb) => ({
        article_id: eb.ref('excluded.article_id'),
        created_at: eb.ref('excluded.created_at'),
        published_at: eb.ref('excluded.published_at'),
        view_count: eb.ref('excluded.view_count'),
        rolled_up_views: eb.ref('excluded.rolled_up_views'),
        removed_at: eb.ref('excluded.removed_at'),
      })),
    )
    .execute();
}

/** The project's removed articles by slug (few: one per slug ever pruned and not restored). */
export async function removedBySlug(trx: Executor, projectId: string): Promise<Map<string, Removed>> {
  const rows = await trx
    .selectFrom('removed_articles')
    .select(['slug', 'article_id', 'created_at', 'published_at', 'view_count', 'rolled_up_views'])
    .where('project_id', '=', projectId)
    .execute();
  return new Map(rows.map(({ slug, ...removed }) => [slug, removed]));
}

/**
 * Called once the article of `slug` is inserted again with its former id: gives it back its view
 * count, with the views rolled up meanwhile, and forgets it as removed.
 */
export async function restoreRemoved(
  trx: Executor,
  projectId: string,
  slug: string,
  removed: Removed,
): Promise<void> {
  const { views } = await trx
    .selectFrom('articles')
    .select(rolledUpViews(projectId).as('views'))
    .where('id', '=', removed.article_id)
    .executeTakeFirstOrThrow();
  const viewCount = Number(removed.view_count) + Number(views) - Number(removed.rolled_up_views);
  if (viewCount > 0) {
    await trx
      .insertInto('article_views')
      .values({ article_id: removed.article_id, project_id: projectId, view_count: viewCount })
      .execute();
  }
  await trx
    .deleteFrom('removed_articles')
    .where('project_id', '=', projectId)
    .where('slug', '=', slug)
    .execute();
}
