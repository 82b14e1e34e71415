// The webhook endpoints (write scope): create, list, delete, and a webhook's delivery log.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { errorSchemas } from '../http/errors.ts';
import type { AddressPolicy } from './addresses.ts';
import {
  createDescription,
  deleteDescription,
  deliveriesDescription,
  listDescription,
} from './descriptions.ts';
import {
  CreatedWebhook,
  DeliveryPage,
  DeliveryQuery,
  Webhook,
  WebhookBody,
  WebhookParams,
} from './schemas.ts';
import { createWebhook, deleteWebhook, listWebhooks, webhookDeliveries } from './service.ts';

export function webhookRoutes(fastify: FastifyInstance, db: Db, policy: AddressPolicy): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const config = { scope: 'write' as const };
  app.post(
    '/v1/webhooks',
    {
      config,
      schema: {
        tags: ['Webhooks'],
        summary: 'Create a webhook',
        description: createDescription,
        body: WebhookBody,
        response: {
          201: Type.Object({ data: CreatedWebhook }),
          ...errorSchemas(400, 401, 403, 409, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const data = await createWebhook(db, request.auth.project.id, request.body, policy);
      return reply.code(201).header('Location', `/v1/webhooks/${data.id}`).send({ data });
    },
  );
  app.get(
    '/v1/webhooks',
    {
      config,
      schema: {
        tags: ['Webhooks'],
        summary: 'List webhooks',
        description: listDescription,
        response: {
          200: Type.Object({ data: Type.Array(Webhook) }),
          ...errorSchemas(400, 401, 403, 429, 503),
        },
      },
    },
    async (request) => ({ data: await listWebhooks(db, request.auth.project.id) }),
  );
  app.delete(
    '/v1/webhooks/:id',
    {
      config,
      schema: {
        tags: ['Webhooks'],
        summary: 'Delete a webhook',
        description: deleteDescription,
        params: WebhookParams,
        response: { 204: Type.Null(), ...errorSchemas(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) => {
      await deleteWebhook(db, request.auth.project.id, request.params.id);
      return reply.code(204).send(null);
    },
  );
  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config,
      schema: {
        tags: ['Webhooks'],
        summary: "A webhook's delivery log",
        description: deliveriesDescription,
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: { 200: DeliveryPage, ...errorSchemas(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) =>
      webhookDeliveries(
        db,
        request.auth.project.id,
        request.params.id,
        request.query.page ?? 1,
        request.query.limit ?? 20,
      ),
  );
}
