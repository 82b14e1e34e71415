// Statistics and the scroll funnel of a period, computed from the daily rollups (never by scanning
// raw page views), all read in one transaction so that the figures of an answer agree.
import type { Db } from '../../db/database.ts';
import { readSnapshot } from '../../db/read-snapshot.ts';
import type { Project } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { percentage, roundRatio } from '../measures.ts';
import { articlePeriodTotals } from './queries/article-period-totals.ts';
import { findArticleId } from './queries/article-id.ts';
import { type PeriodTotals, periodTotals } from './queries/period-totals.ts';
import type { Contribution } from '../contribution.ts';
import {
  testArticleViews,
  testViewSums,
  withTestArticleTotals,
  withTestCountries,
  withTestTotals,
} from './test-views.ts';
import { topCountries } from './queries/top-countries.ts';
import { topArticles } from './top-articles.ts';
import { closedDayViewsOf } from '../rollups/closed-day-views.ts';
import { shiftDay, utcDay } from '../days.ts';
import { rollUpBeforeReading } from '../rollups/rollup-queue.ts';

export interface Period {
  days: number;
  startDate: string;
  endDate: string;
  firstDay: string;
  lastDay: string;
}

/** From 00:00 UTC of the day `days − 1` days before today, to now. */
export function periodOf(days: number, now: Date): Period {
  const lastDay = utcDay(now);
  const firstDay = shiftDay(lastDay, -(days - 1));
  return { days, startDate: `${firstDay}T00:00:00.000Z`, endDate: now.toISOString(), firstDay, lastDay };
}

const topLimit = 10;

/** `includeTest`: the page views of test keys count too (else nowhere). */
export async function projectStats(db: Db, project: Project, days: number, now: Date, includeTest = false) {
  await rollUpBeforeReading(db);
  const period = periodOf(days, now);
  const { firstDay, lastDay } = period;
  const closedDays = closedDayViewsOf(db);
  const [totals, articles, countries] = await readSnapshot(db, async (trx) => {
    if (!includeTest) {
      return [
        await periodTotals(trx, project.id, firstDay, lastDay),
        await topArticles(trx, closedDays, project.id, firstDay, lastDay, topLimit),
        await topCountries(trx, project.id, firstDay, lastDay, topLimit),
      ] as const;
    }
    const test = await testViewSums(trx, project.id, firstDay, lastDay);
    return [
      withTestTotals(await periodTotals(trx, project.id, firstDay, lastDay), test),
      await topArticles(trx, closedDays, project.id, firstDay, lastDay, topLimit, testArticleViews(test)),
      withTestCountries(await topCountries(trx, project.id, firstDay, lastDay, null), test, topLimit),
    ] as const;
  });
  return {
    data: {
      period: { days, startDate: period.startDate, endDate: period.endDate },
      summary: {
        totalViews: totals.views,
        uniqueVisitors: totals.visitors,
        avgViewsPerVisitor: roundRatio(totals.views, totals.visitors, 2),
      },
      requestSource: {
        sdk: percentage(totals.sdk_views, totals.views),
        direct: percentage(totals.views - totals.sdk_views, totals.views),
      },
      topArticles: articles,
      topCountries: countries,
    },
  };
}

export async function scrollFunnel(
  db: Db,
  project: Project,
  days: number,
  slug: string | undefined,
  now: Date,
  includeTest = false,
) {
  await rollUpBeforeReading(db);
  const period = periodOf(days, now);
  let articleId: string | null = null;
  if (slug !== undefined) {
    articleId = await findArticleId(db, project.id, slug);
    if (articleId === null) throw new NotFoundError(`Article '${slug}' not found`);
  }
  let totals: Contribution =
    articleId === null
      ? await periodTotals(db.kysely, project.id, period.firstDay, period.lastDay)
      : await articlePeriodTotals(db.kysely, project.id, articleId, period.firstDay, period.lastDay);
  if (includeTest) {
    const test = await testViewSums(db.kysely, project.id, period.firstDay, period.lastDay);
    totals =
      articleId === null
        ? withTestTotals(totals as PeriodTotals, test)
        : withTestArticleTotals(totals, test, articleId);
  }
  const views = totals.views;
  return {
    period: { days, startDate: period.startDate, endDate: period.endDate },
    funnel: {
      pageViews: views,
      reached25: totals.reached25,
      reached50: totals.reached50,
      reached75: totals.reached75,
      reached90: totals.reached90,
      percentages: {
        reached25: percentage(totals.reached25, views),
        reached50: percentage(totals.reached50, views),
        reached75: percentage(totals.reached75, views),
        reached90: percentage(totals.reached90, views),
      },
    },
    engagement: {
      avgTimeOnPage: roundRatio(totals.time_on_page_ms, views * 1000, 1),
      avgScrollDepth: roundRatio(totals.scroll_depth_centi, views * 100, 1),
      bounceRate: percentage(totals.bounced, views),
      engagementRate: percentage(totals.engaged, views),
    },
  };
}
