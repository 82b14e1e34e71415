// Process concerns only: configuration, logger, database and rate-limit store, listening, signals
// and graceful shutdown. Everything else is built by buildApp.
import type { FastifyInstance } from 'fastify';
import { createRequire } from 'node:module';
import { Server as NetServer } from 'node:net';
import type { Redis } from 'ioredis';
import { recordRetentionDays } from './analytics/public.ts';
import { buildApp, type Lifecycle } from './app.ts';
import type { Config, TrustProxy } from './config.ts';
import { type Db, openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrations/index.ts';
import { postgresSettingWarnings } from './db/postgres-settings.ts';
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
  ResilientRateLimitStore,
} from './http/rate-limit.ts';
import { inspectDatabase, welcome } from './demo.ts';
import { capConnectionsPerAddress, trustsPeer } from './http/connection-cap.ts';

// net.Server's own close: stops listening without node:http's closing of idle connections.
const netServerClose = NetServer.prototype.close;
/**
 * How long idle keep-alive connections stay open after SIGTERM: a request a client has already
 * sent on one (or sends within its round trip) then gets a 503 with Connection: close, which it
 * can retry elsewhere, instead of a reset it cannot tell from a crash. Past that, closing an idle
 * connection races with the client exactly as the keep-alive timeout always does.
 */
const keepAliveLingerMs = 1_000;

export function createRateLimitStore(redisUrl: string | null): RateLimitStore {
  if (redisUrl === null) return new MemoryRateLimitStore();
  // Loaded only when configured: ioredis is 2 MB of heap that a server without Redis never uses.
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as { Redis: typeof Redis };
  // Without an offline queue a lost Redis fails fast, and a frozen one answers within the command
  // timeout; either way the limits go on in this instance's memory until Redis is back.
  const redis = new RedisClient(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 100,
  });
  redis.on('error', () => {});
  return new ResilientRateLimitStore(new RedisRateLimitStore(redis));
}

export async function startServer(config: Config, options: { demo: boolean }): Promise<void> {
  const database = inspectDatabase(config.databaseUrl);
  const { limits } = config;
  const db = openDatabase(config.databaseUrl, {
    connectTimeoutMs: limits.databaseConnectTimeoutMs,
    queryTimeoutMs: limits.databaseQueryTimeoutMs,
    poolSize: config.sizing.databasePoolSize,
    workerIdleMs: config.sizing.workerIdleMs,
    poolMode: config.sizing.databasePoolMode,
    listenUrl: config.sizing.databaseListenUrl ?? undefined,
  });
  const rateLimits = createRateLimitStore(config.redisUrl);
  const lifecycle: Lifecycle = { draining: false };
  // A start that fails (database refused, port in use, demo import) must end the process at once:
  // each step closes what is open, so that no pool, connection or socket keeps the process alive.
  const app = await buildAppOrClose(db, rateLimits, config, lifecycle);
  // The database closes after the app, not in an onClose hook: Fastify runs those in the reverse
  // order of their registration, so this one would run before the app's own (the page-view
  // writer's last roll-up, the webhook dispatcher's stop), which still need it.
  const close = async () => {
    try {
      await app.close();
    } finally {
      await db.close();
    }
  };
  applyConnectionLimits(app, limits, config.trustProxy);
  closeConnectionsWhileDraining(app, lifecycle);

  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    // From now on no connection is accepted, requests arriving on open ones get 503 and every
    // answer closes its connection; requests in flight (uploads and the page-view writes they wait
    // for included) get SHUTDOWN_TIMEOUT_MS, then are cut, so that a slow upload cannot hold the
    // process. It exits as soon as no connection is left.
    lifecycle.draining = true;
    const linger = setTimeout(
      () => app.server.closeIdleConnections(),
      Math.min(keepAliveLingerMs, limits.shutdownTimeoutMs),
    );
    linger.unref();
    const cut = setTimeout(() => {
      app.log.warn(
        'connections still open at the shutdown deadline (requests in flight or idle keep-alive): closing them',
      );
      app.server.closeAllConnections();
    }, limits.shutdownTimeoutMs);
    const abandon = setTimeout(() => process.exit(1), limits.shutdownTimeoutMs + 5_000);
    cut.unref();
    abandon.unref();
    try {
      await drainConnections(app);
      await close();
    } finally {
      process.exit(0);
    }
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    const address = await app.listen({ port: config.port, host: config.host });
    const base = address.replace('://127.0.0.1', '://localhost');
    await welcome(db, base, app.log, database, options);
    if (db.dialect === 'postgres') {
      for (const warning of await postgresSettingWarnings(db.kysely)) app.log.warn(warning);
    }
  } catch (error) {
    // Closes the rate-limit store and the database.
    await close();
    throw error;
  }
}

