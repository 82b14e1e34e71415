// The insights read side: time series, breakdowns, per-article reading (drop-off curve, reading
// time against the estimate, read ratio) and realtime visitors. Everything but realtime is read from
// the rollups of migration 0006, so an answer costs a few index range scans whatever the traffic.
import type { Db } from '../../db/database.ts';
import { readSnapshot } from '../../db/read-snapshot.ts';
import type { Project } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { type BreakdownDimension, maxSpanDays } from '../insight-rules.ts';
import { percentage, roundRatio } from '../measures.ts';
import { articleEstimate } from './queries/article-estimate.ts';
import { articleReach } from './queries/article-reach.ts';
import { articleReadTimes } from './queries/article-read-times.ts';
import { breakdownValues } from './queries/breakdown-values.ts';
import { realtimeVisitors } from './queries/realtime-visitors.ts';
import { seriesPoints } from './queries/series-points.ts';
import { shiftDay, utcDay } from '../days.ts';
import { rollUpBeforeReading } from '../rollups/rollup-queue.ts';
import {
  testViewSums,
  withTestBreakdown,
  withTestReach,
  withTestReadTimes,
  withTestSeries,
} from './test-views.ts';

export const maxHourlySpanDays = 2;
export const realtimeWindowMinutes = 5;

export interface PeriodQuery {
  days?: number;
  from?: string;
  to?: string;
  /** The page views of test keys count too (else nowhere). */
  includeTest?: boolean;
}

export interface InsightPeriod {
  days: number;
  from: string;
  to: string;
  startDate: string;
  endDate: string;
}

function isCalendarDay(day: string): boolean {
  const parsed = new Date(`${day}T00:00:00.000Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === day;
}

function daysBetween(first: string, last: string): number {
  return Math.round((Date.parse(`${last}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / 86_400_000) + 1;
}

/**
 * `days` (today and the `days − 1` before it, default 30), or `from` and optionally `to` (UTC
 * dates, inclusive; `to` defaults to today). Every problem is a 400 naming its parameter.
 */
export function resolvePeriod(query: PeriodQuery, now: Date): InsightPeriod {
  const today = utcDay(now);
  if (query.days !== undefined && (query.from !== undefined || query.to !== undefined)) {
    throw new ValidationError([{ field: 'days', message: 'give either `days` or `from`/`to`, not both' }]);
  }
  let from: string;
  let to: string;
  if (query.from === undefined) {
    if (query.to !== undefined) {
      throw new ValidationError([{ field: 'from', message: '`to` needs `from`' }]);
    }
    to = today;
    from = shiftDay(today, -((query.days ?? 30) - 1));
  } else {
    from = query.from;
    to = query.to ?? today;
    const issues = [];
    for (const [field, day] of [
      ['from', from],
      ['to', to],
    ] as const) {
      if (!isCalendarDay(day))
        issues.push({ field, message: `'${day}' is not a calendar date (YYYY-MM-DD)` });
      else if (day > today) issues.push({ field, message: `must not be after today (${today}, UTC)` });
    }
    if (issues.length > 0) throw new ValidationError(issues);
    if (from > to) throw new ValidationError([{ field: 'from', message: 'must not be after `to`' }]);
    if (daysBetween(from, to) > maxSpanDays) {
      throw new ValidationError([
        { field: 'from', message: `the period may span at most ${maxSpanDays} days` },
      ]);
    }
  }
  return {
    days: daysBetween(from, to),
    from,
    to,
    startDate: `${from}T00:00:00.000Z`,
    endDate: to === today ? now.toISOString() : `${to}T23:59:59.999Z`,
  };
}

function periodAnswer(period: InsightPeriod) {
  return { ...period };
}

export type Interval = 'hour' | 'day';

export async function timeSeries(
  db: Db,
  project: Project,
  query: PeriodQuery & { interval?: Interval; slug?: string },
  now: Date,
) {
  await rollUpBeforeReading(db);
  const period = resolvePeriod(query, now);
  const interval = query.interval ?? (period.days <= maxHourlySpanDays ? 'hour' : 'day');
  if (interval === 'hour' && period.days > maxHourlySpanDays) {
    throw new ValidationError([
      { field: 'interval', message: `hourly series cover at most ${maxHourlySpanDays} days` },
    ]);
  }
  let articleId = '';
  if (query.slug !== undefined) {
    const article = await articleEstimate(db.kysely, project.id, query.slug);
    if (article === null) throw new NotFoundError(`Article '${query.slug}' not found`);
    articleId = article.id;
  }
  const lastTime = now.toISOString().slice(0, 13);
  const buckets: string[] = [];
  for (let day = period.from; day <= period.to; day = shiftDay(day, 1)) {
    if (interval === 'day') buckets.push(day);
    else {
      for (let hour = 0; hour < 24; hour++) {
        const bucket = `${day}T${String(hour).padStart(2, '0')}`;
        if (bucket <= lastTime) buckets.push(bucket);
      }
    }
  }
  const granularity = interval === 'hour' ? 'h' : 'd';
  const [first, last] = [buckets[0], buckets[buckets.length - 1]];
  let points = await seriesPoints(db.kysely, project.id, articleId, granularity, first, last);
  if (query.includeTest === true) {
    const test = await testViewSums(db.kysely, project.id, period.from, period.to);
    points = withTestSeries(points, test, articleId, granularity, first, last);
  }
  const stored = new Map(points.map((point) => [point.bucket, point]));
  return {
    data: {
      period: periodAnswer(period),
      interval,
      slug: query.slug ?? null,
      points: buckets.map((bucket) => {
        const point = stored.get(bucket);
        const views = point?.views ?? 0;
        return {
          time: interval === 'hour' ? `${bucket}:00:00.000Z` : `${bucket}T00:00:00.000Z`,
          views,
          visitors: point?.visitors ?? 0,
          avgTimeOnPage: roundRatio(point?.time_on_page_ms ?? 0, views * 1000, 1),
          avgScrollDepth: roundRatio(point?.scroll_depth_centi ?? 0, views * 100, 1),
        };
      }),
    },
  };
}

