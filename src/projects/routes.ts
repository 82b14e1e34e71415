// The project endpoint: the key's project and its statistics.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { browserRule, errorResponses } from '../content/routes.ts';
import type { Db } from '../db/database.ts';
import { publishedOnly } from '../http/auth.ts';
import { answerPreflights, browserRead } from '../http/cors.ts';
import { ProjectInfo } from './schemas.ts';
import { projectInfo } from './service.ts';

export function projectRoutes(app: FastifyInstance, db: Db): void {
  app.get(
    '/v1/project',
    {
      config: { cache: true, viewCounts: 'project', ...browserRead },
      schema: {
        tags: ['Project'],
        summary: 'The project of the API key, with statistics',
        description: `For a public key only published articles exist: \`totalArticles\` and \`publishedArticles\` both count the published articles, \`totalViews\` sums their views, and the storage figures (which measure drafts too and concern only the project's owners) are left out.\n\n${browserRule}`,
        response: { 200: Type.Object({ data: ProjectInfo }), ...errorResponses },
      },
    },
    async (request) => ({ data: await projectInfo(db, request.auth.project, publishedOnly(request)) }),
  );
  answerPreflights(app, ['/v1/project'], 'GET');
}
