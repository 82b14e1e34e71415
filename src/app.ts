// buildApp(options) → a Fastify instance with every plugin and route. Tests call it and use
// app.inject; server.ts wires it to a port and the process.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import {
  analyticsRoutes,
  type BatchEvent,
  batchChannelName,
  registerCleanupMetrics,
} from './analytics/public.ts';
import { defaultWebhookConfig, type TrustProxy, type WebhookConfig } from './config.ts';
import { announceDuePublications } from './content/announcements.ts';
import { findViewCountBySlug } from './content/article-queries.ts';
import { countProjectArticles } from './content/project-counts.ts';
import { previewRoutes } from './content/preview-routes.ts';
import { contentRoutes } from './content/routes.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import type { Db } from './db/database.ts';
import { AnswerCache, defaultViewCountLagMs, registerAnswerCache, ViewClock } from './http/answer-cache.ts';
import { registerAuth } from './http/auth.ts';
import { answerClientError, registerHostCheck } from './http/client-errors.ts';
import { registerCors } from './http/cors.ts';
import { registerCompression } from './http/compression.ts';
import { registerErrorHandling, sendError } from './http/errors.ts';
import { retryAfterSeconds } from './errors.ts';
import { registerHttpCaching } from './http/http-caching.ts';
import { installHitPath } from './http/hit-path.ts';
import { metricsRoute, registerMetrics } from './http/metrics.ts';
import { DatabaseFailures, opsRoutes } from './http/ops-routes.ts';
import { MemoryRateLimitStore, type RateLimitStore } from './http/rate-limit.ts';
import { registerStrictQueries, strictQueryPlugin } from './http/query-parameters.ts';
import { registerRouteOf } from './http/route-of.ts';
import { redactKeys, registerRequestId, registerRequestLog, requestIdFor } from './http/request-id.ts';
import type { WriteBatches } from './http/write-batches.ts';
import { keyLookup } from './projects/key-lookup.ts';
import { nextPublication } from './projects/next-publication.ts';
import { projectRoutes } from './projects/routes.ts';
import { seoRoutes } from './seo/routes.ts';
import { trackerRoutes } from './tracker/routes.ts';
import { type HostLookup, registerWebhooks } from './webhooks/public.ts';

export interface AppOptions {
  db: Db;
  rateLimits?: RateLimitStore;
  answerCache?: AnswerCache;
  /** How long a cached answer may show an outdated view count (default 2 s); tests set 0 or more. */
  viewCountLagMs?: number;
  /** How soon after a tracking write its view count and rollups are summed (default 1 s). */
  rollupDelayMs?: number;
  trustProxy?: TrustProxy;
  /** The log level, or false for no log (tests). */
  logLevel?: string | false;
  /** Where the JSON log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** URLs per sitemap document (default 50,000, the protocol's limit); tests lower it. */
  sitemapPageSize?: number;
  /** An MMDB country database instead of the bundled one (GEOIP_DATABASE). */
  geoipDatabase?: string | null;
  /** Days raw page views are kept; deleted past that by an hourly timer. None: kept forever. */
  analyticsRetentionDays?: number | null;
  /** Set `draining` to refuse new requests with 503 (the server does on SIGTERM). */
  lifecycle?: Lifecycle;
  /** How searches share a PostgreSQL database (SEARCH_CONCURRENCY, SEARCH_TIMEOUT_MS); defaults in config.ts. */
  search?: { concurrency: number; timeoutMs: number };
  /**
   * Webhook delivery settings (WEBHOOK_*; defaults in config.ts); `lookup` replaces DNS (tests),
   * `dispatch: false` serves the routes without sending anything.
   */
  webhooks?: Partial<WebhookConfig> & { lookup?: HostLookup; dispatch?: boolean };
}

export interface Lifecycle {
  draining: boolean;
}

export const bodyLimit = 64 * 1024;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = createFastify(options);
  const rateLimits: RateLimitStore = options.rateLimits ?? new MemoryRateLimitStore();
  // Once per change of state, not once per request.
  rateLimits.onStateChange?.((available, error) => {
    if (available) app.log.info('rate limit store (Redis) is back; limits are shared again');
    else
      app.log.warn(
        { err: error },
        "rate limit store (Redis) unavailable; limits are counted in this instance's memory until it is back",
      );
  });

  const lifecycle = options.lifecycle ?? { draining: false };
  const failures = new DatabaseFailures();

  registerRouteOf(app);
  registerRequestId(app);
  registerHostCheck(app);
  registerDraining(app, lifecycle);
  registerStrictQueries(app);
  const writeBatches = pageViewBatches(options.db);
  const metrics = registerMetrics(app, {
    db: options.db,
    rateLimits,
    writeBatches,
    sources: [(registry) => registerCleanupMetrics(registry, options.db)],
  });
  const requestLog = registerRequestLog(app, options.logLevel);
  registerErrorHandling(app, failures);
  const hitAuth = registerAuth(app, { keys: keyLookup(options.db), rateLimits });
  registerCors(app);
  // onSend order matters: the ETag is computed before an answer is cached with it, and the answer
  // is compressed last, its compressed bytes kept with the cached answer.
  registerHttpCaching(app);
  const viewClock = new ViewClock();
  const lookupHit = registerAnswerCache(app, options.db, {
    cache: options.answerCache ?? new AnswerCache(),
    clock: viewClock,
    viewCountLagMs: options.viewCountLagMs ?? defaultViewCountLagMs,
    nextPublication: (project, now) => nextPublication(options.db, project, now),
    viewCountOf: (projectId, slug) => findViewCountBySlug(options.db, projectId, slug),
  });
  registerCompression(app);
  installHitPath(app, {
    auth: hitAuth,
    lookup: lookupHit,
    countHit: metrics.countHit,
    draining: () => lifecycle.draining,
    trustsForwarding: options.trustProxy !== undefined && options.trustProxy !== false,
    log: requestLog,
  });

  await registerApiDocs(app);
  opsRoutes(app, { db: options.db, rateLimits, failures, writeBatches });
  metricsRoute(app, metrics.registry);

  contentRoutes(app, options.db, options.search);
  previewRoutes(app, options.db);
  projectRoutes(app, options.db, { countArticles: countProjectArticles });
  await app.register(analyticsRoutes, {
    db: options.db,
    geoipDatabase: options.geoipDatabase,
    retentionDays: options.analyticsRetentionDays,
    rollupDelayMs: options.rollupDelayMs,
    // On PostgreSQL, while notifications are heard, the roll-up's own notification brings the count.
    onViews: (projectId, slug) =>
      options.db.hearsChanges() === true
        ? viewClock.rolledUp(projectId, slug)
        : viewClock.touch(projectId, slug),
  });
  seoRoutes(app, options.db, { sitemapPageSize: options.sitemapPageSize });
  trackerRoutes(app);
  dashboardRoutes(app);
  const { lookup, dispatch, ...webhookSettings } = options.webhooks ?? {};
  registerWebhooks(app, options.db, {
    settings: { ...defaultWebhookConfig, ...webhookSettings },
    announce: announceDuePublications,
    lookup,
    dispatch,
    draining: () => lifecycle.draining,
  });

  app.addHook('onClose', async () => {
    await rateLimits.close();
  });
  return app;
}

