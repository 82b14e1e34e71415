// Distinct visitors and page views of a project between two instants: read from the raw page
// views, since the window is a few minutes: a range of creation times within each of its (one or
// two) days of the (project_num, day, created_ms, rid) key. Page views an older release left in
// page_views are moved within minutes of the start of this one, and count here once moved.
// The upper bound keeps out page views stamped later than now (a clock that stepped back, imported
// rows).
import { sql } from 'kysely';
import { epochOf } from '../../../db/page-view-rows.ts';
import type { Executor } from '../../../db/schema.ts';
import { shiftDay, utcDay } from '../../days.ts';
import { projectNumSql } from '../../../db/id-numbers.ts';

export async function realtimeVisitors(
  executor: Executor,
  projectId: string,
  since: string,
  until: string,
  includeTest: boolean,
): Promise<{ visitors: number; pageViews: number }> {
  const sinceMs = Date.parse(since);
  const untilMs = Date.parse(until);
  const days: string[] = [];
  for (let day = utcDay(sinceMs); day <= utcDay(untilMs); day = shiftDay(day, 1)) days.push(day);
  if (days.length === 0) return { visitors: 0, pageViews: 0 };
  // Each day's window as a range of created_ms, in the (project_num, day, created_ms, rid) key.
  const windows = days.map(
    (day) =>
      sql`(r.day = ${day} and r.created_ms >= ${sinceMs - epochOf(day)} and r.created_ms <= ${untilMs - epochOf(day)})`,
  );
  const { rows } = await sql<{ visitors: number; page_views: number }>`
    select count(distinct r.visitor) as visitors, count(*) as page_views from page_view_rows as r
    where r.project_num = ${projectNumSql(projectId)}
      and (${sql.join(windows, sql` or `)}) ${includeTest ? sql`` : sql`and r.test = 0`}`.execute(executor);
  return { visitors: Number(rows[0].visitors), pageViews: Number(rows[0].page_views) };
}
