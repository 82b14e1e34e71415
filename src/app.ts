// buildApp(options) → a Fastify instance with every plugin and route. Tests call it and use
// app.inject; server.ts wires it to a port and the process.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { analyticsRoutes } from './analytics/routes.ts';
import type { TrustProxy } from './config.ts';
import { contentRoutes } from './content/routes.ts';
import type { Db } from './db/database.ts';
import { AnswerCache, defaultViewCountLagMs, registerAnswerCache, ViewClock } from './http/answer-cache.ts';
import { registerAuth } from './http/auth.ts';
import { registerCors } from './http/cors.ts';
import { registerCompression } from './http/compression.ts';
import { registerErrorHandling, sendError } from './http/errors.ts';
import { registerHttpCaching } from './http/http-caching.ts';
import { MemoryRateLimitStore, type RateLimitStore } from './http/rate-limit.ts';
import { registerStrictQueries, strictQueryPlugin } from './http/query-parameters.ts';
import { registerRequestId, registerRequestLog, requestIdFor } from './http/request-id.ts';
import { projectRoutes } from './projects/routes.ts';
import { seoRoutes } from './seo/routes.ts';
import { trackerRoutes } from './tracker/routes.ts';

export interface AppOptions {
  db: Db;
  rateLimits?: RateLimitStore;
  answerCache?: AnswerCache;
  /** How long a cached answer may show an outdated view count (default 2 s); tests set 0 or more. */
  viewCountLagMs?: number;
  trustProxy?: TrustProxy;
  /** The log level, or false for no log (tests). */
  logLevel?: string | false;
  /** URLs per sitemap document (default 50,000, the protocol's limit); tests lower it. */
  sitemapPageSize?: number;
  /** An MMDB country database instead of the bundled one (GEOIP_DATABASE). */
  geoipDatabase?: string | null;
}

export const bodyLimit = 64 * 1024;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logLevel ? { level: options.logLevel, redact: redactedPaths } : false,
    // Fastify takes a hop count too; its types only lack it.
    trustProxy: (options.trustProxy ?? false) as boolean | string[],
    bodyLimit,
    genReqId: requestIdFor,
    // One line per request (registerRequestLog) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
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
  const rateLimits = options.rateLimits ?? new MemoryRateLimitStore();

  registerRequestId(app);
  registerStrictQueries(app);
  if (options.logLevel) registerRequestLog(app);
  registerErrorHandling(app);
  registerAuth(app, { db: options.db, rateLimits });
  registerCors(app);
  // onSend order matters: the ETag is computed before an answer is cached with it, and the answer
  // is compressed last, its compressed bytes kept with the cached answer.
  registerHttpCaching(app);
  const viewClock = new ViewClock();
  registerAnswerCache(app, options.db, {
    cache: options.answerCache ?? new AnswerCache(),
    clock: viewClock,
    viewCountLagMs: options.viewCountLagMs ?? defaultViewCountLagMs,
  });
  registerCompression(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Folio API',
        version: '1.0.0',
        description:
          'Content and reading analytics for headless blogs. Every endpoint needs an API key in `X-API-Key` (or `Authorization: Bearer`). Secret keys (`folio_sk_`) may call every endpoint; public keys (`folio_pk_`), made to be embedded in web pages, may track page views and read published content (every GET of articles, tags, project and SEO, with CORS), never drafts or statistics. Errors are `{ error, message, statusCode, details? }`; 400s list each bad field in `details.issues`, and an unknown query parameter is a 400 naming it. Integer parameters take plain decimal digits only. Every response carries `X-Request-Id` and `X-RateLimit-*` headers; GETs carry an `ETag` and honour `If-None-Match`.',
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
  app.get('/health', { config: { access: 'none' }, schema: { hide: true } }, async () => {
    await options.db.kysely.selectNoFrom((eb) => eb.lit(1).as('ok')).execute();
    return { status: 'ok' };
  });

  contentRoutes(app, options.db);
  projectRoutes(app, options.db);
  await app.register(analyticsRoutes, {
    db: options.db,
    geoipDatabase: options.geoipDatabase,
    onViews: (projectId, slug) => viewClock.touch(projectId, slug),
  });
  seoRoutes(app, options.db, { sitemapPageSize: options.sitemapPageSize });
  trackerRoutes(app);

  app.addHook('onClose', async () => {
    await rateLimits.close();
  });
  return app;
}

// The key may travel in these headers (or the `key` query parameter): never log them.
const redactedPaths = ['req.headers["x-api-key"]', 'req.headers.authorization'];
