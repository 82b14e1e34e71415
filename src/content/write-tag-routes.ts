// Routes of the write API for tags; the prose is in write-descriptions.ts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { ErrorBody } from '../http/errors.ts';
import { Tag } from './schemas.ts';
import { tagWriteDescription } from './write-descriptions.ts';
import type { StoredAnswer } from './write-preconditions.ts';
import { createTag, deleteTag, replaceTag } from './write-tags.ts';

function send(reply: FastifyReply, answer: StoredAnswer) {
  return reply.code(answer.statusCode).headers(answer.headers).send(answer.body);
}

const errors = Object.fromEntries(
  [400, 401, 403, 404, 409, 412, 415, 428, 429, 503].map((s) => [s, ErrorBody]),
);
const TagBody = Type.Object(
  {},
  { additionalProperties: true, description: '`{ name, slug?, color, icon }`' },
);
const NameParams = Type.Object({ name: Type.String({ maxLength: 1000 }) });
const IfMatch = Type.Object({ 'if-match': Type.Optional(Type.String({ description: '`"<updatedAt>"`' })) });
const DataAnswer = Type.Object({ data: Tag });

export function tagWriteRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const config = { scope: 'write' as const };
  const schema = { tags: ['Writing'], description: tagWriteDescription };
  app.post(
    '/v1/tags',
    {
      config,
      schema: { ...schema, summary: 'Create a tag', body: TagBody, response: { 201: DataAnswer, ...errors } },
    },
    async (request, reply) => {
      const answer = await createTag(db, request.auth.project, request.body);
      return send(reply, answer);
    },
  );
  for (const method of ['put', 'patch'] as const) {
    app[method](
      '/v1/tags/:name',
      {
        config,
        schema: {
          ...schema,
          summary: method === 'put' ? 'Replace a tag' : 'Change some fields of a tag (JSON Merge Patch)',
          params: NameParams,
          headers: IfMatch,
          body: TagBody,
          response: { 200: DataAnswer, ...errors },
        },
      },
      async (request, reply) => {
        const { name } = request.params;
        const answer = await replaceTag(
          db,
          request.auth.project,
          name,
          request.headers['if-match'],
          request.body,
          method === 'patch',
        );
        return send(reply, answer);
      },
    );
  }
  app.delete(
    '/v1/tags/:name',
    {
      config,
      schema: {
        ...schema,
        summary: 'Delete a tag',
        params: NameParams,
        headers: IfMatch,
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      await deleteTag(db, request.auth.project, request.params.name, request.headers['if-match']);
      return reply.code(204).send(null);
    },
  );
}
