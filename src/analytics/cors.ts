// Browsers on the track endpoints: a public key may list the origins allowed to use it; CORS headers
// echo an allowed origin, and preflight requests (which carry no key) are answered for any origin.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../http/errors.ts';

const allowMethods = 'POST, PUT, OPTIONS';
const allowHeaders = 'Content-Type, X-API-Key, Authorization, X-Folio-Client, X-Request-Id';
const exposeHeaders =
  'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';
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
export async function checkOrigin(request: FastifyRequest): Promise<void> {
  if (request.method === 'OPTIONS' || !request.auth) return;
  const origin = request.headers.origin;
  if (!isOriginAllowed(request.auth.key.allowed_origins, origin)) {
    const shown =
      origin === undefined ? 'A request without an Origin header' : `Origin '${origin.slice(0, 200)}'`;
    throw new ForbiddenError(`${shown} is not allowed to use this key`);
  }
}

/** onSend: CORS headers on answers to allowed origins (only once the key is known). */
export async function addCorsHeaders(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  reply.header('Vary', 'Origin');
  const origin = request.headers.origin;
  if (request.method === 'OPTIONS' || !request.auth || parseOrigin(origin) === null) return payload;
  if (isOriginAllowed(request.auth.key.allowed_origins, origin)) {
    reply.header('Access-Control-Allow-Origin', origin);
    reply.header('Access-Control-Expose-Headers', exposeHeaders);
  }
  return payload;
}

/** The answer to a preflight request: any origin may ask; the real request is checked with its key. */
export function answerPreflight(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const origin = request.headers.origin;
  if (parseOrigin(origin) !== null) reply.header('Access-Control-Allow-Origin', origin);
  return reply
    .code(204)
    .header('Access-Control-Allow-Methods', allowMethods)
    .header('Access-Control-Allow-Headers', allowHeaders)
    .header('Access-Control-Max-Age', preflightMaxAge)
    .header('Vary', 'Origin')
    .send();
}
