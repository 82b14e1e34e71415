// The counters of one article over a range of days: one rollup row a day, found by the
// (project, article, day) index.
import type { Executor } from '../../../db/schema.ts';
import { type Contribution, contributionFields } from '../../contribution.ts';

export async function articlePeriodTotals(
  executor: Executor,
  projectId: string,
  articleId: string,
  firstDay: string,
  lastDay: string,
): Promise<Contribution> {
  const row = await executor
    .selectFrom('analytics_daily_articles')
    .where('project_id', '=', projectId)
    .where('article_id', '=', articleId)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .select((eb) => contributionFields.map((field) => eb.fn.sum<number | null>(field).as(field)))
    .executeTakeFirst();
  const sums = (row ?? {}) as Record<string, number | string | null>;
  return Object.fromEntries(
    contributionFields.map((field) => [field, Number(sums[field] ?? 0)]),
  ) as unknown as Contribution;
}
