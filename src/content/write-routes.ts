// Routes of the write API (articles and their revisions): each declares its schemas, checks its
// headers and calls one service function; the prose is in write-descriptions.ts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { ErrorBody } from '../http/errors.ts';
import { findRevision, listRevisions } from './revisions.ts';
import { RevisionDetail, RevisionSummary } from './revision-schemas.ts';
import { Article } from './schemas.ts';
import { tagWriteRoutes } from './write-tag-routes.ts';
import { createArticle, deleteArticle, replaceArticle } from './write-articles.ts';
import {
  createArticleDescription,
  deleteArticleDescription,
  getRevisionDescription,
  listRevisionsDescription,
  patchArticleDescription,
  replaceArticleDescription,
  restoreRevisionDescription,
} from './write-descriptions.ts';
import { mergePatch, patchObject } from './write-input.ts';
import { idempotencyOf, type StoredAnswer } from './write-preconditions.ts';

/** Article bodies may be long: more than the 64 KiB of other requests. */
export const writeBodyLimit = 1024 * 1024;

const writeErrors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  412: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  422: ErrorBody,
  428: ErrorBody,
  429: ErrorBody,
  503: ErrorBody,
};

const ArticleBody = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      "One article of the JSON import format (see the description); validated by the import's rules.",
  },
);
const IfMatch = Type.Object({ 'if-match': Type.Optional(Type.String({ description: '`"<version>"`' })) });
const SlugParams = Type.Object({ slug: Type.String({ maxLength: 1000 }) });
const RevisionParams = Type.Object({
  slug: Type.String({ maxLength: 1000 }),
  id: Type.String({ maxLength: 200 }),
});
const DataAnswer = Type.Object({ data: Article });

function send(reply: FastifyReply, answer: StoredAnswer) {
  return reply.code(answer.statusCode).headers(answer.headers).send(answer.body);
}

export function writeRoutes(fastify: FastifyInstance, db: Db): void {
  // JSON Merge Patch bodies are JSON.
  fastify.addContentTypeParser(
    'application/merge-patch+json',
    { parseAs: 'string', bodyLimit: writeBodyLimit },
    fastify.getDefaultJsonParser('error', 'error'),
  );
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const write = { config: { scope: 'write' as const }, bodyLimit: writeBodyLimit };

  app.post(
    '/v1/articles',
    {
      ...write,
      schema: {
        tags: ['Writing'],
        summary: 'Create an article',
        description: createArticleDescription,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: ArticleBody,
        response: { 201: DataAnswer, ...writeErrors },
      },
    },
    async (request, reply) => {
      const idempotency = idempotencyOf(
        request.headers['idempotency-key'],
        request.auth.key.id,
        'POST',
        '/v1/articles',
        request.body,
      );
      return send(reply, await createArticle(db, request.auth.project, request.body, idempotency));
    },
  );

  app.put(
    '/v1/articles/:slug',
    {
      ...write,
      schema: {
        tags: ['Writing'],
        summary: 'Replace an article',
        description: replaceArticleDescription,
        params: SlugParams,
        headers: IfMatch,
        body: ArticleBody,
        response: { 200: DataAnswer, ...writeErrors },
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      const answer = await replaceArticle(
        db,
        request.auth.project,
        slug,
        request.headers['if-match'],
        () => request.body,
      );
      return send(reply, answer);
    },
  );

  patchRoute(fastify, db);
  deleteRoute(fastify, db);
  revisionRoutes(fastify, db);
  tagWriteRoutes(fastify, db);
}

function patchRoute(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.patch(
    '/v1/articles/:slug',
    {
      config: { scope: 'write' },
      bodyLimit: writeBodyLimit,
      schema: {
        tags: ['Writing'],
        summary: 'Change some fields of an article (JSON Merge Patch)',
        description: patchArticleDescription,
        params: SlugParams,
        headers: IfMatch,
        body: ArticleBody,
        response: { 200: DataAnswer, ...writeErrors },
      },
    },
    async (request, reply) => {
      const patch = patchObject(request.body);
      const answer = await replaceArticle(
        db,
        request.auth.project,
        request.params.slug,
        request.headers['if-match'],
        (current) => mergePatch(current, patch),
      );
      return send(reply, answer);
    },
  );
}

function deleteRoute(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.delete(
    '/v1/articles/:slug',
    {
      config: { scope: 'write' },
      schema: {
        tags: ['Writing'],
        summary: 'Delete an article',
        description: deleteArticleDescription,
        params: SlugParams,
        headers: IfMatch,
        response: { 204: Type.Null(), ...writeErrors },
      },
    },
    async (request, reply) => {
      await deleteArticle(db, request.auth.project, request.params.slug, request.headers['if-match']);
      return reply.code(204).send(null);
    },
  );
}

function revisionRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/articles/:slug/revisions',
    {
      config: { scope: 'write' },
      schema: {
        tags: ['Writing'],
        summary: "List an article's revisions",
        description: listRevisionsDescription,
        params: SlugParams,
        querystring: Type.Object({}),
        response: { 200: Type.Object({ data: Type.Array(RevisionSummary) }), ...writeErrors },
      },
    },
    async (request) => ({ data: await listRevisions(db, request.auth.project, request.params.slug) }),
  );

  app.get(
    '/v1/articles/:slug/revisions/:id',
    {
      config: { scope: 'write' },
      schema: {
        tags: ['Writing'],
        summary: 'Get one revision of an article',
        description: getRevisionDescription,
        params: RevisionParams,
        querystring: Type.Object({}),
        response: {
          200: Type.Object({ data: RevisionDetail }),
          ...writeErrors,
        },
      },
    },
    async (request) => ({
      data: await findRevision(db.kysely, request.auth.project, request.params.slug, request.params.id),
    }),
  );

  app.post(
    '/v1/articles/:slug/revisions/:id/restore',
    {
      config: { scope: 'write' },
      schema: {
        tags: ['Writing'],
        summary: "Restore a revision as the article's new version",
        description: restoreRevisionDescription,
        params: RevisionParams,
        headers: IfMatch,
        response: { 200: DataAnswer, ...writeErrors },
      },
    },
    async (request, reply) => {
      const { slug, id } = request.params;
      const answer = await replaceArticle(
        db,
        request.auth.project,
        slug,
        request.headers['if-match'],
        async (_current, trx) => {
          const { snapshot } = await findRevision(trx, request.auth.project, slug, id);
          // A restore is an edit made now.
          const { updatedAt: _updatedAt, ...fields } = snapshot;
          return fields;
        },
      );
      return send(reply, answer);
    },
  );
}
