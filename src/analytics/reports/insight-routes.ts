// Routes of the insights read side (secret keys only): time series, breakdowns with CSV export,
// the reading of one article, realtime visitors.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Db } from '../../db/database.ts';
import { toCsv, wantsCsv } from './csv.ts';
import { errorSchemas as errors } from '../../http/errors.ts';
import {
  breakdownDescription,
  readingDescription,
  realtimeDescription,
  seriesDescription,
} from './descriptions.ts';
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

export function insightRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/analytics/timeseries',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Views, visitors, time on page and scroll depth per hour or per day',
        description: seriesDescription,
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
        description: breakdownDescription,
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
        description: readingDescription,
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
        description: realtimeDescription,
        querystring: RealtimeQuery,
        response: { 200: RealtimeAnswer, ...errors(401, 403, 429, 503) },
      },
    },
    async (request) => realtime(db, request.auth.project, new Date(), request.query.includeTest === true),
  );
}

/** A CSV answer: text, which the JSON schema of the route's 200 answer does not describe. */
function sendCsv(reply: FastifyReply, filename: string, text: string): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${filename}"`)
    .send(text);
}
