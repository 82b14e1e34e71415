// The article statistics of the project endpoint (projects/service.ts asks for them; app.ts
// passes this function in, since projects/ sits below content/ and its rule of what is published).
// One statement over every article of the project: on SQLite it runs in the read thread, so that
// the 0.5 to 1.7 s it takes at 100,000 articles hold up no other request.
import type { Db } from '../db/database.ts';
import type { ProjectCounts } from '../projects/service.ts';
import { hasReportedStatus } from './article-status.ts';

/** Articles and views of a project, all and published now, and the bytes its texts take. */
export async function countProjectArticles(db: Db, projectId: string, now: string): Promise<ProjectCounts> {
  const query = db.kysely
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
    ]);
  const [row] = await db.readOffThread(query.compile());
  return {
    totalArticles: Number(row.total),
    publishedArticles: Number(row.published ?? 0),
    totalViews: Number(row.views ?? 0),
    publishedViews: Number(row.published_views ?? 0),
    storageUsedBytes: Number(row.storage ?? 0),
  };
}
