// The Folio app over DATABASE_URL (and REDIS_URL), without logs, as the server runs it.
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { AnswerCache } from '../src/http/answer-cache.ts';
import { createRateLimitStore } from '../src/server.ts';

const config = loadConfig();
const db = openDatabase(config.databaseUrl);
const app = await buildApp({
  db,
  rateLimits: createRateLimitStore(config.redisUrl),
  search: { concurrency: config.limits.searchConcurrency, timeoutMs: config.limits.searchTimeoutMs },
  // BENCH_ANSWER_CACHE=off measures every request running its queries (a cache that keeps nothing).
  ...(process.env.BENCH_ANSWER_CACHE === 'off' ? { answerCache: new AnswerCache(0) } : {}),
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
process.on('SIGTERM', async () => {
  await app.close();
  await db.close();
  process.exit(0);
});
