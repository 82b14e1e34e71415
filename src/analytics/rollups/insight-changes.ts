// The changes a batch of page-view writes (or a rebuild) makes to the insights rollups, summed per
// rollup row, with the (scope, visitor) pairs that may add a distinct visitor to a row. Updates add
// the difference between a page view after and before, so rollups always equal a sum over raw rows.
import type {
  AnalyticsBreakdownTable,
  AnalyticsReach,
  AnalyticsReadingTable,
  AnalyticsReadTimeTable,
  AnalyticsSeriesTable,
  PageViewTable,
} from '../../db/schema.ts';
import {
  type BreakdownDimension,
  deepFromCenti,
  deviceClass,
  eventTypeCounts,
  hourOf,
  reachDecile,
  readTimeBucket,
  referrerSource,
  unknown,
  utmValue,
} from '../insight-rules.ts';
import type { CountsByKey } from './packed-counts.ts';

/** The columns of a page view that the insights rollups depend on. */
export type InsightView = Pick<
  PageViewTable,
  | 'project_id'
  | 'article_id'
  | 'day'
  | 'created_at'
  | 'visitor_id'
  | 'time_on_page_ms'
  | 'scroll_depth_centi'
  | 'exit_position'
  | 'events'
>;

/** The columns of a new page view that its breakdown rows depend on. */
export const breakdownColumns = [
  'project_id',
  'day',
  'visitor_id',
  'events',
  'country',
  'screen_width',
  'referrer',
  'page_url',
  'utm_source',
  'utm_medium',
  'utm_campaign',
] as const satisfies ReadonlyArray<keyof PageViewTable>;
export type BreakdownView = Pick<PageViewTable, (typeof breakdownColumns)[number]>;

export type CreatedView = InsightView &
  Pick<
    PageViewTable,
    'country' | 'screen_width' | 'referrer' | 'page_url' | 'utm_source' | 'utm_medium' | 'utm_campaign'
  >;

/** What a batch adds to an article's daily row, besides its counters. */
export interface ArticleDay extends AnalyticsReach {
  project_id: string;
  day: string;
  article_id: string;
  visitors: number;
  /** By hour of the day: views, visitors, time on page and scroll depth (packed-counts.ts). */
  hours: CountsByKey;
  /** By reading-time bucket: views and deep views. */
  readTimes: CountsByKey;
}

/** A distinct visitor of a rollup row: counted once the set of its scope learns the id. */
export interface VisitorCandidate {
  project_id: string;
  day: string;
  scope: string;
  visitor_id: string;
  row: { visitors: number };
  /** `project_id`, `day`, `scope` and `visitor_id`, joined by NUL: candidates sort by it. */
  key: string;
}

/** The visitors seen by one rollup row of a batch, and the set (scope and day) they are counted in. */
interface VisitorGroup {
  project_id: string;
  day: string;
  scope: string;
  /** `project_id`, `day` and `scope`, joined by NUL. */
  key: string;
  row: { visitors: number };
  visitors: Set<string>;
}

export class InsightChanges {
  readonly #series = new Map<string, AnalyticsSeriesTable>();
  readonly #breakdowns = new Map<string, AnalyticsBreakdownTable>();
  readonly #reading = new Map<string, AnalyticsReadingTable>();
  readonly #readTimes = new Map<string, AnalyticsReadTimeTable>();
  /** By rollup row: built once a row, so that a view's visitor is one Set.add per row. */
  readonly #groups = new Map<object, VisitorGroup>();

  addCreated(view: CreatedView): void {
    for (const row of this.#seriesRows(view)) {
      row.views++;
      row.time_on_page_ms += view.time_on_page_ms;
      row.scroll_depth_centi += view.scroll_depth_centi;
    }
    this.addBreakdowns(view);
    this.#addReading(view, 1);
  }

  /** A new page view's breakdown rows only (the rebuild sums the other rollups in SQL). */
  addBreakdowns(view: BreakdownView): void {
    const values: Array<[BreakdownDimension, string]> = [
      ['source', referrerSource(view.referrer, view.page_url)],
      ['utm_source', utmValue(view.utm_source)],
      ['utm_medium', utmValue(view.utm_medium)],
      ['utm_campaign', utmValue(view.utm_campaign)],
      ['country', view.country ?? unknown],
      ['device', deviceClass(view.screen_width)],
    ];
    for (const [dimension, value] of values) this.#breakdown(view, dimension, value).views++;
    for (const [type, count] of eventTypeCounts(view.events)) {
      const row = this.#breakdown(view, 'event', type);
      row.views++;
      row.events += count;
    }
  }

