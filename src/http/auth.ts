// Authentication and rate limiting of every request, before anything else runs: the key (header
// or bearer token) names the project; requests without a valid key share a small per-IP budget and
// get 429 instead of 401 past it, so that guessing keys is throttled.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyTable, KeyScope, Project } from '../db/schema.ts';
import { ForbiddenError, HttpError, UnauthorizedError } from '../errors.ts';
import type { Decision, RateLimitStore } from './rate-limit.ts';
import { giveRoutesTheirScopes } from './route-scopes.ts';
import { routeOf } from './route-of.ts';

/**
 * `secret`: secret keys only; `public`: either kind (tracking, and the content and SEO reads, where
 * a public key sees only published articles: see `publishedOnly`); `none`: no key and no rate limit.
 */
export type RouteAccess = 'secret' | 'public' | 'none';

export interface AuthContext {
  key: Pick<ApiKeyTable, 'id' | 'kind' | 'rate_limit' | 'allowed_origins'> & {
    /** A secret key's scopes; a public key's are ignored. */
    scopes: readonly KeyScope[];
    /** A key made for tests: headless browsers count, and its views are marked. */
    test: boolean;
  };
  project: Project;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /**
     * The scope a secret key needs for the route (`read`: content and SEO; `analytics`: statistics
     * and tracking; `write`: content writes, revisions, webhooks, previews); without one, the one
     * its URL and method give (route-scopes.ts). Public keys pass: `access` decides what they may do.
     */
    scope?: KeyScope;
    /** Browsers' sendBeacon cannot set headers: such routes also take a public key as `?key=`. */
    keyInQuery?: boolean;
    /** `false`: a keyless route that no client spends its anonymous budget on (a static asset). */
    rateLimited?: boolean;
    /**
     * The address a secret key's request is counted against instead of the caller's, read from the
     * parsed body (a server tracking on a visitor's behalf forwards the visitor's): such a request
     * is counted in preValidation, once the body is there, rather than on arrival. Public keys, and
     * every other route, are counted on arrival per key and caller address.
     */
    rateLimitAddress?: (request: FastifyRequest) => string | undefined;
  }
  interface FastifyRequest {
    auth: AuthContext;
  }
}

export const authenticatedLimit = 100;
export const anonymousLimit = 20;
const windowMs = 60_000;
const touchEveryMs = 60_000;
const secretKeyPrefix = 'folio_sk_';
/**
 * The API reference (Swagger UI, which app.ts serves at /docs, with its assets and document): a
 * browser following the link the server prints cannot send a key, so these routes take none.
 */
const publicPrefixes = ['/docs'];

/** The keys, as projects/ keeps them (key-lookup.ts); app.ts passes them in. */
export interface KeyLookup {
  /**
   * The unrevoked key presented and its project; undefined for any other text. Without a promise
   * when the answer is known at once (the hook then needs none).
   */
  find(presented: string): AuthContext | undefined | Promise<AuthContext | undefined>;
  /** The active key presented as `find` keeps it now, or null when it keeps none (no query). */
  kept(presented: string): AuthContext | null;
  /** Records that the key was used at `at` (an ISO timestamp), with others, a few seconds later. */
  touch(id: string, at: string): Promise<void>;
  /** Records the uses touched so far now (the app closing). */
  flush(): Promise<void>;
}

export interface AuthOptions {
  keys: KeyLookup;
  rateLimits: RateLimitStore;
}

/**
 * What the hit path (hit-path.ts) asks of authentication, so that a cached answer sent without
 * Fastify's hooks is admitted and counted as they would.
 */
export interface HitAuth {
  /** The active key the headers present, with its project, as kept in memory; null otherwise (absent, invalid, or to be looked up). */
  known(headers: IncomingHttpHeaders): AuthContext | null;
  /** Whether a route of this config admits the key without an error. */
  admits(found: AuthContext, config: FastifyContextConfig): boolean;
  /** The key was admitted and its request allowed: its use is recorded, as the hook records it. */
  admitted(found: AuthContext, requestId: string): void;
  /** Counts a request of `found` from `address`: the decision, or null when the store failed (the hooks then count it and warn). */
  count(found: AuthContext, address: string): Decision | Promise<Decision | null> | null;
  /** A request counted by the hit path is answered by the hooks after all: they take its decision instead of counting it again. */
  handOver(request: IncomingMessage, found: AuthContext, address: string, decision: Decision): void;
}

/** The decisions of requests the hit path counted before handing them to the hooks, by bucket. */
const countedBefore = new WeakMap<IncomingMessage, { bucket: string; decision: Decision }>();

const keyBucket = (found: AuthContext, address: string) => `key:${found.key.id}:${address}`;

/** The requests a minute a key may make: its own limit, else the default. */
export const keyLimit = (key: Pick<AuthContext['key'], 'rate_limit'>) => key.rate_limit ?? authenticatedLimit;

