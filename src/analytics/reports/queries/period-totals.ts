// The counters of a whole project over a range of days, and its unique visitors (the sum of each
// day's distinct visitor ids: ids change every day). One rollup row a day is read.
import type { Executor } from '../../../db/schema.ts';
import { type Contribution, contributionFields } from '../../contribution.ts';

export interface PeriodTotals extends Contribution {
  visitors: number;
}

const fields = ['visitors', ...contributionFields] as const;

export async function periodTotals(
  executor: Executor,
  projectId: string,
  firstDay: string,
  lastDay: string,
): Promise<PeriodTotals> {
  const row = await executor
    .selectFrom('analytics_daily_totals')
    .where('project_id', '=', projectId)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .select((eb) => fields.map((field) => eb.fn.sum<number | null>(field).as(field)))
    .executeTakeFirst();
  const sums = (row ?? {}) as Record<string, number | string | null>;
  return Object.fromEntries(
    fields.map((field) => [field, Number(sums[field] ?? 0)]),
  ) as unknown as PeriodTotals;
}