export interface BreakdownQuery extends PeriodQuery {
  page?: number;
  limit?: number;
}

export const defaultBreakdownLimit = 100;

/** One page of a breakdown; `all` (CSV export without page or limit) returns every value. */
export async function breakdown(
  db: Db,
  project: Project,
  dimension: BreakdownDimension,
  query: BreakdownQuery,
  now: Date,
  all = false,
) {
  await rollUpBeforeReading(db);
  const period = resolvePeriod(query, now);
  const page = query.page ?? 1;
  const limit = query.limit ?? defaultBreakdownLimit;
  const paged = !(all && query.page === undefined && query.limit === undefined);
  const { values, total } =
    query.includeTest === true
      ? await breakdownWithTest(
          db,
          project,
          dimension,
          period,
          paged ? { limit, offset: (page - 1) * limit } : null,
        )
      : await breakdownValues(
          db.kysely,
          project.id,
          dimension,
          period.from,
          period.to,
          paged ? { limit, offset: (page - 1) * limit } : null,
        );
  return {
    data: values.map((value) =>
      dimension === 'event' ? value : { value: value.value, views: value.views, visitors: value.visitors },
    ),
    meta: {
      dimension,
      period: periodAnswer(period),
      page: paged ? page : 1,
      limit: paged ? limit : Math.max(total, 1),
      total,
      totalPages: paged ? Math.ceil(total / limit) : total === 0 ? 0 : 1,
    },
  };
}

/** Every value with the test views', then the page: the merged order decides what a page holds. */
async function breakdownWithTest(
  db: Db,
  project: Project,
  dimension: BreakdownDimension,
  period: InsightPeriod,
  page: { limit: number; offset: number } | null,
) {
  const [{ values }, test] = await readSnapshot(
    db,
    async (trx) =>
      [
        await breakdownValues(trx, project.id, dimension, period.from, period.to, null),
        await testViewSums(trx, project.id, period.from, period.to),
      ] as const,
  );
  const merged = withTestBreakdown(values, test, dimension);
  return {
    values: page === null ? merged : merged.slice(page.offset, page.offset + page.limit),
    total: merged.length,
  };
}

export const dropOffPositions = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

/** The lower median of the reading-time buckets: the bucket of the ⌈n/2⌉-th shortest view. */
function medianSeconds(buckets: Array<{ seconds: number; views: number }>, views: number): number | null {
  if (views === 0) return null;
  const rank = Math.ceil(views / 2);
  let seen = 0;
  for (const bucket of buckets) {
    seen += bucket.views;
    if (seen >= rank) return bucket.seconds;
  }
  return null;
}

export async function articleReading(db: Db, project: Project, slug: string, query: PeriodQuery, now: Date) {
  await rollUpBeforeReading(db);
  const period = resolvePeriod(query, now);
  const article = await articleEstimate(db.kysely, project.id, slug);
  if (article === null) throw new NotFoundError(`Article '${slug}' not found`);
  const [reach, times] = await readSnapshot(db, async (trx) => {
    const stored = [
      await articleReach(trx, project.id, article.id, period.from, period.to),
      await articleReadTimes(trx, project.id, article.id, period.from, period.to),
    ] as const;
    if (query.includeTest !== true) return stored;
    const test = await testViewSums(trx, project.id, period.from, period.to);
    return [
      withTestReach(stored[0], test, article.id),
      withTestReadTimes(stored[1], test, article.id),
    ] as const;
  });
  const views = reach.reduce((sum, count) => sum + count, 0);
  const estimatedSeconds = article.readTimeMinutes * 60;
  const halfEstimate = estimatedSeconds / 2;
  const reads = times
    .filter((bucket) => bucket.seconds >= halfEstimate)
    .reduce((sum, bucket) => sum + bucket.deepViews, 0);
  const median = medianSeconds(times, views);
  return {
    data: {
      article: { slug: article.slug, title: article.title, readTimeMinutes: article.readTimeMinutes },
      period: periodAnswer(period),
      pageViews: views,
      dropOff: dropOffPositions.map((position, decile) => {
        const readers = reach.slice(decile).reduce((sum, count) => sum + count, 0);
        return { position, readers, percentage: percentage(readers, views) };
      }),
      readingTime: {
        estimatedSeconds,
        medianSeconds: median,
        medianToEstimate:
          median === null || estimatedSeconds === 0 ? null : roundRatio(median, estimatedSeconds, 2),
      },
      readRatio: { reads, pageViews: views, percentage: percentage(reads, views) },
    },
  };
}

export async function realtime(db: Db, project: Project, now: Date, includeTest = false) {
  const since = new Date(now.getTime() - realtimeWindowMinutes * 60_000).toISOString();
  const counts = await realtimeVisitors(db.kysely, project.id, since, now.toISOString(), includeTest);
  return {
    data: { ...counts, windowMinutes: realtimeWindowMinutes, since, until: now.toISOString() },
  };
}
