// Browsers. Routes that opt in (`config.cors`) answer pages on other origins: a public key may list
// the origins allowed to use it (a request from another one is a 403), CORS headers echo an allowed
// origin, error answers carry them for any origin so that a page can read the real reason, and
// preflight requests (which carry no key) are answered for any origin.
import { addVary } from './compression.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../errors.ts';
import type { AuthContext } from './auth.ts';
import { routeOf } from './route-of.ts';

/**
 * `track`: the tracking endpoints, which answer any key kind's allowed origins (as always);
 * `read`: the content and SEO reads, which send CORS headers to public keys only: a secret key
 * reads drafts and must never be shipped to a browser, so its answers stay unreadable there.
 */
export type CorsMode = 'track' | 'read';

declare module 'fastify' {
  interface FastifyContextConfig {
    cors?: CorsMode;
  }
}

/**
 * The route config of a GET that public keys and browsers may use (public keys read only
 * published content).
 */
export const browserRead = { access: 'public', cors: 'read' } as const;

/** What such a GET's OpenAPI description says of CORS. */
export const browserRule =
  'CORS: answers carry `Access-Control-Allow-Origin` for the origins a public key allows (every origin when it has no list; another origin is a 403), error answers carry it for any origin so that a page can read the reason, `OPTIONS` preflights are answered, and `ETag`, `Link`, `Retry-After`, `X-Request-Id` and `X-RateLimit-*` are exposed. Secret keys get no CORS headers on success: they must never be shipped to a browser.';

const allowHeaders = 'Content-Type, X-API-Key, Authorization, X-Folio-Client, X-Request-Id, If-None-Match';
export const exposeHeaders =
  'ETag, Link, Retry-After, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';
const preflightMaxAge = '86400';

/** The serialized origin of an `Origin` header (`https://blog.example.com`), or null when it is none. */
export function parseOrigin(header: string | undefined): string | null {
  if (header === undefined || header.length > 2048) return null;
  try {
    const url = new URL(header);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin;
  } catch {
    return null;
  }
}

const parsedLists = new Map<string, string[]>();

function allowedOriginsOf(stored: string | null): string[] | null {
  if (stored === null) return null;
  let list = parsedLists.get(stored);
  if (list === undefined) {
    list = JSON.parse(stored) as string[];
    if (parsedLists.size > 1000) parsedLists.clear();
    parsedLists.set(stored, list);
  }
  return list.length > 0 ? list : null;
}

/** A key without a list allows every origin; with one, only those listed (an absent Origin is not). */
export function isOriginAllowed(allowedOrigins: string | null, originHeader: string | undefined): boolean {
  const list = allowedOriginsOf(allowedOrigins);
  if (list === null) return true;
  const origin = parseOrigin(originHeader);
  return origin !== null && list.includes(origin);
}

/** onRequest, after authentication: refuses a request from an origin the key does not allow. */
function checkOrigin(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  if (request.method === 'OPTIONS' || !request.auth || !routeOf(request).config.cors) return done();
  const origin = request.headers.origin;
  if (isOriginAllowed(request.auth.key.allowed_origins, origin)) return done();
  const shown =
    origin === undefined ? 'A request without an Origin header' : `Origin '${origin.slice(0, 200)}'`;
  done(new ForbiddenError(`${shown} is not allowed to use this key`));
}

/**
 * The CORS headers of an answer with this status to this request, or null when the route is not a
 * browser route. An error answer (401, 403, 404, 429, ...) gets them for any origin: it holds
 * nothing of the project, and without them a page sees only an opaque network error. A successful
 * one only for an origin the key allows (and, on reads, only for a public key). Every answer of a
 * browser route varies by Origin.
 */
export function corsHeadersFor(
  request: FastifyRequest,
  statusCode: number,
): { allowOrigin: string | null } | null {
  if (request.method === 'OPTIONS') return null;
  return corsOf(routeOf(request).config.cors, request.headers.origin, request.auth?.key, statusCode);
}

/** corsHeadersFor of a request that is no preflight, from the route's mode, the Origin header and the key (if any). */
export function corsOf(
  mode: CorsMode | undefined,
  origin: string | undefined,
  key: Pick<AuthContext['key'], 'kind' | 'allowed_origins'> | undefined,
  statusCode: number,
): { allowOrigin: string | null } | null {
  if (mode === undefined) return null;
  if (parseOrigin(origin) === null) return { allowOrigin: null };
  const readable =
    statusCode >= 400 ||
    (key !== undefined &&
      (mode === 'track' || key.kind === 'public') &&
      isOriginAllowed(key.allowed_origins, origin));
  return { allowOrigin: readable && origin !== undefined ? origin : null };
}

/** onSend: the CORS headers of corsHeadersFor. */
async function addCorsHeaders(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const cors = corsHeadersFor(request, reply.statusCode);
  if (cors === null) return payload;
  addVary(reply, 'Origin'); // beside Accept-Encoding of a compressed answer
  if (cors.allowOrigin !== null) {
    reply.header('Access-Control-Allow-Origin', cors.allowOrigin);
    reply.header('Access-Control-Expose-Headers', exposeHeaders);
  }
  return payload;
}

export function registerCors(app: FastifyInstance): void {
  app.addHook('onRequest', checkOrigin);
  app.addHook('onSend', addCorsHeaders);
}

/** Answers preflight requests on these paths: any origin may ask; the real request is checked with its key. */
export function answerPreflights(app: FastifyInstance, urls: string[], methods: string): void {
  const allowMethods = `${methods}, OPTIONS`;
  for (const url of urls) {
    app.options(url, { config: { access: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const origin = request.headers.origin;
      if (parseOrigin(origin) !== null) reply.header('Access-Control-Allow-Origin', origin);
      return reply
        .code(204)
        .header('Access-Control-Allow-Methods', allowMethods)
        .header('Access-Control-Allow-Headers', allowHeaders)
        .header('Access-Control-Max-Age', preflightMaxAge)
        .header('Vary', 'Origin')
        .send();
    });
  }
}
