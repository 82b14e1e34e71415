// The project endpoint: the key's project and its statistics.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { publishedOnly } from '../http/auth.ts';
import { answerPreflights, browserRead, browserRule } from '../http/cors.ts';
import { errorSchemas } from '../http/errors.ts';
import { ProjectInfo } from './schemas.ts';
import { type CountArticles, projectInfo } from './service.ts';

export interface ProjectRoutesOptions {
  /** Content's count of a project's articles (projects/ sits below content/). */
  countArticles: CountArticles;
}

export function projectRoutes(
  fastify: FastifyInstance,
  db: Db,
  { countArticles }: ProjectRoutesOptions,
): void {
  // Types from the schemas: the answer is checked against the 200 schema.
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/project',
    {
      config: { cache: true, viewCounts: 'project', ...browserRead },
      schema: {
        tags: ['Project'],
        summary: 'The project of the API key, with statistics',
        description: `For a public key only published articles exist: \`totalArticles\` and \`publishedArticles\` both count the published articles, \`totalViews\` sums their views, and the storage figures (which measure drafts too and concern only the project's owners) are left out.\n\n${browserRule}`,
        response: {
          200: Type.Object({ data: ProjectInfo }),
          ...errorSchemas(400, 401, 403, 404, 429, 503),
        },
      },
    },
    async (request) => ({
      data: await projectInfo(db, request.auth.project, countArticles, publishedOnly(request)),
    }),
  );
  answerPreflights(app, ['/v1/project'], 'GET');
}