export function registerAuth(app: FastifyInstance, { keys, rateLimits }: AuthOptions): HitAuth {
  const lastTouched = new Map<string, number>();
  app.decorateRequest('auth', null as unknown as AuthContext);
  // The uses gathered are recorded before the database closes: before the onClose hooks, one of
  // which closes it (server.ts), whatever their order. The server has drained its connections by
  // then; a use touched later still (a request cut at the deadline) goes unrecorded. A failure is
  // reported by each use's touch below, whose promise this is.
  app.addHook('preClose', async () => {
    await keys.flush().catch(() => {});
  });

  giveDocumentsNoAccess(app);
  giveRoutesTheirScopes(app);
  countAtForwardedAddress(app, rateLimits);

  // Callback style, and without a promise when the key is known and the limits are counted in
  // memory (measured with wrk on the cached list: the async hook's promises were ~5% of a hit).
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    let outcome: void | Promise<void>;
    try {
      outcome = authenticate(request, reply);
    } catch (error) {
      return done(error as Error);
    }
    if (outcome instanceof Promise) outcome.then(() => done(), done);
    else done();
  });

  function authenticate(request: FastifyRequest, reply: FastifyReply): void | Promise<void> {
    const config = routeOf(request).config;
    const access: RouteAccess = config.access ?? 'secret';
    if (request.method === 'OPTIONS') return;
    if (access === 'none') {
      // The API's own public documents still count against the anonymous budget; the docs page
      // and the health check (polled by load balancers) do not.
      if (request.url.startsWith('/v1/') && config.rateLimited !== false)
        return spend(rateLimits, reply, `anon:${request.ip}`, anonymousLimit);
      return;
    }
    if (config.keyInQuery === true && secretKeyInQuery(request)) {
      // Whether or not the key is valid (no answer tells): a URL is kept in browser history and
      // proxy logs, so a secret key is only ever taken from a header.
      return then(spend(rateLimits, reply, `anon:${request.ip}`, anonymousLimit), () => {
        throw new UnauthorizedError(
          'Secret keys are not accepted in the key query parameter: send the key in the X-API-Key header (only public keys may travel in the URL)',
        );
      });
    }
    const presented = presentedKey(request, config.keyInQuery === true);
    const found = presented === null ? undefined : keys.find(presented);
    return then(found, (found) => {
      if (found === undefined) {
        return then(spend(rateLimits, reply, `anon:${request.ip}`, anonymousLimit), () => {
          throw new UnauthorizedError(presented === null ? 'Missing API key' : 'Invalid API key');
        });
      }
      // Counted once the body names the address (countAtForwardedAddress).
      if (config.rateLimitAddress !== undefined && found.key.kind === 'secret') {
        return admit(request, found, access, config.scope);
      }
      return then(spend(rateLimits, reply, keyBucket(found, request.ip), keyLimit(found.key)), () =>
        admit(request, found, access, config.scope),
      );
    });
  }

  function admit(request: FastifyRequest, found: AuthContext, access: RouteAccess, scope?: KeyScope): void {
    const refusal = refusalOf(found, access, scope);
    if (refusal !== null) throw refusal;
    request.auth = found;
    touch(found, (error) => request.log.warn({ err: error }, 'could not record key use'));
  }

  function touch(found: AuthContext, failed: (error: unknown) => void): void {
    const now = Date.now();
    if (now - (lastTouched.get(found.key.id) ?? 0) > touchEveryMs) {
      lastTouched.set(found.key.id, now);
      keys.touch(found.key.id, new Date(now).toISOString()).catch(failed);
    }
  }

  return hitAuth(keys, rateLimits, (found, requestId) =>
    touch(found, (error) => app.log.warn({ reqId: requestId, err: error }, 'could not record key use')),
  );
}

/** The hit path's view of authentication (HitAuth); `touch` records a key's use as the hook does. */
function hitAuth(
  keys: KeyLookup,
  rateLimits: RateLimitStore,
  touch: (found: AuthContext, requestId: string) => void,
): HitAuth {
  return {
    known(headers) {
      const presented = presentedInHeaders(headers);
      return presented === null ? null : keys.kept(presented);
    },
    admits(found, config) {
      if (config.keyInQuery === true || config.rateLimitAddress !== undefined) return false;
      return refusalOf(found, config.access ?? 'secret', config.scope) === null;
    },
    admitted: touch,
    count(found, address) {
      try {
        const decision = rateLimits.consume(keyBucket(found, address), keyLimit(found.key), windowMs);
        return decision instanceof Promise ? decision.catch(() => null) : decision;
      } catch {
        return null;
      }
    },
    handOver(request, found, address, decision) {
      countedBefore.set(request, { bucket: keyBucket(found, address), decision });
    },
  };
}

/** The error a route of this access and scope answers the key with, or null when it admits it. */
function refusalOf(found: AuthContext, access: RouteAccess, scope?: KeyScope): HttpError | null {
  if (access === 'secret' && found.key.kind !== 'secret') {
    return new ForbiddenError(
      'This endpoint needs a secret key; public keys may only read published content and send tracking requests',
    );
  }
  if (scope !== undefined && found.key.kind === 'secret' && !found.key.scopes.includes(scope)) {
    return new ForbiddenError(
      `This endpoint needs the '${scope}' scope; this key has ${scopeList(found.key.scopes)} (folio keys create --scope ${scope})`,
      { scope },
    );
  }
  return null;
}

