// The Folio app over DATABASE_URL (and REDIS_URL), without logs, as the server runs it.
//
// BENCH_TRACKING (the rate bench's BENCH_RATE_TRACKING) answers the tracking requests (POST
// /v1/analytics/track and PUT /v1/analytics/track/:id) otherwise, to measure what each layer of a
// tracking request costs: `none` in the server's own request listener, in front of everything,
// with a fixed answer (no work at all); `bare` by the trivial routes of a bare Fastify instance;
// `hooks` by trivial routes of this app (their URLs rewritten), behind all its hooks (request id,
// authentication, CORS, rate limit, metrics) but without the tracking's own work.
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { AnswerCache } from '../src/http/answer-cache.ts';
import { createRateLimitStore } from '../src/server.ts';

const config = loadConfig();
const db = openDatabase(config.databaseUrl);
const app = await buildApp({
  db,
  rateLimits: createRateLimitStore(config.redisUrl),
  search: { concurrency: config.limits.searchConcurrency, timeoutMs: config.limits.searchTimeoutMs },
  // BENCH_ANSWER_CACHE=off measures every request running its queries (a cache that keeps nothing).
  ...(process.env.BENCH_ANSWER_CACHE === 'off' ? { answerCache: new AnswerCache(0) } : {}),
});
const tracking = process.env.BENCH_TRACKING ?? 'real';
const trackPath = '/v1/analytics/track';
// Under /v1/analytics/, as the tracking routes, so that the app's hooks treat them alike.
const stubPath = '/v1/analytics/bench-tracking-stub';
let stubbed = 0;
/** A new page view's answer, and an update's. */
const stubAnswer = (method: string) =>
  method === 'POST'
    ? {
        status: 201,
        body: { id: `${Date.now().toString(16).padStart(12, '0')}${String(stubbed++).padStart(22, '0')}` },
      }
    : { status: 200, body: { data: { updated: true } } };
function stubRoutes(fastify: FastifyInstance, path: string, config: object): void {
  for (const [method, url] of [
    ['POST', path],
    ['PUT', `${path}/:id`],
  ] as const) {
    fastify.route({
      method,
      url,
      config,
      handler: async (_request, reply) => {
        const { status, body } = stubAnswer(method);
        return reply.code(status).send(body);
      },
    });
  }
}
if (tracking === 'hooks') stubRoutes(app, stubPath, { access: 'public', keyInQuery: true, cors: 'track' });
const bare = tracking === 'bare' ? Fastify() : null;
if (bare !== null) {
  stubRoutes(bare, trackPath, {});
  await bare.ready();
}

await app.listen({ port: 0, host: '127.0.0.1' });
if (tracking !== 'real') {
  const server = app.server;
  const [inner] = server.listeners('request') as Array<
    (request: IncomingMessage, response: ServerResponse) => void
  >;
  server.removeListener('request', inner);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' || !request.url!.startsWith(trackPath)) return inner(request, response);
    if (tracking === 'hooks') {
      request.url = stubPath + request.url!.slice(trackPath.length);
      return inner(request, response);
    }
    if (bare !== null) return bare.routing(request, response);
    request.resume().on('end', () => {
      const { status, body } = stubAnswer(request.method!);
      const text = JSON.stringify(body);
      response.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    });
  });
}
const address = app.server.address();
process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
process.on('SIGTERM', async () => {
  await app.close();
  await bare?.close();
  await db.close();
  process.exit(0);
});
