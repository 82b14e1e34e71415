// Recomputes a project's insights rollups from its raw page views of `fromDay` on, through the same
// InsightChanges as the writes (one source of the rules). Rows are read a page at a time in (day, id)
// order, so each day's distinct visitors are counted in memory and the memory used stays bounded;
// the visitor sets are written again for the days whose ids can still arrive (yesterday, today).
import { type Kysely, sql } from 'kysely';
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

  let after: { day: string; id: string } | null = null;
  let seenDay = '';
  let seen = new Set<string>();
  const inMemory = async (candidates: VisitorCandidate[]) =>
    candidates.filter((candidate) => {
      const key = `${candidate.scope}\u0000${candidate.visitor_id}`;
      if (candidate.day !== seenDay) {
        seenDay = candidate.day;
        seen = new Set();
      }
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  for (;;) {
    let query = trx
      .selectFrom('page_views')
      .select(columns)
      .where('project_id', '=', projectId)
      .where('day', '>=', fromDay);
    if (after !== null) query = query.where(sql<boolean>`(day, id) > (${after.day}, ${after.id})`);
    const rows = await query.orderBy('day').orderBy('id').limit(pageSize).execute();
    if (rows.length === 0) break;
    const changes = new InsightChanges();
    for (const row of rows) {
      changes.addCreated({ ...row, time_on_page_ms: Number(row.time_on_page_ms) } as CreatedView);
    }
    await changes.countVisitors(async (candidates) => {
      const counted = await inMemory(candidates);
      await addToVisitorSets(
        trx,
        counted.filter((candidate) => candidate.day >= setsFromDay),
      );
      return counted;
    });
    await writeInsightRollups(trx, changes);
    const last = rows[rows.length - 1];
    after = { day: last.day, id: last.id };
    if (rows.length < pageSize) break;
  }
}
