// Recomputes a project's insights rollups from its raw page views of `fromDay` on, through the same
// InsightChanges as the writes (one source of the rules). Rows are read a day at a time, in pages,
// so each day's distinct visitors are counted in memory and the memory used stays bounded; the
// visitor sets are written again for the days whose ids can still arrive (yesterday, today).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { type CreatedView, InsightChanges, type VisitorCandidate } from '../insight-changes.ts';
import { addToVisitorSets, writeInsightRollups } from './write-insights.ts';

const pageSize = 5000;

const columns = [
  'id',
  'project_id',
  'article_id',
  'day',
  'created_at',
  'visitor_id',
  'time_on_page_ms',
  'scroll_depth_centi',
  'exit_position',
  'events',
  'country',
  'screen_width',
  'referrer',
  'page_url',
  'utm_source',
  'utm_medium',
  'utm_campaign',
] as const;

/** Inside the caller's transaction: replaces the insights rollups of the days from `fromDay`. */
export async function rebuildInsights(
  trx: Kysely<Database>,
  projectId: string,
  fromDay: string,
  setsFromDay: string,
): Promise<void> {
  for (const table of ['analytics_reading', 'analytics_read_times', 'analytics_breakdowns'] as const) {
    await trx.deleteFrom(table).where('project_id', '=', projectId).where('day', '>=', fromDay).execute();
  }
  // Hour buckets `YYYY-MM-DDTHH` of a day sort after the day itself.
  await trx
    .deleteFrom('analytics_series')
    .where('project_id', '=', projectId)
    .where('bucket', '>=', fromDay)
    .execute();
  await trx
    .deleteFrom('analytics_visitor_sets')
    .where('project_id', '=', projectId)
    .where('day', '>=', fromDay)
    .execute();

  const days = await trx
    .selectFrom('page_views')
    .select('day')
    .distinct()
    .where('project_id', '=', projectId)
    .where('day', '>=', fromDay)
    .orderBy('day')
    .execute();
  for (const { day } of days) {
    // The distinct visitors of each scope of the day, counted in memory.
    const seen = new Set<string>();
    const inMemory = (candidates: VisitorCandidate[]) =>
      candidates.filter((candidate) => {
        const key = `${candidate.scope}\u0000${candidate.visitor_id}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    let afterId = '';
    for (;;) {
      const rows = await trx
        .selectFrom('page_views')
        .select(columns)
        .where('project_id', '=', projectId)
        .where('day', '=', day)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(pageSize)
        .execute();
      if (rows.length === 0) break;
      const changes = new InsightChanges();
      for (const row of rows) {
        changes.addCreated({ ...row, time_on_page_ms: Number(row.time_on_page_ms) } as CreatedView);
      }
      await changes.countVisitors(async (candidates) => {
        const counted = inMemory(candidates);
        if (day >= setsFromDay) await addToVisitorSets(trx, counted);
        return counted;
      });
      await writeInsightRollups(trx, changes);
      afterId = rows[rows.length - 1].id;
      if (rows.length < pageSize) break;
    }
  }
}
