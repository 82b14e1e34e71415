// The page views of each article of a project over a range of days, summed from the daily rollups,
// and the view counts recounted from them after a rebuild.
import { sql } from 'kysely';
import type { Executor } from '../../../db/schema.ts';

export async function articleViews(
  executor: Executor,
  projectId: string,
  firstDay: string,
  lastDay: string,
): Promise<Map<string, number>> {
  const rows = await executor
    .selectFrom('analytics_daily_articles')
    .where('project_id', '=', projectId)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .groupBy('article_id')
    .select((eb) => ['article_id', eb.fn.sum<number>('views').as('views')])
    .execute();
  return new Map(rows.map((row) => [row.article_id, Number(row.views)]));
}

/** Articles whose view counts one transaction of the recount sets. */
const articlesPerRecount = 500;

/**
 * Sets the view count of each article of the project to the views of its daily rollups (every
 * day, those past the retention included), `articlesPerRecount` articles per transaction of
 * `inTransaction`, which must keep roll-ups out (they add to both at once). Only counts that
 * differ are written, so that PostgreSQL notifies the answers showing those alone.
 */
export async function recountArticleViews(
  executor: Executor,
  projectId: string,
  inTransaction: (work: (trx: Executor) => Promise<void>) => Promise<void>,
): Promise<void> {
  let afterId = '';
  for (;;) {
    const ids = (
      await executor
        .selectFrom('articles')
        .select('id')
        .where('project_id', '=', projectId)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(articlesPerRecount)
        .execute()
    ).map((row) => row.id);
    if (ids.length === 0) return;
    await inTransaction(async (trx) => {
      const summed = sql`select article_id, sum(views) as views from analytics_daily_articles
        where project_id = ${projectId} and article_id in (${sql.join(ids)}) group by article_id`;
      await sql`insert into article_views (article_id, project_id, view_count)
        select article_id, ${projectId}, views from (${summed}) as summed where views > 0
        on conflict (article_id) do update set view_count = excluded.view_count
        where article_views.view_count <> excluded.view_count`.execute(trx);
      await sql`delete from article_views where article_id in (${sql.join(ids)})
        and not exists (select 1 from analytics_daily_articles as d
          where d.project_id = ${projectId} and d.article_id = article_views.article_id and d.views > 0)`.execute(
        trx,
      );
    });
    afterId = ids[ids.length - 1];
    if (ids.length < articlesPerRecount) return;
  }
}