/**
 * Slow clients cannot hold sockets forever: the whole request (body included) must arrive within
 * REQUEST_TIMEOUT_MS (else 408 and the socket is closed), its headers within HEADERS_TIMEOUT_MS,
 * an idle socket is closed after IDLE_TIMEOUT_MS, and past MAX_CONNECTIONS new connections are
 * dropped at once, so that the process never runs out of file descriptors. Nor can one client
 * hold them all: past MAX_CONNECTIONS_PER_IP a peer's new connections are dropped at once.
 */
export function applyConnectionLimits(
  app: FastifyInstance,
  limits: Config['limits'],
  trustProxy: TrustProxy,
): void {
  const server = app.server;
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = limits.headersTimeoutMs;
  server.timeout = limits.idleTimeoutMs;
  server.maxConnections = limits.maxConnections;
  // The timeouts are checked on this period (Node's default is 30 s, longer than they are).
  (server as unknown as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = Math.min(
    1000,
    limits.headersTimeoutMs,
  );
  capConnectionsPerAddress(server, limits.maxConnectionsPerIp, {
    exempt: trustsPeer(trustProxy),
    // Without the address: client IPs are never logged.
    onRefused: () =>
      app.log.warn(
        { open: limits.maxConnectionsPerIp },
        'an address reached MAX_CONNECTIONS_PER_IP: its further connections are dropped',
      ),
  });
}

/**
 * Once draining, every answer closes its connection (the in-flight ones' too), so that clients
 * move to another instance and the connections end.
 */
function closeConnectionsWhileDraining(app: FastifyInstance, lifecycle: Lifecycle): void {
  // Callback style: no promise per request on the hot path.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (lifecycle.draining) reply.header('Connection', 'close');
    done(null, payload);
  });
}

/**
 * Stops accepting connections and resolves once every open one has closed. Unlike
 * `server.close()` of node:http, it does not close idle keep-alive connections at once (see
 * keepAliveLingerMs); requests in flight, uploads included, complete. The shutdown deadline
 * closes whatever is still open.
 */
function drainConnections(app: FastifyInstance): Promise<void> {
  return new Promise((resolve) => {
    netServerClose.call(app.server, () => resolve());
  });
}

async function buildAppOrClose(
  db: Db,
  rateLimits: RateLimitStore,
  config: Config,
  lifecycle: Lifecycle,
): Promise<FastifyInstance> {
  try {
    // Migrations run without the request timeouts: building an index may take minutes.
    const migrations = openDatabase(config.databaseUrl, {
      poolSize: 1,
      poolMode: config.sizing.databasePoolMode,
    });
    try {
      await migrateToLatest(migrations);
      // `folio analytics rebuild` follows the retention the servers run with.
      await recordRetentionDays(migrations.kysely, config.analyticsRetentionDays, new Date());
    } finally {
      await migrations.close();
    }
    return await buildApp({
      db,
      rateLimits,
      trustProxy: config.trustProxy,
      logLevel: config.logLevel,
      analyticsRetentionDays: config.analyticsRetentionDays,
      geoipDatabase: config.geoipDatabase,
      lifecycle,
      search: { concurrency: config.limits.searchConcurrency, timeoutMs: config.limits.searchTimeoutMs },
      webhooks: config.webhooks,
    });
  } catch (error) {
    await rateLimits.close();
    await db.close();
    throw error;
  }
}
