// The reported status of an article is derived from the stored one: a published article whose
// publishedAt is still in the future is `scheduled`, and becomes `published` by itself.
import type { ExpressionBuilder, ExpressionWrapper, SqlBool } from 'kysely';
import type { Database, StoredArticleStatus } from '../db/schema.ts';

export const reportedStatuses = ['draft', 'scheduled', 'published', 'archived'] as const;
export type ReportedStatus = (typeof reportedStatuses)[number];

export function reportedStatus(
  stored: StoredArticleStatus,
  publishedAt: string | null,
  now: string,
): ReportedStatus {
  if (stored !== 'published') return stored;
  return publishedAt !== null && publishedAt > now ? 'scheduled' : 'published';
}

type ArticleExpressions = ExpressionBuilder<Database, 'articles'>;

/** SQL condition: the article's reported status is `status` at the instant `now`. */
export function hasReportedStatus(
  eb: ArticleExpressions,
  status: ReportedStatus,
  now: string,
): ExpressionWrapper<Database, 'articles', SqlBool> {
  switch (status) {
    case 'published':
      return eb.and([
        eb('articles.status', '=', 'published'),
        eb.or([eb('articles.published_at', 'is', null), eb('articles.published_at', '<=', now)]),
      ]);
    case 'scheduled':
      return eb.and([eb('articles.status', '=', 'published'), eb('articles.published_at', '>', now)]);
    default:
      return eb('articles.status', '=', status);
  }
}
