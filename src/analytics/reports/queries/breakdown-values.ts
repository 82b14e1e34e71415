// The values of one breakdown dimension over a range of days, with their views, visitors (the sum
// of each day's distinct visitors) and events, most viewed first, ties by value in byte order; with
// the number of distinct values, for paging.
import { sql } from 'kysely';
import type { Executor } from '../../../db/schema.ts';

export interface BreakdownValue {
  value: string;
  views: number;
  visitors: number;
  events: number;
}

export async function breakdownValues(
  executor: Executor,
  projectId: string,
  dimension: string,
  firstDay: string,
  lastDay: string,
  page: { limit: number; offset: number } | null,
): Promise<{ values: BreakdownValue[]; total: number }> {
  let query = executor
    .selectFrom('analytics_breakdowns')
    .where('project_id', '=', projectId)
    .where('dimension', '=', dimension)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .groupBy('value')
    .select((eb) => [
      'value',
      eb.fn.sum<number>('views').as('views'),
      eb.fn.sum<number>('visitors').as('visitors'),
      eb.fn.sum<number>('events').as('events'),
      sql<number>`count(*) over ()`.as('total'),
    ])
    .having((eb) => eb.fn.sum('views'), '>', 0)
    .orderBy('views', 'desc')
    .orderBy('value', 'asc');
  if (page !== null) query = query.limit(page.limit).offset(page.offset);
  const rows = await query.execute();
  let total = rows.length > 0 ? Number(rows[0].total) : 0;
  // A page past the end has no row to carry the total: count the values alone.
  if (rows.length === 0 && page !== null && page.offset > 0) {
    const counted = await executor
      .selectFrom((eb) =>
        eb
          .selectFrom('analytics_breakdowns')
          .where('project_id', '=', projectId)
          .where('dimension', '=', dimension)
          .where('day', '>=', firstDay)
          .where('day', '<=', lastDay)
          .groupBy('value')
          .having((having) => having.fn.sum('views'), '>', 0)
          .select('value')
          .as('v'),
      )
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    total = Number(counted.total);
  }
  return {
    values: rows.map((row) => ({
      value: row.value,
      views: Number(row.views),
      visitors: Number(row.visitors),
      events: Number(row.events),
    })),
    total,
  };
}
