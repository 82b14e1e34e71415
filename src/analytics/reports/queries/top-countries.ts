// The countries with the most page views of a project over a range of days, ties by country code.
// Page views without a country have no rollup row and are left out. A null limit: every country.
import type { Executor } from '../../../db/schema.ts';

export interface TopCountry {
  country: string;
  views: number;
}

export async function topCountries(
  executor: Executor,
  projectId: string,
  firstDay: string,
  lastDay: string,
  limit: number | null,
): Promise<TopCountry[]> {
  const query = executor
    .selectFrom('analytics_daily_countries')
    .where('project_id', '=', projectId)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .groupBy('country')
    .select((eb) => ['country', eb.fn.sum<number>('views').as('views')])
    .orderBy('views', 'desc')
    .orderBy('country', 'asc');
  const rows = await (limit === null ? query : query.limit(limit)).execute();
  return rows.map((row) => ({ country: row.country, views: Number(row.views) }));
}
