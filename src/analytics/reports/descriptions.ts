// The OpenAPI descriptions of the report endpoints, apart from their routes.
import { deepFromCenti, maxSpanDays, mobileBelow, tabletBelow } from '../insight-rules.ts';
import { realtimeWindowMinutes } from './insights.ts';

/** What every report says of the page views of test keys. */
const testNotes =
  "**Test views.** Page views tracked with a test key (`folio keys create --test`: the key a blog's own Playwright or Puppeteer tests use) count nowhere by default: not in these figures, not in an article's `viewCount`. `includeTest=true` adds them, exactly as if they had been normal page views (every sum and rate is what it would then be), with one difference: a visitor id seen on one day both with a test key and with a normal one counts once among each. They are summed from the raw page views at each such request, not from the rollups, so they are counted only while the raw page views are kept (`ANALYTICS_RETENTION_DAYS`). `includeTest` takes `true` or `false` (default); anything else is a 400.";

/** GET /v1/analytics/stats. */
export const statsDescription = [
  'Computed from daily rollups, so the answer takes milliseconds whatever the number of page views. Tracking writes are summed into the rollups in batches shortly after they are answered, and before any read of statistics: an answer counts every page view and update answered before it was asked.',
  'The period starts at 00:00 UTC of the day `days − 1` days before today and ends now; a page view belongs to it by its creation time.',
  '`uniqueVisitors` sums the distinct visitor ids of each day (ids change daily, so one person on two days counts twice, as in Plausible). `requestSource` percentages are rounded separately and may not add up to exactly 100.',
  '`topArticles`: the 10 articles with most views in the period, ties by slug; page views of an article that has since been removed count in `totalViews` but it is not listed. `topCountries`: the 10 countries with most views, ties by code; views without a country are left out.',
  'Rounding is half away from zero. Answers are not cached: they depend on the clock.',
  testNotes,
].join('\n\n');

/** GET /v1/analytics/funnel. */
export const funnelDescription = [
  'Same period as the statistics. `reachedN` counts the page views whose deepest scroll is at least N percent; percentages are of `pageViews`, 1 decimal, 0 when there are none.',
  '`avgTimeOnPage` (seconds) and `avgScrollDepth` are means over the page views, 1 decimal. `bounceRate`: percentage of page views that bounced (`bounced` as last sent, else `timeOnPage < 5`). `engagementRate`: percentage with `timeOnPage ≥ 10` or `scrollDepth ≥ 50`.',
  '`slug` restricts every figure to one article of the project; an unknown slug is a 404. Rounding is half away from zero. The members are at the top level, without `data`.',
  testNotes,
].join('\n\n');

const periodNotes = `The period is \`days\` (today, UTC, and the \`days − 1\` days before it; default 30), or \`from\` and \`to\` (UTC dates, both included; \`to\` defaults to today). \`from\` after \`to\`, a date after today, a span over ${maxSpanDays} days, \`to\` without \`from\`, or \`days\` together with \`from\`/\`to\` is a 400 naming the parameter. Page views belong to the hour and day of their creation (UTC). Figures come from rollups, kept forever even once raw page views pass their retention; tracking writes are summed into them in batches shortly after, and before any read of them, so an answer counts every page view and update answered before it was asked. Answers are not cached: they depend on the clock.\n\n${testNotes}`;

const dimensionNotes = [
  '`source`: the host of the referrer, lower case, without `www.` (`google.com`, `news.ycombinator.com`); `(direct)` when there is no referrer, it is not a URL with a host, or its host is that of the page (`pageUrl`) itself.',
  '`utm_source`, `utm_medium`, `utm_campaign`: the values sent, trimmed; `(none)` when absent or blank.',
  '`country`: ISO 3166-1 alpha-2 code (DB-IP Lite, CC BY 4.0: https://db-ip.com); `(unknown)` when none was looked up or found. All countries are listed, not only the top 10.',
  `\`device\`: from \`screenWidth\` (CSS pixels): \`mobile\` below ${mobileBelow}, \`tablet\` below ${tabletBelow}, \`desktop\` from ${tabletBelow}; \`(unknown)\` when absent or 0.`,
  '`event`: custom event types; `views` counts the page views with at least one event of the type, `events` the events themselves (events added by later updates count on the day of their page view).',
].join('\n\n');

/** GET /v1/analytics/timeseries. */
export const seriesDescription = [
  'One point per hour (periods of up to 2 days by default) or per day, from the start of the period up to the current hour or day, hours and days without page views included with zeros, oldest first.',
  '`visitors` are the distinct visitor ids of the hour or day (ids change daily, so the visitors of several days cannot be added into people). `avgTimeOnPage` (seconds) and `avgScrollDepth` (percent) are means over the page views of the point, 1 decimal, rounded half away from zero, 0 without views; they follow later updates of the page views.',
  '`slug` restricts every figure to one article of the project; an unknown slug is a 404.',
  periodNotes,
].join('\n\n');

/** GET /v1/analytics/breakdown/:dimension. */
export const breakdownDescription = [
  'Values sorted by views (most first), ties by value in byte order; `page` and `limit` (default 100, at most 1000) page them, and a page past the end returns `data: []` with correct `meta`. `visitors` sums the distinct visitor ids of each day (as `uniqueVisitors` of the statistics).',
  dimensionNotes,
  "CSV: `format=csv`, or an `Accept` header that prefers `text/csv` to JSON, answers `text/csv` (RFC 4180: CRLF line ends, quoted fields where needed) with the header `value,views,visitors` (and `events` for `event`), and every value when neither `page` nor `limit` is given. A text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` so that spreadsheets do not run it as a formula. Errors stay JSON.",
  periodNotes,
].join('\n\n');

/** GET /v1/analytics/articles/:slug/reading. */
export const readingDescription = [
  "`dropOff`: for each 10% of the text, the page views still reading there. A page view's furthest point is the larger of its deepest `scrollDepth` and its last `exitPosition`; it counts at every position up to that point (a view whose furthest point is 37% counts at 0, 10, 20 and 30). The point at 0 is every page view; percentages are of `pageViews`, 1 decimal.",
  "`readingTime`: the article's estimate (`readTimeMinutes` × 60 seconds, as it is now) and the median time on page: the lower median (the ⌈n/2⌉-th shortest), rounded down to its bucket of 1 second under 2 minutes, 10 seconds under 20 minutes, 30 seconds beyond. `medianToEstimate`: their ratio, 2 decimals.",
  `\`readRatio\`: page views that reached 90% of the text (\`scrollDepth\` ≥ ${deepFromCenti / 100}) and stayed at least half the current estimate, against all page views of the article. Figures follow later updates of the page views.`,
  'An unknown slug is a 404. ' + periodNotes,
].join('\n\n');

/** GET /v1/analytics/realtime. */
export const realtimeDescription = `Distinct visitor ids and page views created in the last ${realtimeWindowMinutes} minutes (\`since\` to \`until\`), read from the raw page views. Not cached. The page views of test keys (\`folio keys create --test\`) count only with \`includeTest=true\`.`;
