// The hit path (src/http/hit-path.ts): cached GETs answered over HTTP before Fastify's hooks, and
// admitted, counted, logged and measured as the hooks would. test/http/answer-cache.test.ts compares
// its answers with the hooks' for every key kind, origin, encoding and If-None-Match.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AppOptions, buildApp } from '../../src/app.ts';
import { MemoryRateLimitStore, type RateLimitStore } from '../../src/http/rate-limit.ts';
import { createRateLimitStore } from '../../src/server.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  httpGet,
  importArticles,
  listening,
  redisUrl,
} from '../helpers.ts';

interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An app listening on a port of its own, with a count of the requests that reached its hooks. */
async function servedApp(options: AppOptions) {
  const app = await buildApp(options);
  const reached = { count: 0 };
  app.addHook('onResponse', (_request, _reply, done) => {
    reached.count++;
    done();
  });
  const base = await listening(app);
  const get = async (path: string, headers: Record<string, string>): Promise<Answer> => {
    const { statusCode, headers: sent, rawPayload } = await httpGet(base, path, headers);
    return { statusCode, headers: sent, body: rawPayload.toString('utf8') };
  };
  return { app, reached, get };
}

/** `count` answers of `get`, one after the other. */
async function inTurn(count: number, get: () => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await get());
  return answers;
}

const statusAndRemaining = (answer: Answer) => [answer.statusCode, answer.headers['x-ratelimit-remaining']];

/** A project of two articles. */
async function withArticles(db: AppOptions['db']) {
  const project = await createTestProject(db);
  await importArticles(db, project.project, [
    articleInput({ slug: 'first' }),
    articleInput({ slug: 'second' }),
  ]);
  return project;
}

