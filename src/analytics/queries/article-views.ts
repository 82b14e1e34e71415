// The page views of each article of a project over a range of days, summed from the daily rollups.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

export async function articleViews(
  db: Kysely<Database>,
  projectId: string,
  firstDay: string,
  lastDay: string,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('analytics_daily_articles')
    .where('project_id', '=', projectId)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .groupBy('article_id')
    .select((eb) => ['article_id', eb.fn.sum<number>('views').as('views')])
    .execute();
  return new Map(rows.map((row) => [row.article_id, Number(row.views)]));
}
