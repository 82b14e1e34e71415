// Every response carries X-Request-Id; a valid incoming one is reused so that a front end can
// follow a request across services.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && acceptable.test(incoming) ? incoming : randomUUID();
}

export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
}