function scopeList(scopes: readonly KeyScope[]): string {
  return scopes.length === 0 ? 'no scope' : scopes.map((scope) => `'${scope}'`).join(', ');
}

/** `next(value)`, at once when `value` is not a promise, else once it resolves. */
function then<T, R>(value: T | Promise<T>, next: (value: T) => R): R | Promise<Awaited<R>> {
  return value instanceof Promise ? (value.then(next) as Promise<Awaited<R>>) : next(value);
}

/**
 * The `key` query parameter of any route (this hook runs before routing's validation, so the
 * parsed query is untyped), or undefined when absent or not a single string.
 */
function keyInQuery(request: FastifyRequest): string | undefined {
  const query: unknown = request.query;
  if (typeof query !== 'object' || query === null || !('key' in query)) return undefined;
  return typeof query.key === 'string' ? query.key : undefined;
}

function secretKeyInQuery(request: FastifyRequest): boolean {
  return keyInQuery(request)?.startsWith(secretKeyPrefix) === true;
}

function presentedKey(request: FastifyRequest, takesQueryKey: boolean): string | null {
  const presented = presentedInHeaders(request.headers);
  if (presented !== null) return presented;
  if (takesQueryKey) {
    const key = keyInQuery(request);
    if (key !== undefined && key !== '') return key;
  }
  return null;
}

function presentedInHeaders(headers: IncomingHttpHeaders): string | null {
  const header = headers['x-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  return null;
}

function spend(
  store: RateLimitStore,
  reply: FastifyReply,
  bucket: string,
  limit: number,
): void | Promise<void> {
  const counted = countedBefore.get(reply.request.raw);
  if (counted !== undefined && counted.bucket === bucket) {
    countedBefore.delete(reply.request.raw);
    return applyDecision(reply, counted.decision, limit);
  }
  let decision: Decision | Promise<Decision>;
  try {
    decision = store.consume(bucket, limit, windowMs);
  } catch (error) {
    return storeFailed(reply, error);
  }
  if (decision instanceof Promise)
    return decision.then(
      (decided) => applyDecision(reply, decided, limit),
      (error: unknown) => storeFailed(reply, error),
    );
  applyDecision(reply, decision, limit);
}

// Only a store used without its fallback (ResilientRateLimitStore) can fail.
function storeFailed(reply: FastifyReply, error: unknown): void {
  reply.log.warn({ err: error }, 'rate limit store unavailable; request not counted');
}

/** The X-RateLimit-* headers of a decision on a budget of `limit`. */
export function rateLimitHeaders(decision: Decision, limit: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(resetSecondsOf(decision)),
  };
}

const resetSecondsOf = (decision: Decision) => Math.max(1, Math.ceil(decision.resetMs / 1000));

function applyDecision(reply: FastifyReply, decision: Decision, limit: number): void {
  const resetSeconds = resetSecondsOf(decision);
  reply.headers(rateLimitHeaders(decision, limit));
  if (!decision.allowed) {
    throw new HttpError(
      429,
      'Too Many Requests',
      `Rate limit of ${limit} requests per minute exceeded; retry in ${resetSeconds} s`,
      undefined,
      { 'Retry-After': String(resetSeconds) },
    );
  }
}

/**
 * Whether the request's key sees only published articles: public keys do (drafts, scheduled and
 * archived articles do not exist for them).
 */
export function publishedOnly(request: FastifyRequest): boolean {
  return request.auth.key.kind === 'public';
}

/** Plugins such as @fastify/swagger-ui cannot declare `access`: their routes get 'none' here. */
function giveDocumentsNoAccess(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.access !== undefined) return;
    if (publicPrefixes.some((prefix) => route.url === prefix || route.url.startsWith(`${prefix}/`))) {
      route.config = { ...route.config, access: 'none' };
    }
  });
}

/**
 * A route with `rateLimitAddress` counts a secret key's request once its body is read, per key and
 * the address the body names (a visitor tracked on their behalf), else the caller's.
 */
function countAtForwardedAddress(app: FastifyInstance, rateLimits: RateLimitStore): void {
  app.addHook('onRoute', (route) => {
    const address = route.config?.rateLimitAddress;
    if (address === undefined) return;
    const existing = route.preValidation ?? [];
    route.preValidation = [
      ...(Array.isArray(existing) ? existing : [existing]),
      (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
        const { key } = request.auth ?? {};
        if (key?.kind !== 'secret') return done();
        const bucket = `key:${key.id}:${address(request) ?? request.ip}`;
        const outcome = spend(rateLimits, reply, bucket, keyLimit(key));
        if (outcome instanceof Promise) outcome.then(() => done(), done);
        else done();
      },
    ];
  });
}
