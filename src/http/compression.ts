// Brotli or gzip for answers of 1 KB or more when the client accepts it, with
// `Vary: Accept-Encoding`. Cached answers keep their compressed bytes next to the text
// (answer-cache.ts), so a cache hit is never compressed twice; other answers are compressed off
// the event loop (zlib's thread pool), and streamed ones through a zlib stream. An encoded answer's
// ETag is weak (`W/"…"`): the bytes differ from the identity answer's, while If-None-Match with
// either form still gets its 304 (http-caching.ts).
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { routeOf } from './route-of.ts';

export type Encoding = 'br' | 'gzip';

export const compressThreshold = 1024;
const compressible = /json|xml|text|javascript/i;

const brotliOptions = {
  // Quality 5: most of brotli's gain over gzip at a fraction of the default quality 11's cost.
  params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 },
};
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** The encoding to send for this Accept-Encoding header: brotli before gzip, none for q=0. */
export function chooseEncoding(header: string | string[] | undefined): Encoding | null {
  if (typeof header !== 'string' || header === '') return null;
  let gzipOk = false;
  let brOk = false;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (name === 'br') brOk = true;
    else if (name === 'gzip' || name === '*') gzipOk = true;
  }
  return brOk ? 'br' : gzipOk ? 'gzip' : null;
}

export function compressSync(body: string | Buffer, encoding: Encoding): Buffer {
  return encoding === 'br' ? zlib.brotliCompressSync(body, brotliOptions) : zlib.gzipSync(body);
}

export function compress(body: string | Buffer, encoding: Encoding): Promise<Buffer> {
  return encoding === 'br' ? brotli(body, brotliOptions) : gzip(body);
}

/** Adds a name to the reply's Vary header, keeping those already there (CORS adds Origin). */
export function addVary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  const names = typeof current === 'string' && current !== '' ? current.split(/\s*,\s*/) : [];
  if (names.some((existing) => existing.toLowerCase() === name.toLowerCase())) return;
  reply.header('Vary', [...names, name].join(', '));
}

/** The weak form of an entity tag: an encoded answer's bytes differ from the identity answer's. */
export function weakTag(etag: string): string {
  return etag.startsWith('W/') ? etag : `W/${etag}`;
}

/** Marks the reply as encoded: header, Vary, weak ETag. */
export function markEncoded(reply: FastifyReply, encoding: Encoding): void {
  reply.header('Content-Encoding', encoding);
  addVary(reply, 'Accept-Encoding');
  reply.removeHeader('Content-Length');
  const etag = reply.getHeader('etag');
  if (typeof etag === 'string') reply.header('ETag', weakTag(etag));
}

function isStream(payload: unknown): payload is Readable {
  return typeof (payload as Readable | null)?.pipe === 'function';
}

/**
 * Whether an answer of this type and size is sent encoded when the client accepts it, so that it
 * varies by Accept-Encoding (a 304 names that too, as its 200 would: RFC 9110 §15.4.5).
 */
export function negotiatesEncoding(request: FastifyRequest, type: unknown, size: number): boolean {
  return routeNegotiatesEncoding(routeOf(request).config, type, size);
}

/** negotiatesEncoding of an answer of a route of this config. */
export function routeNegotiatesEncoding(config: FastifyContextConfig, type: unknown, size: number): boolean {
  return (
    config.compress !== false &&
    typeof type === 'string' &&
    compressible.test(type) &&
    size >= compressThreshold
  );
}

export function registerCompression(app: FastifyInstance): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (request.method === 'HEAD' || reply.statusCode === 304 || reply.statusCode === 204) return payload;
    if (reply.getHeader('content-encoding') !== undefined) return payload;
    if (routeOf(request).config.compress === false) return payload;
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !compressible.test(type)) return payload;
    if (isStream(payload)) {
      addVary(reply, 'Accept-Encoding');
      const encoding = chooseEncoding(request.headers['accept-encoding']);
      if (encoding === null) return payload;
      markEncoded(reply, encoding);
      const zipper = encoding === 'br' ? zlib.createBrotliCompress(brotliOptions) : zlib.createGzip();
      payload.on('error', (error) => zipper.destroy(error));
      return payload.pipe(zipper);
    }
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (Buffer.byteLength(payload) < compressThreshold) return payload;
    addVary(reply, 'Accept-Encoding');
    const encoding = chooseEncoding(request.headers['accept-encoding']);
    if (encoding === null) return payload;
    const encoded = await compress(payload, encoding);
    markEncoded(reply, encoding);
    request.compressedAnswer?.(encoding, encoded);
    return encoded;
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: the route encodes its answers itself (or never). */
    compress?: boolean;
  }
  interface FastifyRequest {
    /** Set by the answer cache on a miss: keeps the compressed bytes with the cached answer. */
    compressedAnswer: ((encoding: Encoding, bytes: Buffer) => void) | null;
  }
}
