// The draft preview endpoints (secret keys with the write scope): create, list and revoke. The
// reads that take a token are the article and SEO reads (routes.ts, seo/routes.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { errorSchemas } from '../http/errors.ts';
import {
  createPreviewDescription,
  listPreviewsDescription,
  revokePreviewDescription,
} from './preview-descriptions.ts';
import { CreatedPreview, CreatePreviewBody, Preview } from './preview-schemas.ts';
import { createPreview, listPreviews, revokePreview } from './previews.ts';

const Slug = Type.Object({ slug: Type.String({ maxLength: 1000 }) });

export function previewRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/articles/:slug/previews',
    {
      config: { scope: 'write' },
      // No body at all is the empty object: every member is optional.
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
      schema: {
        tags: ['Previews'],
        summary: 'Create a draft preview token for an article',
        description: createPreviewDescription,
        params: Slug,
        body: CreatePreviewBody,
        response: {
          201: Type.Object({ data: CreatedPreview }),
          ...errorSchemas(400, 401, 403, 404, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const data = await createPreview(db, request.auth.project, request.params.slug, request.body);
      return reply.code(201).send({ data });
    },
  );

  app.get(
    '/v1/articles/:slug/previews',
    {
      config: { scope: 'write' },
      schema: {
        tags: ['Previews'],
        summary: "List an article's previews (without tokens)",
        description: listPreviewsDescription,
        params: Slug,
        response: {
          200: Type.Object({ data: Type.Array(Preview) }),
          ...errorSchemas(400, 401, 403, 404, 429, 503),
        },
      },
    },
    async (request) => ({ data: await listPreviews(db, request.auth.project, request.params.slug) }),
  );

  app.delete(
    '/v1/previews/:id',
    {
      config: { scope: 'write' },
      schema: {
        tags: ['Previews'],
        summary: 'Revoke a preview',
        description: revokePreviewDescription,
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 204: Type.Null(), ...errorSchemas(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      await revokePreview(db, request.auth.project, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
