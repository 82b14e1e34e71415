// Every GET answer carries an ETag and `Cache-Control: private, no-cache` (answers depend on the
// key), and a matching If-None-Match gets 304 with no body.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { addVary, chooseEncoding, negotiatesEncoding, weakTag } from './compression.ts';
import { routeOf } from './route-of.ts';

export const cacheControl = 'private, no-cache';
/** One reader's answer (a draft preview): never stored by a browser or proxy, no ETag to reuse. */
export const privateCacheControl = 'private, no-store';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A query parameter that, when sent, makes the answer one reader's (a preview token):
     * `Cache-Control: private, no-store`, no ETag and no 304, and never in the answer cache.
     */
    privateWith?: string;
  }
}

/** Whether the request carries its route's `privateWith` parameter (read before validation). */
export function isPrivateAnswer(request: FastifyRequest): boolean {
  const name = routeOf(request).config.privateWith;
  if (name === undefined) return false;
  const query: unknown = request.query;
  return typeof query === 'object' && query !== null && Object.hasOwn(query, name);
}

/** The strong ETag of an answer that names none itself: its bytes' SHA-1. */
export function bodyTag(payload: string | Buffer): string {
  return `"${createHash('sha1').update(payload).digest('base64url')}"`;
}

export function registerHttpCaching(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    if (isPrivateAnswer(request)) {
      reply.header('Cache-Control', privateCacheControl);
      reply.removeHeader('ETag');
      return payload;
    }
    reply.header('Cache-Control', cacheControl);
    if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload)))
      return payload;
    let etag = reply.getHeader('etag');
    if (typeof etag !== 'string') {
      etag = bodyTag(payload);
      reply.header('ETag', etag);
    }
    if (matches(request.headers['if-none-match'], etag)) {
      // The 304 names what its 200 would: Vary, and the weak tag of an encoded answer.
      if (negotiatesEncoding(request, reply.getHeader('content-type'), Buffer.byteLength(payload))) {
        addVary(reply, 'Accept-Encoding');
        if (chooseEncoding(request.headers['accept-encoding']) !== null) reply.header('ETag', weakTag(etag));
      }
      reply.code(304);
      reply.removeHeader('Content-Type');
      reply.removeHeader('Content-Length');
      reply.removeHeader('Content-Encoding');
      return '';
    }
    return payload;
  });
}

/** If-None-Match compares weakly (RFC 9110): a compressed answer's W/ tag matches the plain one's. */
export function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag === opaque || tag === `W/${opaque}`;
  });
}