/** The Fastify instance with the service's logger, limits, validation and framework error answers. */
function createFastify(options: AppOptions): FastifyInstance {
  return Fastify({
    logger: options.logLevel
      ? {
          level: options.logLevel,
          redact: redactedPaths,
          // Whatever a line holds (a URL, an error message), a key in it is never written.
          hooks: { streamWrite: redactKeys },
          ...(options.logStream ? { stream: options.logStream } : {}),
        }
      : false,
    // Fastify takes a hop count too; its types only lack it.
    trustProxy: (options.trustProxy ?? false) as boolean | string[],
    bodyLimit,
    genReqId: requestIdFor,
    // One line per request (registerRequestLog) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    // Parse errors and a missing Host get the contract's error body (client-errors.ts).
    clientErrorHandler: answerClientError,
    http: { requireHostHeader: false },
    // While shutting down, the draining hook below answers with the contract's body and headers.
    return503OnClosing: false,
    ajv: {
      customOptions: { allErrors: true, verbose: true, coerceTypes: 'array', removeAdditional: true },
      plugins: [strictQueryPlugin],
    },
    routerOptions: { maxParamLength: 1000 },
    // Errors raised before routing (a URL that is not validly percent-encoded) get the same body.
    frameworkErrors: (error, request, reply) =>
      sendError(
        reply.header('X-Request-Id', request.id),
        400,
        error.code === 'FST_ERR_BAD_URL'
          ? 'The URL is not validly percent-encoded'
          : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? 'A path parameter is longer than 1000 characters'
            : error.message,
      ),
  });
}

/** The OpenAPI document (at /v1/openapi.json), built from the routes' schemas, and Swagger UI at /docs. */
async function registerApiDocs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Folio API',
        version: '1.0.0',
        description:
          'Content and reading analytics for headless blogs. Every endpoint needs an API key in `X-API-Key` (or `Authorization: Bearer`). Secret keys (`folio_sk_`) may call every endpoint of their scopes: `read` (content and SEO), `analytics` (statistics, funnel, insights, CSV, tracking) and `write` (content writes, revisions, webhooks, previews); a key gets `read` and `analytics` unless created with others (`folio keys create --scope`), and an endpoint its scopes lack answers 403 naming the scope it needs (each endpoint’s description says which). Public keys (`folio_pk_`), made to be embedded in web pages, may track page views and read published content (every GET of articles, tags, project and SEO, with CORS), never drafts or statistics. Errors are `{ error, message, statusCode, details? }`; 400s list each bad field in `details.issues`, and an unknown query parameter is a 400 naming it. Integer parameters take plain decimal digits only. Every response carries `X-Request-Id` and `X-RateLimit-*` headers; GETs carry an `ETag` and honour `If-None-Match`. Rate limits are a sliding window of one minute: a request is allowed when fewer than the limit were allowed in the 60 seconds before it, so no 60 seconds ever let more than the limit through. `X-RateLimit-Reset` is the whole seconds until the oldest counted request leaves that window (and `X-RateLimit-Remaining` grows by one); on a 429 it equals `Retry-After`.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
    hideUntagged: true,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  app.get('/v1/openapi.json', { config: { access: 'none' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}

/**
 * Once draining, new requests (on connections already open: the listener is closed) are refused
 * with 503, Retry-After and the request id, and their connection is closed, so that clients move
 * to another instance; requests already in flight complete normally.
 */
function registerDraining(app: FastifyInstance, lifecycle: Lifecycle): void {
  // Callback style: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    if (!lifecycle.draining) return done();
    reply.header('Connection', 'close').header('Retry-After', String(retryAfterSeconds));
    sendError(reply, 503, 'The server is shutting down; retry on another instance or shortly');
  });
}

/** The page-view writer's batches on `db` (it publishes those of every handle on one channel). */
function pageViewBatches(db: Db): WriteBatches {
  return (listener) => {
    const onBatch = (message: unknown) => {
      const event = message as BatchEvent;
      if (event.db === db) listener(event);
    };
    subscribe(batchChannelName, onBatch);
    return () => unsubscribe(batchChannelName, onBatch);
  };
}

// The key may travel in these headers (or the `key` query parameter): never log them.
const redactedPaths = ['req.headers["x-api-key"]', 'req.headers.authorization'];
