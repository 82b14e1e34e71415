// The hit path: a GET whose answer the answer cache holds (answer-cache.ts) is answered from the
// server's own request listener, before Fastify builds its request and reply, routes it and runs
// its hooks. Measured with wrk on the cached list, those were the larger part of a hit's CPU. It
// does what the hooks would do for such a request, with their code: the request id, the key's
// access, scope and allowed origins, the rate limit and its headers, the answer's headers
// (writeHit), the metrics and the request log. Whatever it cannot settle at once (no key known yet,
// no answer ready, view counts to look at, a forwarded address to read, an Origin the key does not
// allow, a request past its limit, a server draining), it hands to Fastify unchanged, and the hooks
// answer as they always have; a request it counted already keeps that decision (HitAuth.handOver).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Decision } from './rate-limit.ts';
import { type AuthContext, type HitAuth, rateLimitHeaders, authenticatedLimit } from './auth.ts';
import { type HitHeaders, type HitLookup, writeHit } from './answer-cache.ts';
import { isOriginAllowed } from './cors.ts';
import type { AppMetrics } from './metrics.ts';
import { requestIdFor, requestLine } from './request-id.ts';

export interface HitPathOptions {
  auth: HitAuth;
  lookup: HitLookup;
  countHit: AppMetrics['countHit'];
  /** Whether the server is shutting down (its hooks then refuse every request). */
  draining: () => boolean;
  /** TRUST_PROXY is set: a request with X-Forwarded-For is counted at the address Fastify reads from it. */
  trustsForwarding: boolean;
  /** The request log's logger, or null when requests are not logged. */
  log: FastifyBaseLogger | null;
}

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/** Puts the hit path in front of Fastify's request listener on the app's server. */
export function installHitPath(app: FastifyInstance, options: HitPathOptions): void {
  const server = app.server;
  const [fastify] = server.listeners('request') as Listener[];
  server.removeListener('request', fastify);
  // What throws here (nothing should) is Fastify's to answer, or ends the answer begun.
  const guarded: Listener = (request, response) => {
    try {
      if (!answerHit(request, response, options, fastify, guardedSend)) fastify(request, response);
    } catch (error) {
      failed(request, response, error);
    }
  };
  const failed = (request: IncomingMessage, response: ServerResponse, error: unknown) => {
    app.log.error({ err: error }, 'the hit path failed');
    if (response.headersSent) response.destroy();
    else fastify(request, response);
  };
  const guardedSend = (request: IncomingMessage, response: ServerResponse, send: () => void) => {
    try {
      send();
    } catch (error) {
      failed(request, response, error);
    }
  };
  server.on('request', guarded);
}

/** Whether the hit path took the request (answering it, or handing it to `fastify` later). */
function answerHit(
  request: IncomingMessage,
  response: ServerResponse,
  options: HitPathOptions,
  fastify: Listener,
  later: (request: IncomingMessage, response: ServerResponse, send: () => void) => void,
): boolean {
  const started = performance.now();
  if (request.method !== 'GET' || request.headers.host === undefined || options.draining()) return false;
  if (options.trustsForwarding && request.headers['x-forwarded-for'] !== undefined) return false;
  const address = request.socket.remoteAddress;
  if (address === undefined) return false;
  const auth = options.auth.known(request.headers);
  if (auth === null) return false;
  const url = request.url ?? '/';
  const found = options.lookup(auth, url, Date.now());
  if (found === null) return false;
  const { config } = found.hit.route;
  if (config.cors !== undefined && !isOriginAllowed(auth.key.allowed_origins, request.headers.origin))
    return false;
  if (!options.auth.admits(auth, config)) return false;
  const decision = options.auth.count(auth, address);
  if (decision === null) return false;
  const send = (decided: Decision, current: ReturnType<HitLookup>) => {
    if (!decided.allowed || current === null) {
      options.auth.handOver(request, auth, address, decided);
      return fastify(request, response);
    }
    sendFound(request, response, options, auth, decided, current, started);
  };
  if (decision instanceof Promise) {
    // Counted in Redis: the answer is looked up again once counted, as the hooks would look it up.
    void decision.then((decided) =>
      later(request, response, () =>
        decided === null ? fastify(request, response) : send(decided, options.lookup(auth, url, Date.now())),
      ),
    );
  } else send(decision, found);
  return true;
}

function sendFound(
  request: IncomingMessage,
  response: ServerResponse,
  options: HitPathOptions,
  auth: AuthContext,
  decision: Decision,
  { hit, keepEncoded }: NonNullable<ReturnType<HitLookup>>,
  started: number,
): void {
  const id = requestIdFor(request);
  const headers: HitHeaders = {
    'x-request-id': id,
    ...rateLimitHeaders(decision, auth.key.rate_limit ?? authenticatedLimit),
  };
  const status = writeHit(request, response, headers, hit, hit.route, auth, keepEncoded);
  const elapsedMs = performance.now() - started;
  options.countHit(hit.route.url, status, elapsedMs / 1000);
  options.log?.info(
    { reqId: id, ...requestLine('GET', request.url ?? '/', status, elapsedMs) },
    'request completed',
  );
}
