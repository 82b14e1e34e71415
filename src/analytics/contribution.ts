// What one page view adds to the rollups of its day and article. An update adds the difference
// between its contribution after and before, so that the rollups always equal a sum over the raw
// rows, whatever order the updates arrive in.
import type { AnalyticsCounters } from '../db/schema.ts';

export const bounceBelowMs = 5_000;
export const engagedFromMs = 10_000;
export const engagedFromCenti = 5_000;
export const funnelSteps = [25, 50, 75, 90] as const;

export interface PageViewMeasures {
  source: 'sdk' | 'direct';
  time_on_page_ms: number;
  scroll_depth_centi: number;
  /** 1 or 0 as sent; null when never sent. */
  bounced: number | null;
}

/** A page view's share of its day's counters: one row of the daily rollup tables. */
export type Contribution = AnalyticsCounters;

export const contributionFields = [
  'views',
  'sdk_views',
  'time_on_page_ms',
  'scroll_depth_centi',
  'bounced',
  'engaged',
  'reached25',
  'reached50',
  'reached75',
  'reached90',
] as const satisfies ReadonlyArray<keyof Contribution>;

/** A page view whose `bounced` was never sent bounced when it lasted under 5 seconds. */
export function hasBounced(view: PageViewMeasures): boolean {
  return view.bounced === null ? view.time_on_page_ms < bounceBelowMs : view.bounced === 1;
}

export function isEngaged(view: PageViewMeasures): boolean {
  return view.time_on_page_ms >= engagedFromMs || view.scroll_depth_centi >= engagedFromCenti;
}

export function contributionOf(view: PageViewMeasures): Contribution {
  const depth = view.scroll_depth_centi;
  return {
    views: 1,
    sdk_views: view.source === 'sdk' ? 1 : 0,
    time_on_page_ms: view.time_on_page_ms,
    scroll_depth_centi: depth,
    bounced: hasBounced(view) ? 1 : 0,
    engaged: isEngaged(view) ? 1 : 0,
    reached25: depth >= 2_500 ? 1 : 0,
    reached50: depth >= 5_000 ? 1 : 0,
    reached75: depth >= 7_500 ? 1 : 0,
    reached90: depth >= 9_000 ? 1 : 0,
  };
}

export function emptyContribution(): Contribution {
  return {
    views: 0,
    sdk_views: 0,
    time_on_page_ms: 0,
    scroll_depth_centi: 0,
    bounced: 0,
    engaged: 0,
    reached25: 0,
    reached50: 0,
    reached75: 0,
    reached90: 0,
  };
}

/** Adds `sign × change` into `total`. */
export function addContribution(total: Contribution, change: Contribution, sign = 1): void {
  for (const field of contributionFields) total[field] += sign * change[field];
}

export function isZero(contribution: Contribution): boolean {
  return contributionFields.every((field) => contribution[field] === 0);
}
