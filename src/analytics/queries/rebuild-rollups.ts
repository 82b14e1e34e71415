// Recomputes a project's rollups from its raw page views, with the rules of contribution.ts written
// in SQL, and the insights rollups (rebuild-insights.ts). The bulk loader of the benchmark uses it;
// tests check it agrees with the rollups kept up to date by the writes, so it can also repair a
// project's rollups should they ever be in doubt. With `fromDay`, only the days from then on are
// rebuilt: those before it may have lost raw page views to the retention, and their rollups stay.
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { contributionFields } from '../contribution.ts';
import { closedDayViews } from '../top-articles.ts';
import { shiftDay } from '../visitor.ts';
import { rollupLockKey } from '../rollup-queue.ts';
import { contributionSums } from './contribution-sql.ts';
import { rebuildInsights } from './rebuild-insights.ts';

export async function rebuildRollups(
  db: Kysely<Database>,
  projectId: string,
  today: string,
  fromDay = '0000-00-00',
): Promise<void> {
  closedDayViews.forget(projectId);
  await db.transaction().execute(async (trx) => {
    // Writes wait for the rebuild (SQLite's one writer does so anyway), so none is counted twice.
    if (trx.getExecutor().adapter instanceof PostgresAdapter) {
      await sql`lock table page_views in share mode`.execute(trx);
      await sql`select pg_advisory_xact_lock(${rollupLockKey})`.execute(trx);
    }
    // The raw rows already hold what the queued writes of these days changed.
    await trx
      .deleteFrom('rollup_queue')
      .where('project_id', '=', projectId)
      .where('day', '>=', fromDay)
      .execute();
    for (const table of [
      'analytics_daily_articles',
      'analytics_daily_countries',
      'analytics_daily_totals',
      'analytics_daily_visitors',
    ] as const) {
      await trx.deleteFrom(table).where('project_id', '=', projectId).where('day', '>=', fromDay).execute();
    }
    const counters = sql.raw(contributionFields.join(', '));
    const sums = sql.raw(contributionSums);
    await sql`insert into analytics_daily_articles (project_id, day, article_id, ${counters})
      select project_id, day, article_id, ${sums}
      from page_views where project_id = ${projectId} and day >= ${fromDay} group by project_id, day, article_id`.execute(
      trx,
    );
    await sql`insert into analytics_daily_totals (project_id, day, visitors, ${counters})
      select project_id, day, count(distinct visitor_id), ${sums}
      from page_views where project_id = ${projectId} and day >= ${fromDay} group by project_id, day`.execute(
      trx,
    );
    await sql`insert into analytics_daily_countries (project_id, day, country, views)
      select project_id, day, country, count(*) from page_views
      where project_id = ${projectId} and day >= ${fromDay} and country is not null group by project_id, day, country`.execute(
      trx,
    );
    // Only the days whose salt still lives can see their visitors again.
    await sql`insert into analytics_daily_visitors (project_id, day, visitor_id)
      select distinct project_id, day, visitor_id from page_views
      where project_id = ${projectId} and day >= ${shiftDay(today, -1)} and day >= ${fromDay}`.execute(trx);
    await rebuildInsights(trx, projectId, fromDay, shiftDay(today, -1));
  });
  closedDayViews.forget(projectId);
}
