// Process concerns only: configuration, logger, database and rate-limit store, listening, signals
// and graceful shutdown. Everything else is built by buildApp.
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { type Db, openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrations/index.ts';
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  RedisRateLimitStore,
  ResilientRateLimitStore,
} from './http/rate-limit.ts';
import { inspectDatabase, welcome } from './projects/demo.ts';

export function createRateLimitStore(redisUrl: string | null): RateLimitStore {
  if (redisUrl === null) return new MemoryRateLimitStore();
  // Without an offline queue a lost Redis fails fast, and a frozen one answers within the command
  // timeout; either way the limits go on in this instance's memory until Redis is back.
  const redis = new Redis(redisUrl, {
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
  const db = openDatabase(config.databaseUrl);
  const rateLimits = createRateLimitStore(config.redisUrl);
  // A start that fails (database refused, port in use, demo import) must end the process at once:
  // each step closes what is open, so that no pool, connection or socket keeps the process alive.
  const app = await buildAppOrClose(db, rateLimits, config);
  app.addHook('onClose', async () => db.close());

  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    const address = await app.listen({ port: config.port, host: config.host });
    const base = address.replace('://127.0.0.1', '://localhost');
    await welcome(db, base, app.log, database, options);
  } catch (error) {
    // Closes the rate-limit store and, through the hook above, the database.
    await app.close();
    throw error;
  }
}

async function buildAppOrClose(db: Db, rateLimits: RateLimitStore, config: Config): Promise<FastifyInstance> {
  try {
    await migrateToLatest(db);
    return await buildApp({
      db,
      rateLimits,
      trustProxy: config.trustProxy,
      logLevel: config.logLevel,
      analyticsRetentionDays: config.analyticsRetentionDays,
    });
  } catch (error) {
    await rateLimits.close();
    await db.close();
    throw error;
  }
}
