// The OpenAPI descriptions of the report endpoints, apart from their routes.

/** GET /v1/analytics/stats. */
export const statsDescription = [
  'Computed from daily rollups, so the answer takes milliseconds whatever the number of page views. Tracking writes are summed into the rollups in batches shortly after they are answered, and before any read of statistics: an answer counts every page view and update answered before it was asked.',
  'The period starts at 00:00 UTC of the day `days − 1` days before today and ends now; a page view belongs to it by its creation time.',
  '`uniqueVisitors` sums the distinct visitor ids of each day (ids change daily, so one person on two days counts twice, as in Plausible). `requestSource` percentages are rounded separately and may not add up to exactly 100.',
  '`topArticles`: the 10 articles with most views in the period, ties by slug; page views of an article that has since been removed count in `totalViews` but it is not listed. `topCountries`: the 10 countries with most views, ties by code; views without a country are left out.',
  'Rounding is half away from zero. Answers are not cached: they depend on the clock.',
].join('\n\n');

/** GET /v1/analytics/funnel. */
export const funnelDescription = [
  'Same period as the statistics. `reachedN` counts the page views whose deepest scroll is at least N percent; percentages are of `pageViews`, 1 decimal, 0 when there are none.',
  '`avgTimeOnPage` (seconds) and `avgScrollDepth` are means over the page views, 1 decimal. `bounceRate`: percentage of page views that bounced (`bounced` as last sent, else `timeOnPage < 5`). `engagementRate`: percentage with `timeOnPage ≥ 10` or `scrollDepth ≥ 50`.',
  '`slug` restricts every figure to one article of the project; an unknown slug is a 404. Rounding is half away from zero. The members are at the top level, without `data`.',
].join('\n\n');
