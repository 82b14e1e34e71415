// Routes of the insights read side (secret keys only): time series, breakdowns with CSV export,
// the reading of one article, realtime visitors.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Db } from '../../db/database.ts';
import { toCsv, wantsCsv } from './csv.ts';
import { errorAnswers as errors } from '../error-answers.ts';
import { deepFromCenti, maxSpanDays, mobileBelow, tabletBelow } from '../insight-rules.ts';
import {
  BreakdownAnswer,
  BreakdownParams,
  BreakdownQuery,
  ReadingAnswer,
  ReadingParams,
  ReadingQuery,
  RealtimeAnswer,
  RealtimeQuery,
  SeriesAnswer,
  SeriesQuery,
} from './insight-schemas.ts';
import { articleReading, breakdown, realtime, realtimeWindowMinutes, timeSeries } from './insights.ts';

const periodNotes = `The period is \`days\` (today, UTC, and the \`days − 1\` days before it; default 30), or \`from\` and \`to\` (UTC dates, both included; \`to\` defaults to today). \`from\` after \`to\`, a date after today, a span over ${maxSpanDays} days, \`to\` without \`from\`, or \`days\` together with \`from\`/\`to\` is a 400 naming the parameter. Page views belong to the hour and day of their creation (UTC). Figures come from rollups, kept forever even once raw page views pass their retention; tracking writes are summed into them in batches shortly after, and before any read of them, so an answer counts every page view and update answered before it was asked. Answers are not cached: they depend on the clock.`;

const dimensionNotes = [
  '`source`: the host of the referrer, lower case, without `www.` (`google.com`, `news.ycombinator.com`); `(direct)` when there is no referrer, it is not a URL with a host, or its host is that of the page (`pageUrl`) itself.',
  '`utm_source`, `utm_medium`, `utm_campaign`: the values sent, trimmed; `(none)` when absent or blank.',
  '`country`: ISO 3166-1 alpha-2 code (DB-IP Lite, CC BY 4.0: https://db-ip.com); `(unknown)` when none was looked up or found. All countries are listed, not only the top 10.',
  `\`device\`: from \`screenWidth\` (CSS pixels): \`mobile\` below ${mobileBelow}, \`tablet\` below ${tabletBelow}, \`desktop\` from ${tabletBelow}; \`(unknown)\` when absent or 0.`,
  '`event`: custom event types; `views` counts the page views with at least one event of the type, `events` the events themselves (events added by later updates count on the day of their page view).',
].join('\n\n');

export function insightRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/analytics/timeseries',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Views, visitors, time on page and scroll depth per hour or per day',
        description: [
          'One point per hour (periods of up to 2 days by default) or per day, from the start of the period up to the current hour or day, hours and days without page views included with zeros, oldest first.',
          '`visitors` are the distinct visitor ids of the hour or day (ids change daily, so the visitors of several days cannot be added into people). `avgTimeOnPage` (seconds) and `avgScrollDepth` (percent) are means over the page views of the point, 1 decimal, rounded half away from zero, 0 without views; they follow later updates of the page views.',
          '`slug` restricts every figure to one article of the project; an unknown slug is a 404.',
          periodNotes,
        ].join('\n\n'),
        querystring: SeriesQuery,
        response: { 200: SeriesAnswer, ...errors(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      return timeSeries(db, request.auth.project, request.query, new Date());
    },
  );

  app.get(
    '/v1/analytics/breakdown/:dimension',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Page views and visitors by referrer source, UTM field, country, device class or event type',
        description: [
          'Values sorted by views (most first), ties by value in byte order; `page` and `limit` (default 100, at most 1000) page them, and a page past the end returns `data: []` with correct `meta`. `visitors` sums the distinct visitor ids of each day (as `uniqueVisitors` of the statistics).',
          dimensionNotes,
          "CSV: `format=csv`, or an `Accept` header that prefers `text/csv` to JSON, answers `text/csv` (RFC 4180: CRLF line ends, quoted fields where needed) with the header `value,views,visitors` (and `events` for `event`), and every value when neither `page` nor `limit` is given. A text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` so that spreadsheets do not run it as a formula. Errors stay JSON.",
          periodNotes,
        ].join('\n\n'),
        params: BreakdownParams,
        querystring: BreakdownQuery,
        produces: ['application/json', 'text/csv'],
        response: { 200: BreakdownAnswer, ...errors(400, 401, 403, 429, 503) },
      },
    },
    async (request, reply) => {
      const { dimension } = request.params;
      const { query } = request;
      const csv = wantsCsv(query.format, request.headers.accept);
      const answer = await breakdown(db, request.auth.project, dimension, query, new Date(), csv);
      if (!csv) return answer;
      const header =
        dimension === 'event' ? ['value', 'views', 'visitors', 'events'] : ['value', 'views', 'visitors'];
      const rows = answer.data.map((row) =>
        dimension === 'event'
          ? [row.value, row.views, row.visitors, (row as { events: number }).events]
          : [row.value, row.views, row.visitors],
      );
      const { from, to } = answer.meta.period;
      return sendCsv(reply, `folio-${dimension}-${from}-${to}.csv`, toCsv(header, rows));
    },
  );

  app.get(
    '/v1/analytics/articles/:slug/reading',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'How one article is read: drop-off curve, reading time against the estimate, read ratio',
        description: [
          "`dropOff`: for each 10% of the text, the page views still reading there. A page view's furthest point is the larger of its deepest `scrollDepth` and its last `exitPosition`; it counts at every position up to that point (a view whose furthest point is 37% counts at 0, 10, 20 and 30). The point at 0 is every page view; percentages are of `pageViews`, 1 decimal.",
          "`readingTime`: the article's estimate (`readTimeMinutes` × 60 seconds, as it is now) and the median time on page: the lower median (the ⌈n/2⌉-th shortest), rounded down to its bucket of 1 second under 2 minutes, 10 seconds under 20 minutes, 30 seconds beyond. `medianToEstimate`: their ratio, 2 decimals.",
          `\`readRatio\`: page views that reached 90% of the text (\`scrollDepth\` ≥ ${deepFromCenti / 100}) and stayed at least half the current estimate, against all page views of the article. Figures follow later updates of the page views.`,
          'An unknown slug is a 404. ' + periodNotes,
        ].join('\n\n'),
        params: ReadingParams,
        querystring: ReadingQuery,
        response: { 200: ReadingAnswer, ...errors(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      return articleReading(db, request.auth.project, request.params.slug, request.query, new Date());
    },
  );

  app.get(
    '/v1/analytics/realtime',
    {
      schema: {
        tags: ['Analytics'],
        summary: `Visitors of the last ${realtimeWindowMinutes} minutes`,
        description: `Distinct visitor ids and page views created in the last ${realtimeWindowMinutes} minutes (\`since\` to \`until\`), read from the raw page views. Not cached.`,
        querystring: RealtimeQuery,
        response: { 200: RealtimeAnswer, ...errors(401, 403, 429, 503) },
      },
    },
    async (request) => realtime(db, request.auth.project, new Date()),
  );
}

/** A CSV answer: text, which the JSON schema of the route's 200 answer does not describe. */
function sendCsv(reply: FastifyReply, filename: string, text: string): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${filename}"`)
    .send(text);
}
