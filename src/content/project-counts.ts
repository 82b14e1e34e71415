// The article statistics of the project endpoint (projects/service.ts asks for them; app.ts
// passes this function in, since projects/ sits below content/ and its rule of what is published).
import type { Executor } from '../db/schema.ts';
import type { ProjectCounts } from '../projects/service.ts';
import { hasReportedStatus } from './article-status.ts';

/** Articles and views of a project, all and published now, and the bytes its texts take. */
export async function countProjectArticles(
  executor: Executor,
  projectId: string,
  now: string,
): Promise<ProjectCounts> {
  const row = await executor
    .selectFrom('articles')
    .leftJoin('article_views', 'article_views.article_id', 'articles.id')
    .where('articles.project_id', '=', projectId)
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(hasReportedStatus(eb, 'published', now))
            .then(1)
            .else(0)
            .end(),
        )
        .as('published'),
      eb.fn.sum<number>('article_views.view_count').as('views'),
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(hasReportedStatus(eb, 'published', now))
            .then(eb.ref('article_views.view_count'))
            .else(0)
            .end(),
        )
        .as('published_views'),
      eb.fn.sum<number>('storage_bytes').as('storage'),
    ])
    .executeTakeFirstOrThrow();
  return {
    totalArticles: Number(row.total),
    publishedArticles: Number(row.published ?? 0),
    totalViews: Number(row.views ?? 0),
    publishedViews: Number(row.published_views ?? 0),
    storageUsedBytes: Number(row.storage ?? 0),
  };
}
