// A bounded in-memory cache of whole GET answers of the routes that opt in (`config.cache`).
// Entries are keyed by the project's content version, which every content write (import, prune,
// CLI) bumps in the database, so that such a change made through any instance is seen on the next
// request; an entry also dies when the project's next scheduled article goes live.
//
// Page views do not bump the version: a blog being read would otherwise lose its whole cache many
// times a second. Answers that show view counts (`config.viewCounts`) are instead rebuilt once
// they are `viewCountLagMs` old and a page view of their article ('article') or project
// ('project') grew after they were built: told by the roll-up of this instance that summed the
// page views (analytics/rollups/rollup-queue.ts, within 1 s of them), by PostgreSQL's notifications for
// the others (db/change-listener.ts), and on SQLite by any commit of another process. So a view
// count lags by at most that long (2 s by default) after it is summed. An article's answer gets its
// new count written in: the count PostgreSQL's notification carried, else one read of it.
//
// Compressed forms (compression.ts) are kept with the answer, so a hit is never compressed again.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { NotifiedViewCount } from '../db/change-listener.ts';
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import type { AuthContext } from './auth.ts';
import {
  chooseEncoding,
  compressSync,
  type Encoding,
  routeNegotiatesEncoding,
  weakTag,
} from './compression.ts';
import { corsOf, exposeHeaders } from './cors.ts';
import { bodyTag, cacheControl, isPrivateAnswer, matches } from './http-caching.ts';
import { type RouteOf, routeOf } from './route-of.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The answer depends only on the project's content and the URL: cache it. */
    cache?: boolean;
    /** The cached answer shows view counts of the `:slug` article, or of the whole project. */
    viewCounts?: 'article' | 'project';
  }
  interface FastifyRequest {
    answerCacheKey: string | null;
    answerViewsSeq: number;
    /**
     * Set by a 'project' route whose answer shows the view counts of these articles only (a page
     * of the list, not sorted by views): it is rebuilt for their page views, not for any of the
     * project's.
     */
    answerViewedSlugs: string[] | null;
  }
}

export const defaultViewCountLagMs = 2000;

export interface CachedAnswer {
  /** The answer's UTF-8 bytes: a hit sends them as they are (measured: encoding the text on every
   * send was the largest single cost of a hit, 17% of the CPU profile of the cached list). */
  body: Buffer;
  etag: string;
  contentType: string;
  headers: Record<string, string>;
  /** Epoch milliseconds after which the answer may be wrong (a scheduled article went live). */
  expiresAt: number;
  /** Epoch milliseconds when it was built. */
  builtAt?: number;
  /**
   * The view clock's value when it was built, and what its view counts are of: one article
   * (`slug`), some (`slugs`) or the whole project (neither); null: none shown.
   */
  views?: {
    seq: number;
    projectId: string;
    slug: string | null;
    slugs?: string[];
    /** The clock's value when its views were last found unchanged (a hit then asks again only
     * once the clock moved: a list page's check builds a key per article shown). */
    uncheckedAfter?: number;
  } | null;
  encoded?: Partial<Record<Encoding, Buffer>>;
  /** Where the body's one `"viewCount":` number is (an article's answer), to write a new count in. */
  viewCountAt?: { start: number; end: number } | null;
  /** The route that built it (its pattern and config), for the hit path (hit-path.ts). */
  route?: RouteOf;
}

/**
 * A cached answer that can be sent as it is now, for the hit path (hit-path.ts): null when there is
 * none, or when its view counts must be looked at first (the hooks do that).
 */
export type HitLookup = (
  auth: AuthContext,
  url: string,
  now: number,
) => { hit: CachedAnswer & { route: RouteOf }; keepEncoded: KeepEncoded } | null;

type KeepEncoded = (encoding: Encoding, bytes: Buffer) => void;

/** Response headers by lower-case name. */
export type HitHeaders = Record<string, string | number | string[] | undefined>;

