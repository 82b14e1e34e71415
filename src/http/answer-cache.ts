// A bounded in-memory cache of whole GET answers of the routes that opt in (`config.cache`).
// Entries are keyed by the project's content version, which every write bumps in the database,
// so that a change made through any instance or the CLI is seen on the next request; an entry
// also dies when the project's next scheduled article goes live.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { nextScheduledPublication } from '../projects/queries.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The answer depends only on the project's content and the URL: cache it. */
    cache?: boolean;
  }
  interface FastifyRequest {
    answerCacheKey: string | null;
  }
}

export interface CachedAnswer {
  body: string;
  etag: string;
  contentType: string;
  headers: Record<string, string>;
  /** Epoch milliseconds after which the answer may be wrong (a scheduled article went live). */
  expiresAt: number;
}

export class AnswerCache {
  readonly #entries = new Map<string, CachedAnswer>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxEntries = 5000, maxBytes = 64 * 1024 * 1024) {
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
  }

  get(key: string, now: number): CachedAnswer | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= now) {
      this.#bytes -= entry.body.length;
      return undefined;
    }
    this.#entries.set(key, entry); // most recently used last
    return entry;
  }

  set(key: string, entry: CachedAnswer): void {
    if (entry.body.length > this.#maxBytes / 8) return;
    const previous = this.#entries.get(key);
    if (previous) {
      this.#bytes -= previous.body.length;
      this.#entries.delete(key);
    }
    this.#entries.set(key, entry);
    this.#bytes += entry.body.length;
    for (const [oldest, old] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= old.body.length;
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}

const forwardedHeaders = ['link'];

export function registerAnswerCache(app: FastifyInstance, db: Db, cache: AnswerCache): void {
  app.decorateRequest('answerCacheKey', null);

  // After authentication (onRequest), before validation and the handler.
  app.addHook('preValidation', async (request, reply) => {
    if (request.method !== 'GET' || request.routeOptions.config?.cache !== true || !request.auth) return;
    const { project } = request.auth;
    const key = `${project.id}\u0000${project.content_version}\u0000${request.auth.key.kind}\u0000${request.url}`;
    const hit = cache.get(key, Date.now());
    if (hit === undefined) {
      request.answerCacheKey = key;
      return;
    }
    reply.header('ETag', hit.etag).type(hit.contentType).headers(hit.headers);
    return reply.send(hit.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.answerCacheKey;
    if (key === null || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const etag = reply.getHeader('etag');
    if (typeof etag !== 'string') return payload;
    const next = await nextScheduledPublication(db.kysely, request.auth.project.id, new Date().toISOString());
    const headers: Record<string, string> = {};
    for (const name of forwardedHeaders) {
      const value = reply.getHeader(name);
      if (typeof value === 'string') headers[name] = value;
    }
    cache.set(key, {
      body: payload,
      etag,
      contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      headers,
      expiresAt: next === null ? Number.POSITIVE_INFINITY : Date.parse(next),
    });
    return payload;
  });
}