describeEachDialect('the hit path', (ctx) => {
  test("counts each hit once against the key: the request past its limit is the hooks' 429, with Retry-After", async () => {
    // Each request is counted once: the one the hit path counted and handed to the hooks too.
    const store = new MemoryRateLimitStore();
    const counted: string[] = [];
    const rateLimits: RateLimitStore = {
      consume: (bucket, limit, windowMs) => {
        counted.push(bucket);
        return store.consume(bucket, limit, windowMs);
      },
      close: () => store.close(),
    };
    const { app, reached, get } = await servedApp({ db: ctx.db, rateLimits });
    try {
      const { project } = await withArticles(ctx.db);
      const limited = await createTestKey(ctx.db, project, { rateLimit: 4 });
      await ctx.db.changesSeen();
      const answers = await inTurn(5, () => get('/v1/articles?limit=5', limited.headers));
      assert.deepEqual(answers.map(statusAndRemaining), [
        [200, '3'],
        [200, '2'],
        [200, '1'],
        [200, '0'],
        [429, '0'],
      ]);
      // The first built the answer and the last was refused by the hooks; the hit path sent the rest.
      assert.equal(reached.count, 2);
      const refused = answers[4];
      assert.equal(JSON.parse(refused.body).error, 'Too Many Requests');
      assert.match(String(refused.headers['retry-after']), /^\d+$/);
      assert.equal(refused.headers['x-ratelimit-limit'], '4');
      assert.equal(counted.filter((bucket) => bucket.startsWith(`key:${limited.keyId}:`)).length, 5);
    } finally {
      await app.close();
    }
  });

  test("a key without the route's scope, or from an origin it does not allow, gets the hooks' 403 for a cached answer", async () => {
    const { app, reached, get } = await servedApp({ db: ctx.db });
    try {
      const { project } = await withArticles(ctx.db);
      const reader = await createTestKey(ctx.db, project, { scopes: ['read'] });
      const counter = await createTestKey(ctx.db, project, { scopes: ['analytics'] });
      // PostgreSQL: the notifications of the set-up's writes are heard before a key is kept, so
      // that none arrives between two requests and drops it (the second one is then no hit).
      await ctx.db.changesSeen();
      assert.equal((await get('/v1/articles/first', reader.headers)).statusCode, 200);
      assert.equal((await get('/v1/articles/first', reader.headers)).statusCode, 200);
      assert.equal(reached.count, 1);
      const unscoped = await get('/v1/articles/first', counter.headers);
      assert.equal(unscoped.statusCode, 403);
      assert.match(JSON.parse(unscoped.body).message, /'read' scope/);
      const listed = await createTestKey(ctx.db, project, {
        kind: 'public',
        origins: ['https://blog.example.com'],
      });
      const allowed = { ...listed.headers, origin: 'https://blog.example.com' };
      await ctx.db.changesSeen();
      assert.equal((await get('/v1/articles/second', allowed)).statusCode, 200);
      const hit = await get('/v1/articles/second', allowed);
      assert.equal(hit.headers['access-control-allow-origin'], 'https://blog.example.com');
      const before = reached.count;
      const other = await get('/v1/articles/second', {
        ...listed.headers,
        origin: 'https://elsewhere.example',
      });
      assert.equal(other.statusCode, 403);
      assert.equal((await get('/v1/articles/second', listed.headers)).statusCode, 403);
      assert.equal(reached.count, before + 2);
    } finally {
      await app.close();
    }
  });

  test('logs each hit as the request log does, with the id it answered with', async () => {
    const lines: string[] = [];
    const { app, reached, get } = await servedApp({
      db: ctx.db,
      logLevel: 'info',
      logStream: { write: (line: string) => void lines.push(line) },
    });
    try {
      const { project } = await withArticles(ctx.db);
      const key = await createTestKey(ctx.db, project);
      await ctx.db.changesSeen();
      await get('/v1/articles?limit=1', key.headers);
      const reachedBefore = reached.count;
      const plain = await get('/v1/articles?limit=1', { ...key.headers, 'x-request-id': 'front-end.43' });
      assert.equal(plain.statusCode, 200);
      assert.equal(reached.count, reachedBefore);
      assert.equal(plain.headers['x-request-id'], 'front-end.43');
      const entry = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.reqId === 'front-end.43');
      assert.ok(entry, lines.join(''));
      assert.equal(entry.msg, 'request completed');
      assert.deepEqual(
        { method: entry.method, url: entry.url, statusCode: entry.statusCode, level: entry.level },
        { method: 'GET', url: '/v1/articles?limit=1', statusCode: 200, level: 30 },
      );
      assert.equal(typeof entry.ms, 'number');
      assert.ok(!lines.join('').includes(key.key.slice('folio_sk_'.length)));
    } finally {
      await app.close();
    }
  });

  test('behind a trusted proxy, a request with X-Forwarded-For is counted at the forwarded address by the hooks', async () => {
    const { app, reached, get } = await servedApp({ db: ctx.db, trustProxy: true });
    try {
      const { project } = await withArticles(ctx.db);
      const key = await createTestKey(ctx.db, project, { rateLimit: 10 });
      await ctx.db.changesSeen();
      await get('/v1/articles?limit=2', key.headers);
      const direct = await get('/v1/articles?limit=2', key.headers);
      assert.equal(direct.headers['x-ratelimit-remaining'], '8');
      assert.equal(reached.count, 1);
      const forwarded = await get('/v1/articles?limit=2', {
        ...key.headers,
        'x-forwarded-for': '203.0.113.9',
      });
      assert.equal(forwarded.statusCode, 200);
      assert.equal(forwarded.headers['x-ratelimit-remaining'], '9');
      assert.equal(reached.count, 2);
    } finally {
      await app.close();
    }
  });

  test(
    'with limits counted in Redis, hits are still sent by the hit path, each counted once',
    { skip: redisUrl === null ? 'TEST_REDIS_URL is not set' : false },
    async () => {
      const rateLimits = createRateLimitStore(redisUrl);
      const { app, reached, get } = await servedApp({ db: ctx.db, rateLimits });
      try {
        const { project } = await withArticles(ctx.db);
        const key = await createTestKey(ctx.db, project, { rateLimit: 3 });
        await ctx.db.changesSeen();
        const answers = await inTurn(4, () => get('/v1/articles/first', key.headers));
        assert.deepEqual(answers.map(statusAndRemaining), [
          [200, '2'],
          [200, '1'],
          [200, '0'],
          [429, '0'],
        ]);
        assert.equal(reached.count, 2);
      } finally {
        await app.close();
      }
    },
  );
});