  addUpdate(before: InsightView, after: InsightView): void {
    for (const row of this.#seriesRows(after, false)) {
      row.time_on_page_ms += after.time_on_page_ms - before.time_on_page_ms;
      row.scroll_depth_centi += after.scroll_depth_centi - before.scroll_depth_centi;
    }
    if (after.events !== before.events) {
      const earlier = eventTypeCounts(before.events);
      for (const [type, count] of eventTypeCounts(after.events)) {
        const previous = earlier.get(type) ?? 0;
        if (count === previous) continue;
        // A type new to this page view makes it count, and may make its visitor count, for the type.
        const row = this.#breakdown(after, 'event', type, previous === 0);
        if (previous === 0) row.views++;
        row.events += count - previous;
      }
    }
    this.#addReading(before, -1);
    this.#addReading(after, 1);
  }

  /** Counts the candidates that `isNew` says were not yet in their scope's set. */
  async countVisitors(isNew: (candidates: VisitorCandidate[]) => Promise<VisitorCandidate[]>): Promise<void> {
    // In key order (the groups', then the visitors' within each: the same as the whole keys', as
    // NUL sorts before any other character).
    const groups = [...this.#groups.values()].filter((group) => group.visitors.size > 0).sort(byKey);
    const candidates: VisitorCandidate[] = [];
    for (const { project_id, day, scope, key, row, visitors } of groups) {
      for (const visitor_id of [...visitors].sort()) {
        candidates.push({ project_id, day, scope, visitor_id, row, key: `${key}\u0000${visitor_id}` });
      }
      visitors.clear();
    }
    for (const candidate of await isNew(candidates)) candidate.row.visitors++;
  }

  get series(): AnalyticsSeriesTable[] {
    return sorted(this.#series).filter(
      (row) =>
        row.views !== 0 || row.visitors !== 0 || row.time_on_page_ms !== 0 || row.scroll_depth_centi !== 0,
    );
  }

  /**
   * The series rows as stored: the project's hours and days. An article's series live in its
   * daily rows (articleDays): its day's views and sums are the row's counters, its visitors and
   * hours are columns of the row.
   */
  get storedSeries(): AnalyticsSeriesTable[] {
    return this.series.filter((row) => row.article_id === '');
  }

  /**
   * Per article and day, what the batch adds to its daily row: distinct visitors, reach, and the
   * counts by hour and by reading-time bucket.
   */
  get articleDays(): ArticleDay[] {
    const days = new Map<string, ArticleDay>();
    const dayOf = (project_id: string, day: string, article_id: string) => {
      const key = `${project_id}\u0000${day}\u0000${article_id}`;
      let row = days.get(key);
      if (row === undefined) {
        row = {
          project_id,
          day,
          article_id,
          visitors: 0,
          ...emptyReach(),
          hours: new Map(),
          readTimes: new Map(),
        };
        days.set(key, row);
      }
      return row;
    };
    for (const row of this.series) {
      if (row.article_id === '') continue;
      if (row.granularity === 'd') dayOf(row.project_id, row.bucket, row.article_id).visitors += row.visitors;
      else
        dayOf(row.project_id, row.bucket.slice(0, 10), row.article_id).hours.set(
          Number(row.bucket.slice(11, 13)),
          [row.views, row.visitors, row.time_on_page_ms, row.scroll_depth_centi],
        );
    }
    for (const row of this.reading) {
      const day = dayOf(row.project_id, row.day, row.article_id);
      for (const column of reachColumns) day[column] += row[column];
    }
    for (const row of this.readTimes) {
      dayOf(row.project_id, row.day, row.article_id).readTimes.set(row.seconds, [row.views, row.deep_views]);
    }
    return sorted(days);
  }

  get breakdowns(): AnalyticsBreakdownTable[] {
    return sorted(this.#breakdowns).filter(
      (row) => row.views !== 0 || row.visitors !== 0 || row.events !== 0,
    );
  }

  get reading(): AnalyticsReadingTable[] {
    return sorted(this.#reading).filter((row) => reachColumns.some((column) => row[column] !== 0));
  }

  get readTimes(): AnalyticsReadTimeTable[] {
    return sorted(this.#readTimes).filter((row) => row.views !== 0 || row.deep_views !== 0);
  }

  /** The day and hour rows of the project and of the article; new views may bring their visitor. */
  #seriesRows(view: InsightView, withVisitor = true): AnalyticsSeriesTable[] {
    const hour = hourOf(view.created_at);
    return [
      this.#seriesRow(view, '', 'd', view.day, withVisitor),
      this.#seriesRow(view, '', 'h', hour, withVisitor),
      this.#seriesRow(view, view.article_id, 'd', view.day, withVisitor),
      this.#seriesRow(view, view.article_id, 'h', hour, withVisitor),
    ];
  }

  #seriesRow(
    view: InsightView,
    article: string,
    granularity: 'd' | 'h',
    bucket: string,
    withVisitor: boolean,
  ): AnalyticsSeriesTable {
    const key = `${view.project_id}\u0000${article}\u0000${granularity}\u0000${bucket}`;
    let row = this.#series.get(key);
    if (row === undefined) {
      row = {
        project_id: view.project_id,
        article_id: article,
        granularity,
        bucket,
        views: 0,
        visitors: 0,
        time_on_page_ms: 0,
        scroll_depth_centi: 0,
      };
      this.#series.set(key, row);
      // The project's day row counts the visitors of the project's day set (addNewDayVisitor).
      if (article !== '' || granularity !== 'd')
        this.#group(view, `s:${article}:${granularity}:${bucket}`, row);
    }
    if (withVisitor) this.#groups.get(row)?.visitors.add(view.visitor_id);
    return row;
  }

  /**
   * A visitor new to the day's set of the project (analytics_daily_visitors, which the daily
   * rollups keep from the same page views): the project's day row counts it. That set holds the
   * same ids as a visitor set of the row would, so the row keeps none of its own: one visitor-set
   * row fewer for each page view of a new visitor.
   */
  addNewDayVisitor(projectId: string, day: string): void {
    const row = this.#series.get(`${projectId}\u0000\u0000d\u0000${day}`);
    if (row !== undefined) row.visitors++;
  }

  #breakdown(
    view: Pick<InsightView, 'project_id' | 'day' | 'visitor_id'>,
    dimension: BreakdownDimension,
    value: string,
    withVisitor = true,
  ): AnalyticsBreakdownTable {
    const key = `${view.project_id}\u0000${dimension}\u0000${view.day}\u0000${value}`;
    let row = this.#breakdowns.get(key);
    if (row === undefined) {
      row = {
        project_id: view.project_id,
        dimension,
        day: view.day,
        value,
        views: 0,
        visitors: 0,
        events: 0,
      };
      this.#breakdowns.set(key, row);
      this.#group(view, `b:${dimension}:${value}`, row);
    }
    if (withVisitor) this.#groups.get(row)!.visitors.add(view.visitor_id);
    return row;
  }

