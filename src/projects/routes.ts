// The project endpoint: the key's project and its statistics.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../content/routes.ts';
import type { Db } from '../db/database.ts';
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
      totalArticles: Type.Integer(),
      publishedArticles: Type.Integer({ description: 'articles whose `published` is true' }),
      totalViews: Type.Integer({ description: 'sum of viewCount' }),
      storageUsed: Type.String({
        description: 'UTF-8 bytes of all stored article text, in decimal units, e.g. `1.5 KB`',
      }),
      storageLimit: Type.String({ description: 'e.g. `500 MB`' }),
    }),
  },
  { $id: 'ProjectInfo' },
);

export function projectRoutes(app: FastifyInstance, db: Db): void {
  app.get(
    '/v1/project',
    {
      config: { cache: true },
      schema: {
        tags: ['Project'],
        summary: 'The project of the API key, with statistics',
        response: { 200: Type.Object({ data: ProjectInfo }), ...errorResponses },
      },
    },
    async (request) => ({ data: await projectInfo(db, request.auth.project) }),
  );
}
