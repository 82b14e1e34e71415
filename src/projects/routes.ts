// The project endpoint: the key's project and its statistics.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { browserRule, errorResponses } from '../content/routes.ts';
import type { Db } from '../db/database.ts';
import { publishedOnly } from '../http/auth.ts';
import { answerPreflights, browserRead } from '../http/cors.ts';
import { Nullable, Timestamp } from '../http/schema-helpers.ts';
import { projectInfo } from './service.ts';

export const ProjectInfo = Type.Object(
  {
    project: Type.Object({
      id: Type.String(),
      name: Type.String(),
      slug: Type.String(),
      description: Type.String(),
      siteUrl: Nullable(Type.String()),
      logoUrl: Nullable(Type.String()),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    }),
    stats: Type.Object({
      totalArticles: Type.Integer({ description: 'all articles (for a public key: the published ones)' }),
      publishedArticles: Type.Integer({ description: 'articles whose `published` is true' }),
      totalViews: Type.Integer({
        description:
          'sum of viewCount (for a public key: of the published articles); like it, may lag tracked page views by up to 2 seconds',
      }),
      storageUsed: Type.Optional(
        Type.String({
          description:
            'UTF-8 bytes of all stored article text, in decimal units, e.g. `1.5 KB`; absent for a public key',
        }),
      ),
      storageLimit: Type.Optional(Type.String({ description: 'e.g. `500 MB`; absent for a public key' })),
    }),
  },
  { $id: 'ProjectInfo' },
);

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