  #addReading(view: InsightView, sign: number): void {
    const key = `${view.project_id}\u0000${view.article_id}\u0000${view.day}`;
    let reading = this.#reading.get(key);
    if (reading === undefined) {
      reading = { project_id: view.project_id, article_id: view.article_id, day: view.day, ...emptyReach() };
      this.#reading.set(key, reading);
    }
    reading[reachColumns[reachDecile(view.scroll_depth_centi, view.exit_position)]] += sign;

    const seconds = readTimeBucket(view.time_on_page_ms);
    const timeKey = `${key}\u0000${String(seconds).padStart(6, '0')}`;
    let time = this.#readTimes.get(timeKey);
    if (time === undefined) {
      time = {
        project_id: view.project_id,
        article_id: view.article_id,
        day: view.day,
        seconds,
        views: 0,
        deep_views: 0,
      };
      this.#readTimes.set(timeKey, time);
    }
    time.views += sign;
    if (view.scroll_depth_centi >= deepFromCenti) time.deep_views += sign;
  }

  /** The visitor group of a new row: its visitors are counted in the set of `scope` on the view's day. */
  #group(view: Pick<InsightView, 'project_id' | 'day'>, scope: string, row: { visitors: number }): void {
    const { project_id, day } = view;
    const key = visitorSetKey(project_id, day, scope);
    this.#groups.set(row, { project_id, day, scope, key, row, visitors: new Set() });
  }
}

/**
 * Counts the visitors new to their day's set (analytics_daily_visitors): in the day's rollup of
 * `daily`, and in the project's day series row of `insights`, which keeps no set of its own.
 */
export function countNewDayVisitors(
  daily: { addNewVisitor(key: { project_id: string; day: string }): void },
  insights: InsightChanges,
  keys: Iterable<{ project_id: string; day: string }>,
): void {
  for (const key of keys) {
    daily.addNewVisitor(key);
    insights.addNewDayVisitor(key.project_id, key.day);
  }
}

/** The key of a visitor set: project, day and scope joined by NUL; an entry's adds NUL and the id. */
export function visitorSetKey(projectId: string, day: string, scope: string): string {
  return `${projectId}\u0000${day}\u0000${scope}`;
}

function byKey(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export const reachColumns = [
  'reach0',
  'reach1',
  'reach2',
  'reach3',
  'reach4',
  'reach5',
  'reach6',
  'reach7',
  'reach8',
  'reach9',
  'reach10',
] as const satisfies ReadonlyArray<keyof AnalyticsReadingTable>;

function emptyReach(): Record<(typeof reachColumns)[number], number> {
  return {
    reach0: 0,
    reach1: 0,
    reach2: 0,
    reach3: 0,
    reach4: 0,
    reach5: 0,
    reach6: 0,
    reach7: 0,
    reach8: 0,
    reach9: 0,
    reach10: 0,
  };
}

function sorted<T>(entries: Map<string, T>): T[] {
  return [...entries.keys()].sort().map((key) => entries.get(key)!);
}
