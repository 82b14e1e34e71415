// The page views of test keys, for the reports asked to include them (`includeTest=true`). They
// count in no rollup, so that the normal reports read exactly what they read without them; here
// they are summed from their raw rows, by the same RollupChanges and InsightChanges as the
// roll-ups use, so that each figure is what it would be had they been normal views. Test views are
// few (a blog's own end-to-end tests), and a partial index holds them alone (migration 0018).
import type {
  AnalyticsBreakdownTable,
  AnalyticsReadingTable,
  AnalyticsReadTimeTable,
  AnalyticsSeriesTable,
  Executor,
} from '../../db/schema.ts';
import { addContribution, type Contribution, emptyContribution } from '../contribution.ts';
import { countNewDayVisitors, InsightChanges, reachColumns } from '../rollups/insight-changes.ts';
import {
  type ArticleRollup,
  type CountryRollup,
  type DayRollup,
  RollupChanges,
} from '../rollups/rollup-changes.ts';
import type { BreakdownValue } from './queries/breakdown-values.ts';
import type { ReadTimeBucket } from './queries/article-read-times.ts';
import type { PeriodTotals } from './queries/period-totals.ts';
import type { SeriesPoint } from './queries/series-points.ts';
import type { PageViewCursor } from '../../db/page-view-reads.ts';
import { testPageViews } from './queries/test-page-views.ts';
import type { TopCountry } from './queries/top-countries.ts';

const pageSize = 5000;

/** The rollup rows that the test views of a period would have written. */
export interface TestViewSums {
  days: DayRollup[];
  articles: ArticleRollup[];
  countries: CountryRollup[];
  series: AnalyticsSeriesTable[];
  breakdowns: AnalyticsBreakdownTable[];
  reading: AnalyticsReadingTable[];
  readTimes: AnalyticsReadTimeTable[];
}

/**
 * The test views' rollups of the days `firstDay` to `lastDay`. Distinct visitors are counted among
 * the test views (per day, and per hour, article and breakdown value like the rollups): a visitor
 * seen that day with a normal key too counts once in each.
 */
export async function testViewSums(
  executor: Executor,
  projectId: string,
  firstDay: string,
  lastDay: string,
): Promise<TestViewSums> {
  const daily = new RollupChanges();
  const insights = new InsightChanges();
  for (let after: PageViewCursor | null = null; ;) {
    const page = await testPageViews(executor, projectId, firstDay, lastDay, after, pageSize);
    for (const row of page.views) {
      daily.addCreated(row);
      insights.addCreated(row);
    }
    if (page.next === null) break;
    after = page.next;
  }
  // Every row is in these changes, which hold each visitor once per set: all are new.
  countNewDayVisitors(daily, insights, daily.visitors);
  await insights.countVisitors(async (candidates) => candidates);
  return {
    days: daily.days,
    articles: daily.articles,
    countries: daily.countries,
    series: insights.series,
    breakdowns: insights.breakdowns,
    reading: insights.reading,
    readTimes: insights.readTimes,
  };
}

/** The project's totals with the test views'. */
export function withTestTotals(totals: PeriodTotals, test: TestViewSums): PeriodTotals {
  const sum: PeriodTotals = { ...totals };
  for (const day of test.days) {
    addContribution(sum, day);
    sum.visitors += day.visitors;
  }
  return sum;
}

/** One article's totals with its test views'. */
export function withTestArticleTotals(
  totals: Contribution,
  test: TestViewSums,
  articleId: string,
): Contribution {
  const sum = { ...emptyContribution(), ...totals };
  for (const row of test.articles) if (row.article_id === articleId) addContribution(sum, row);
  return sum;
}

/** The test views of each article. */
export function testArticleViews(test: TestViewSums): Map<string, number> {
  const views = new Map<string, number>();
  for (const row of test.articles) views.set(row.article_id, (views.get(row.article_id) ?? 0) + row.views);
  return views;
}

/** Every country's views (`countries`: all of them, not a top) with the test views', the top `limit`. */
export function withTestCountries(countries: TopCountry[], test: TestViewSums, limit: number): TopCountry[] {
  const views = new Map(countries.map((row) => [row.country, row.views]));
  for (const row of test.countries) views.set(row.country, (views.get(row.country) ?? 0) + row.views);
  return [...views]
    .map(([country, count]) => ({ country, views: count }))
    .sort((a, b) => b.views - a.views || byteOrder(a.country, b.country))
    .slice(0, limit);
}

/** A series' stored points with the test views' of the same series, buckets `first` to `last`. */
export function withTestSeries(
  points: SeriesPoint[],
  test: TestViewSums,
  articleId: string,
  granularity: 'h' | 'd',
  first: string,
  last: string,
): SeriesPoint[] {
  const byBucket = new Map(points.map((point) => [point.bucket, { ...point }]));
  for (const row of test.series) {
    if (row.article_id !== articleId || row.granularity !== granularity) continue;
    if (row.bucket < first || row.bucket > last) continue;
    const point = byBucket.get(row.bucket);
    if (point === undefined) byBucket.set(row.bucket, { ...row });
    else {
      point.views += row.views;
      point.visitors += row.visitors;
      point.time_on_page_ms += row.time_on_page_ms;
      point.scroll_depth_centi += row.scroll_depth_centi;
    }
  }
  return [...byBucket.values()].sort((a, b) => byteOrder(a.bucket, b.bucket));
}

/**
 * Every value of a breakdown (`values`: all of them, unpaged) with the test views', in the order
 * of the breakdown: most viewed first, ties by value in byte order.
 */
export function withTestBreakdown(
  values: BreakdownValue[],
  test: TestViewSums,
  dimension: string,
): BreakdownValue[] {
  const byValue = new Map(values.map((value) => [value.value, { ...value }]));
  for (const row of test.breakdowns) {
    if (row.dimension !== dimension) continue;
    const value = byValue.get(row.value);
    if (value === undefined)
      byValue.set(row.value, {
        value: row.value,
        views: row.views,
        visitors: row.visitors,
        events: row.events,
      });
    else {
      value.views += row.views;
      value.visitors += row.visitors;
      value.events += row.events;
    }
  }
  return [...byValue.values()]
    .filter((value) => value.views > 0)
    .sort((a, b) => b.views - a.views || byteOrder(a.value, b.value));
}

/** An article's reach deciles with its test views'. */
export function withTestReach(reach: number[], test: TestViewSums, articleId: string): number[] {
  const sum = [...reach];
  for (const row of test.reading) {
    if (row.article_id !== articleId) continue;
    reachColumns.forEach((column, decile) => (sum[decile] += row[column]));
  }
  return sum;
}

/** An article's reading-time buckets with its test views', shortest first. */
export function withTestReadTimes(
  times: ReadTimeBucket[],
  test: TestViewSums,
  articleId: string,
): ReadTimeBucket[] {
  const bySeconds = new Map(times.map((time) => [time.seconds, { ...time }]));
  for (const row of test.readTimes) {
    if (row.article_id !== articleId) continue;
    const time = bySeconds.get(row.seconds);
    if (time === undefined)
      bySeconds.set(row.seconds, { seconds: row.seconds, views: row.views, deepViews: row.deep_views });
    else {
      time.views += row.views;
      time.deepViews += row.deep_views;
    }
  }
  return [...bySeconds.values()].sort((a, b) => a.seconds - b.seconds);
}

/** The order of the database's text keys (PostgreSQL's "C" collation, SQLite's BINARY): UTF-8 bytes. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
