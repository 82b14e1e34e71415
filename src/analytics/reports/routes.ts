// The statistics and scroll-funnel endpoints (secret keys only).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import { errorSchemas as errors } from '../../http/errors.ts';
import { funnelDescription, statsDescription } from './descriptions.ts';
import { defaultPeriodDays, FunnelAnswer, FunnelQuery, StatsAnswer, StatsQuery } from './schemas.ts';
import { projectStats, scrollFunnel } from './stats.ts';

export function statsRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/analytics/stats',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Page-view statistics of a period',
        description: statsDescription,
        querystring: StatsQuery,
        response: { 200: StatsAnswer, ...errors(400, 401, 403, 429, 503) },
      },
    },
    async (request) => {
      // Always there once validated (the schema's default); optional in the schema for clients.
      const { days = defaultPeriodDays, includeTest = false } = request.query;
      return projectStats(db, request.auth.project, days, new Date(), includeTest);
    },
  );

  app.get(
    '/v1/analytics/funnel',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Scroll funnel and engagement of a period',
        description: funnelDescription,
        querystring: FunnelQuery,
        response: { 200: FunnelAnswer, ...errors(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const { days = defaultPeriodDays, slug, includeTest = false } = request.query;
      return scrollFunnel(db, request.auth.project, days, slug, new Date(), includeTest);
    },
  );
}
