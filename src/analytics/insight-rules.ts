// The rules that turn one page view into the keys of the insights rollups: its referrer source,
// device class, UTM values, reach decile and reading-time bucket. Pure functions, shared by the
// writes, the rebuild and (independently restated) the tests' reference computation.

export const direct = '(direct)';
export const none = '(none)';
export const unknown = '(unknown)';

/** Screen widths (CSS pixels) below which a page view counts as mobile, then tablet. */
export const mobileBelow = 768;
export const tabletBelow = 1024;

/** The longest period of the insights endpoints, in days (a leap year and a day to spare). */
export const maxSpanDays = 366;

export const breakdownDimensions = [
  'source',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'country',
  'device',
  'event',
] as const;
export type BreakdownDimension = (typeof breakdownDimensions)[number];

/** The host of a URL, lower case, without a trailing dot or a leading `www.`; null when it has none. */
export function siteHost(url: string | null): string | null {
  if (url === null || url.trim() === '') return null;
  let host: string;
  try {
    host = new URL(url.trim()).hostname;
  } catch {
    return null;
  }
  host = host.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('www.')) host = host.slice(4);
  return host === '' ? null : host;
}

/**
 * The referrer source: the referrer's normalised host (`google.com`, `news.ycombinator.com`), or
 * `(direct)` when there is no referrer, it is not a URL with a host, or it is the page's own site.
 */
export function referrerSource(referrer: string | null, pageUrl: string | null): string {
  const host = siteHost(referrer);
  if (host === null || host === siteHost(pageUrl)) return direct;
  return host;
}

export function deviceClass(screenWidth: number | null): string {
  if (screenWidth === null || screenWidth <= 0) return unknown;
  if (screenWidth < mobileBelow) return 'mobile';
  if (screenWidth < tabletBelow) return 'tablet';
  return 'desktop';
}

/** A UTM value as given, trimmed; `(none)` when absent or blank. */
export function utmValue(value: string | null): string {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? none : trimmed;
}

/**
 * The decile of the text a page view reached: its furthest point is the larger of its deepest
 * scroll and its exit position; 0 for [0, 10) percent … 9 for [90, 100), 10 for 100.
 */
export function reachDecile(scrollDepthCenti: number, exitPosition: number | null): number {
  const furthest = Math.max(scrollDepthCenti, Math.round((exitPosition ?? 0) * 100));
  return Math.min(10, Math.floor(furthest / 1000));
}

/**
 * The reading-time bucket of a time on page, named by its lower bound in whole seconds: each second
 * under 2 minutes, 10 seconds under 20 minutes, 30 seconds beyond. Every half of an estimated
 * reading time (a multiple of 30 s) is a bucket bound, so read ratios are exact.
 */
export function readTimeBucket(timeOnPageMs: number): number {
  const seconds = Math.floor(timeOnPageMs / 1000);
  if (seconds < 120) return seconds;
  if (seconds < 1200) return seconds - (seconds % 10);
  return seconds - (seconds % 30);
}

/** A page view that reached 90% of the text (by its deepest scroll). */
export const deepFromCenti = 9_000;

/** The number of events of each type in a stored events array (JSON). */
export function eventTypeCounts(events: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of JSON.parse(events) as Array<{ type: string }>) {
    counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
  }
  return counts;
}

/** `YYYY-MM-DDTHH`, the UTC hour of an ISO timestamp. */
export function hourOf(createdAt: string): string {
  return createdAt.slice(0, 13);
}