function sizeOf(entry: CachedAnswer): number {
  return entry.body.length + (entry.encoded?.br?.length ?? 0) + (entry.encoded?.gzip?.length ?? 0);
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
      this.#bytes -= sizeOf(entry);
      return undefined;
    }
    this.#entries.set(key, entry); // most recently used last
    return entry;
  }

  set(key: string, entry: CachedAnswer): void {
    if (entry.body.length > this.#maxBytes / 8) return;
    const previous = this.#entries.get(key);
    if (previous) {
      this.#bytes -= sizeOf(previous);
      this.#entries.delete(key);
    }
    this.#entries.set(key, entry);
    this.#bytes += sizeOf(entry);
    this.#evict();
  }

  /** Keeps a compressed form with the entry (if it is still cached). */
  addEncoded(key: string, encoding: Encoding, bytes: Buffer): void {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.encoded?.[encoding] !== undefined) return;
    entry.encoded = { ...entry.encoded, [encoding]: bytes };
    this.#bytes += bytes.length;
    this.#evict();
  }

  #evict(): void {
    for (const [oldest, old] of this.#entries) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= sizeOf(old);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * Which page views were committed since when: a counter advanced by each touch, with the value of
 * the last touch of each project and article. A touch of (null, null) means "maybe anything". A
 * touch that carries the article's new count keeps it, until a touch without one.
 */
export class ViewClock {
  #seq = 0;
  #all = 0;
  readonly #projects = new Map<string, number>();
  readonly #articles = new Map<string, number>();
  readonly #counts = new Map<string, NotifiedViewCount>();

  get seq(): number {
    return this.#seq;
  }

  touch(projectId: string | null, slug: string | null, notified?: NotifiedViewCount): void {
    if (projectId === null) {
      this.#all = ++this.#seq;
      this.#counts.clear();
      return;
    }
    if (slug === null) {
      this.#projects.set(projectId, ++this.#seq);
      for (const key of this.#counts.keys())
        if (key.startsWith(`${projectId}\u0000`)) this.#counts.delete(key);
      return;
    }
    const key = this.#mark(projectId, slug);
    // A touch without a count (a notification without one, this instance's own roll-up while
    // notifications are not heard) leaves it unknown: the next answer reads it.
    if (notified === undefined) this.#counts.delete(key);
    else this.#counts.set(key, notified);
  }

  /**
   * This instance's own roll-up committed page views of the article, and its notification, which
   * carries the new count, is on its way (PostgreSQL, while notifications are heard): a count
   * notified before is kept, since that notification often comes first. Until it comes, an answer
   * may show the count before this roll-up, as view counts' lag allows.
   */
  rolledUp(projectId: string, slug: string): void {
    this.#mark(projectId, slug);
  }

  /** Advances the clock for the article and its project; returns the article's key. */
  #mark(projectId: string, slug: string): string {
    const seq = ++this.#seq;
    const key = `${projectId}\u0000${slug}`;
    this.#projects.set(projectId, seq);
    this.#articles.set(key, seq);
    return key;
  }

  /**
   * The view count of the article last notified, if the slug named it at `contentVersion` (a slug
   * deleted and taken again since names another article, whose count must be read).
   */
  countOf(projectId: string, slug: string, contentVersion: string): number | undefined {
    const notified = this.#counts.get(`${projectId}\u0000${slug}`);
    return notified?.contentVersion === contentVersion ? notified.count : undefined;
  }

  changedSince(seq: number, projectId: string, slug: string | null, slugs?: string[]): boolean {
    if (this.#all > seq) return true;
    if (slugs !== undefined && slug === null) {
      return slugs.some((one) => (this.#articles.get(`${projectId}\u0000${one}`) ?? 0) > seq);
    }
    const last =
      slug === null ? this.#projects.get(projectId) : this.#articles.get(`${projectId}\u0000${slug}`);
    return last !== undefined && last > seq;
  }
}

export interface AnswerCacheOptions {
  cache: AnswerCache;
  clock: ViewClock;
  viewCountLagMs: number;
  /**
   * The project's earliest publication still in the future at `now` (ISO timestamps), or null: a
   * cached answer must not outlive it. Asked of projects/ by app.ts, which keeps it per content
   * version (projects/next-publication.ts).
   */
  nextPublication(project: Pick<Project, 'id' | 'content_version'>, now: string): Promise<string | null>;
  /**
   * The view count an article's answer shows now (null: no article has that slug). An article's
   * answer whose count changed gets the new count written into its bytes instead of being built
   * again: measured at 50 views a second, more than half of the article reads found their answer's
   * count changed, and a rebuild cost 0.5 ms of CPU more than a hit.
   */
  viewCountOf?(projectId: string, slug: string): Promise<number | null>;
}

const forwardedHeaders = ['link'];

export function registerAnswerCache(app: FastifyInstance, db: Db, options: AnswerCacheOptions): HitLookup {
  const { cache, clock, viewCountLagMs, nextPublication, viewCountOf } = options;
  app.decorateRequest('answerCacheKey', null);
  app.decorateRequest('answerViewsSeq', 0);
  app.decorateRequest('answerViewedSlugs', null);
  app.decorateRequest('compressedAnswer', null);
  const unsubscribe = db.onViews((projectId, slug, notified) => clock.touch(projectId, slug, notified));
  app.addHook('onClose', async () => unsubscribe());
  const viewsChanged = viewsCheck(db, clock, viewCountLagMs);

  // onRequest, after authentication and the origin check (registered after both): a hit is
  // answered before validation and the handler, and written by sendHit.
  app.addHook('onRequest', (request, reply, done) => {
    const config = routeOf(request).config;
    if (request.method !== 'GET' || config.cache !== true || !request.auth || isPrivateAnswer(request))
      return done();
    const key = cacheKey(request.auth, request.url);
    const now = Date.now();
    const hit = cache.get(key, now);
    const keepEncoded: KeepEncoded = (encoding, bytes) => cache.addEncoded(key, encoding, bytes);
    const miss = () => {
      request.answerCacheKey = key;
      request.answerViewsSeq = clock.seq;
      request.compressedAnswer = keepEncoded;
      done();
    };
    if (hit === undefined) return miss();
    if (countsAreCurrent(hit, now)) {
      sendHit(request, reply, hit, keepEncoded);
      return done();
    }
    // Notified counts only while notifications are heard: one missed meanwhile would leave a count behind.
    const countsHeard = db.hearsChanges() === true;
    const version = String(request.auth.project.content_version);
    recounted(hit, clock, viewCountOf, countsHeard ? version : null).then(
      (fresh) => {
        if (fresh === null) return miss();
        cache.set(key, fresh);
        sendHit(request, reply, fresh, keepEncoded);
        done();
      },
      // A failed read is the rebuild's to report (the database's state, in the error body).
      () => miss(),
    );
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.answerCacheKey;
    if (key === null || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const etag = reply.getHeader('etag');
    if (typeof etag !== 'string') return payload;
    const now = Date.now();
    const next = await nextPublication(request.auth.project, new Date(now).toISOString());
    cache.set(key, answerToKeep(request, reply, Buffer.from(payload), etag, now, next));
    return payload;
  });

  function countsAreCurrent(hit: CachedAnswer, now: number): boolean {
    return !hit.views || now - (hit.builtAt ?? 0) < viewCountLagMs || !viewsChanged(hit.views, now);
  }

  return (auth, url, now) => {
    const key = cacheKey(auth, url);
    const hit = cache.get(key, now);
    if (hit?.route === undefined || !countsAreCurrent(hit, now)) return null;
    return {
      hit: hit as CachedAnswer & { route: RouteOf },
      keepEncoded: (encoding, bytes) => cache.addEncoded(key, encoding, bytes),
    };
  };
}

/** The cached form of a GET's answer: `body` with `etag`, built at `now`, good until `next` (or ever). */
function answerToKeep(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Buffer,
  etag: string,
  now: number,
  next: string | null,
): CachedAnswer {
  const headers: Record<string, string> = {};
  for (const name of forwardedHeaders) {
    const value = reply.getHeader(name);
    if (typeof value === 'string') headers[name] = value;
  }
  const route = routeOf(request);
  const scope = route.config.viewCounts;
  return {
    body,
    etag,
    contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
    headers,
    expiresAt: next === null ? Number.POSITIVE_INFINITY : Date.parse(next),
    builtAt: now,
    views:
      scope === undefined
        ? null
        : {
            seq: request.answerViewsSeq,
            projectId: request.auth.project.id,
            slug: scope === 'article' ? slugParam(request) : null,
            ...(scope === 'project' && request.answerViewedSlugs !== null
              ? { slugs: request.answerViewedSlugs }
              : {}),
          },
    viewCountAt: scope === 'article' ? viewCountPosition(body) : null,
    route,
  };
}

/** The key of a GET's answer: the project at its content version, the key's kind and the URL. */
function cacheKey(auth: AuthContext, url: string): string {
  return `${auth.project.id}\u0000${auth.project.content_version}\u0000${auth.key.kind}\u0000${url}`;
}

const viewCountKey = Buffer.from('"viewCount":');

/**
 * Where the number of the answer's one `"viewCount":` member is, or null (none, or more than one).
 * JSON escapes every quote inside a string, so the text can only be a member's name.
 */
export function viewCountPosition(body: Buffer): { start: number; end: number } | null {
  const at = body.indexOf(viewCountKey);
  if (at === -1 || body.indexOf(viewCountKey, at + 1) !== -1) return null;
  const start = at + viewCountKey.length;
  let end = start;
  while (end < body.length && body[end] >= 0x30 && body[end] <= 0x39) end++;
  return end > start ? { start, end } : null;
}

/**
 * An article's cached answer with its current view count written in (the count its notification
 * carried for `contentVersion`, null: none is trusted, else one read), or null when it cannot be (not one article's
 * answer, no such article now): then it is built again.
 */
async function recounted(
  hit: CachedAnswer,
  clock: ViewClock,
  viewCountOf: AnswerCacheOptions['viewCountOf'],
  contentVersion: string | null,
): Promise<CachedAnswer | null> {
  const { views, viewCountAt: at } = hit;
  if (viewCountOf === undefined || !views || views.slug === null || views.slugs || !at) return null;
  // The clock before the count is read: a view counted meanwhile makes the next read look again.
  const seq = clock.seq;
  const count =
    (contentVersion === null ? undefined : clock.countOf(views.projectId, views.slug, contentVersion)) ??
    (await viewCountOf(views.projectId, views.slug));
  if (count === null) return null;
  const digits = Buffer.from(String(count));
  const body = Buffer.concat([hit.body.subarray(0, at.start), digits, hit.body.subarray(at.end)]);
  return {
    ...hit,
    body,
    etag: bodyTag(body),
    builtAt: Date.now(),
    views: { ...views, seq, uncheckedAfter: undefined },
    viewCountAt: { start: at.start, end: at.start + digits.length },
    encoded: undefined,
  };
}

/**
 * Whether page views were counted for a cached answer's view counts since it was built, asked
 * again only once the view clock moved.
 */
function viewsCheck(
  db: Db,
  clock: ViewClock,
  viewCountLagMs: number,
): (views: NonNullable<CachedAnswer['views']>, now: number) => boolean {
  // SQLite: a commit of another process may have added page views (PostgreSQL notifies instead).
  // Asked at most every 100 ms (or the lag, if shorter): view counts may lag anyway, and each ask
  // is a call into SQLite (3% of the cached list's CPU profile when asked on every hit).
  let foreign = db.foreignStamp();
  let foreignAskedAt = 0;
  const foreignEveryMs = Math.min(100, viewCountLagMs);
  return (views, now) => {
    if (now - foreignAskedAt >= foreignEveryMs) {
      foreignAskedAt = now;
      const stamp = db.foreignStamp();
      if (stamp !== foreign) {
        foreign = stamp;
        clock.touch(null, null);
      }
    }
    if (views.uncheckedAfter === clock.seq) return false;
    if (clock.changedSince(views.seq, views.projectId, views.slug, views.slugs)) return true;
    views.uncheckedAfter = clock.seq;
    return false;
  };
}

/**
 * The `:slug` path parameter of a route that has one (a hook of every route reads it, so the
 * params are untyped here), else null.
 */
function slugParam(request: FastifyRequest): string | null {
  const params: unknown = request.params;
  if (typeof params !== 'object' || params === null || !('slug' in params)) return null;
  return typeof params.slug === 'string' ? params.slug : null;
}

/**
 * Writes a cached answer to the socket with the headers that the onSend hooks give an answer
 * (ETag, Cache-Control, Vary, the encoding the client accepts, CORS, 304 for a matching
 * If-None-Match; test/http/answer-cache.test.ts compares the two), without reply.send and those
 * hooks: measured with wrk on the cached list, they were about a third of a hit's CPU. The
 * onResponse hooks (metrics, the request log) still run.
 */
function sendHit(
  request: FastifyRequest,
  reply: FastifyReply,
  hit: CachedAnswer,
  keepEncoded: KeepEncoded,
): void {
  const headers: HitHeaders = reply.getHeaders();
  reply.hijack();
  writeHit(request.raw, reply.raw, headers, hit, routeOf(request), request.auth, keepEncoded);
}

/**
 * Writes a cached answer of `route` for the key of `auth` to `response`, with `headers` (the
 * request id's and the rate limit's) and those of the answer. Returns the status sent.
 */
export function writeHit(
  request: IncomingMessage,
  response: ServerResponse,
  headers: HitHeaders,
  hit: CachedAnswer,
  route: RouteOf,
  auth: AuthContext,
  keepEncoded: KeepEncoded,
): 200 | 304 {
  let body = hit.body;
  let etag = hit.etag;
  const vary: string[] = [];
  if (routeNegotiatesEncoding(route.config, hit.contentType, hit.body.length)) {
    vary.push('Accept-Encoding');
    const encoding = chooseEncoding(request.headers['accept-encoding']);
    if (encoding !== null) {
      let bytes = hit.encoded?.[encoding];
      if (bytes === undefined) {
        bytes = compressSync(hit.body, encoding);
        keepEncoded(encoding, bytes);
      }
      body = bytes;
      headers['content-encoding'] = encoding;
      etag = weakTag(etag);
    }
  }
  const cors = corsOf(route.config.cors, request.headers.origin, auth.key, 200);
  if (cors !== null) {
    vary.push('Origin');
    if (cors.allowOrigin !== null) {
      headers['access-control-allow-origin'] = cors.allowOrigin;
      headers['access-control-expose-headers'] = exposeHeaders;
    }
  }
  if (vary.length > 0) headers.vary = vary.join(', ');
  headers.etag = etag;
  headers['cache-control'] = cacheControl;
  Object.assign(headers, hit.headers);
  if (matches(request.headers['if-none-match'], etag)) {
    delete headers['content-encoding'];
    headers['content-length'] = 0;
    response.writeHead(304, headers);
    response.end();
    return 304;
  }
  headers['content-type'] = hit.contentType;
  headers['content-length'] = body.length;
  response.writeHead(200, headers);
  response.end(body);
  return 200;
}
