import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { type AppOptions, buildApp } from '../../src/app.ts';
import type { Db } from '../../src/db/database.ts';
import { MemoryRateLimitStore, RedisRateLimitStore } from '../../src/http/rate-limit.ts';
import { revokeApiKey } from '../../src/projects/service.ts';
import { createRateLimitStore } from '../../src/server.ts';
import { createTestKey, createTestProject, describeEachDialect, redisUrl } from '../helpers.ts';

interface ProbedApp {
  app: FastifyInstance;
  /** How many times the probe route's handler ran. */
  runs: () => number;
}

/** A new app (so a new rate-limit store) with a probe route that counts how often it executes. */
async function probedApp(db: Db, options: Omit<AppOptions, 'db'> = {}): Promise<ProbedApp> {
  const app = await buildApp({ db, ...options });
  let runs = 0;
  app.get('/v1/probe', async () => {
    runs++;
    return { data: { ok: true } };
  });
  return { app, runs: () => runs };
}

function get(
  app: FastifyInstance,
  url: string,
  headers: Record<string, string> = {},
  remoteAddress = '127.0.0.1',
): Promise<LightMyRequestResponse> {
  const options: InjectOptions = { method: 'GET', url, headers, remoteAddress };
  return app.inject(options);
}

function rateHeaders(response: LightMyRequestResponse) {
  return {
    limit: response.headers['x-ratelimit-limit'],
    remaining: response.headers['x-ratelimit-remaining'],
  };
}

/** X-RateLimit-Reset (and Retry-After) are whole seconds from 1 to 60. */
function assertWholeSeconds(value: unknown, name: string): number {
  assert.equal(typeof value, 'string', `${name} missing`);
  assert.match(value as string, /^[1-9]\d*$/, `${name} = ${value}`);
  const seconds = Number(value);
  assert.ok(seconds >= 1 && seconds <= 60, `${name} = ${seconds}`);
  return seconds;
}

function assertTooManyRequests(response: LightMyRequestResponse, limit: number): void {
  assert.equal(response.statusCode, 429, response.body);
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'statusCode']);
  assert.equal(body.error, 'Too Many Requests');
  assert.equal(body.statusCode, 429);
  assert.equal(typeof body.message, 'string');
  const retryAfter = assertWholeSeconds(response.headers['retry-after'], 'Retry-After');
  assert.equal(retryAfter, assertWholeSeconds(response.headers['x-ratelimit-reset'], 'X-RateLimit-Reset'));
  assert.deepEqual(rateHeaders(response), { limit: String(limit), remaining: '0' });
}

const missingKey = JSON.stringify({ error: 'Unauthorized', message: 'Missing API key', statusCode: 401 });
const invalidKey = JSON.stringify({ error: 'Unauthorized', message: 'Invalid API key', statusCode: 401 });

describeEachDialect('rate limits', (ctx) => {
  const apps: FastifyInstance[] = [];
  after(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });
  async function newApp(options: Omit<AppOptions, 'db'> = {}): Promise<ProbedApp> {
    const probed = await probedApp(ctx.db, options);
    apps.push(probed.app);
    return probed;
  }

  test('every response carries X-RateLimit-Limit, -Remaining and -Reset in whole seconds ≤ 60', async () => {
    const { app } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const limited = await createTestKey(ctx.db, project, { rateLimit: 10 });
    const publicKey = await createTestKey(ctx.db, project, { kind: 'public', rateLimit: null });

    const cases: Array<[string, Record<string, string>, number, string, string]> = [
      ['/v1/articles', limited.headers, 200, '10', '9'],
      ['/v1/project', limited.headers, 200, '10', '8'],
      ['/v1/articles?limit=0', limited.headers, 400, '10', '7'],
      ['/v1/articles/no-such-article', limited.headers, 404, '10', '6'],
      ['/v1/no-such-route', limited.headers, 404, '10', '5'],
      ['/v1/analytics/stats', publicKey.headers, 403, '100', '99'],
      ['/v1/articles', {}, 401, '20', '19'],
    ];
    for (const [url, headers, status, limit, remaining] of cases) {
      const response = await get(app, url, headers);
      assert.equal(response.statusCode, status, `${url}: ${response.body}`);
      assert.deepEqual(rateHeaders(response), { limit, remaining }, url);
      assertWholeSeconds(response.headers['x-ratelimit-reset'], 'X-RateLimit-Reset');
      assert.equal(response.headers['retry-after'], undefined, url);
    }
  });

  test('a key with rateLimit 3: the 4th request in the minute is 429 with Retry-After and does not run', async () => {
    const { app, runs } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const { headers } = await createTestKey(ctx.db, project, { rateLimit: 3 });
    for (const remaining of ['2', '1', '0']) {
      const response = await get(app, '/v1/probe', headers);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(rateHeaders(response), { limit: '3', remaining });
    }
    assert.equal(runs(), 3);
    const fourth = await get(app, '/v1/probe', headers);
    assertTooManyRequests(fourth, 3);
    const fifth = await get(app, '/v1/articles', headers);
    assertTooManyRequests(fifth, 3);
    assert.equal(runs(), 3, 'the handler ran for a request past the limit');
  });

  test('a key without a limit of its own has 100 requests per minute', async () => {
    const { app, runs } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const { headers } = await createTestKey(ctx.db, project, { rateLimit: null });
    for (let i = 1; i <= 100; i++) {
      const response = await get(app, '/v1/probe', headers);
      assert.equal(response.statusCode, 200, `request ${i}: ${response.body}`);
      assert.deepEqual(rateHeaders(response), { limit: '100', remaining: String(100 - i) });
    }
    assertTooManyRequests(await get(app, '/v1/probe', headers), 100);
    assert.equal(runs(), 100);
  });

  test('requests without a valid key: 20 per minute per IP, then 429 instead of 401', async () => {
    const { app, runs } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const revoked = await createTestKey(ctx.db, project);
    await revokeApiKey(ctx.db, revoked.keyId);
    // Missing, malformed, unknown and revoked keys all draw on the same budget.
    const attempts: Array<[Record<string, string>, string]> = [
      [{}, missingKey],
      [{ 'x-api-key': 'guess' }, invalidKey],
      [{ 'x-api-key': `folio_sk_${'x'.repeat(40)}` }, invalidKey],
      [{ authorization: `Bearer folio_sk_${'y'.repeat(40)}` }, invalidKey],
      [revoked.headers, invalidKey],
    ];
    for (let i = 1; i <= 20; i++) {
      const [headers, body] = attempts[i % attempts.length];
      const response = await get(app, '/v1/probe', headers, '192.0.2.10');
      assert.equal(response.statusCode, 401, `request ${i}`);
      assert.equal(response.body, body);
      assert.deepEqual(rateHeaders(response), { limit: '20', remaining: String(20 - i) });
    }
    for (const [headers] of attempts) {
      assertTooManyRequests(await get(app, '/v1/probe', headers, '192.0.2.10'), 20);
    }
    // Another IP still has its whole budget.
    const other = await get(app, '/v1/probe', {}, '192.0.2.11');
    assert.equal(other.statusCode, 401);
    assert.deepEqual(rateHeaders(other), { limit: '20', remaining: '19' });
    assert.equal(runs(), 0);
  });

  test('a valid key from an IP whose anonymous budget is spent keeps its own budget', async () => {
    const { app, runs } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const { headers } = await createTestKey(ctx.db, project, { rateLimit: 5 });
    for (let i = 0; i < 21; i++) await get(app, '/v1/probe', {}, '192.0.2.20');
    assertTooManyRequests(await get(app, '/v1/probe', {}, '192.0.2.20'), 20);
    const response = await get(app, '/v1/probe', headers, '192.0.2.20');
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(rateHeaders(response), { limit: '5', remaining: '4' });
    assert.equal(runs(), 1);
    // And spending the key's budget does not give the anonymous one back.
    assertTooManyRequests(await get(app, '/v1/probe', { 'x-api-key': 'guess' }, '192.0.2.20'), 20);
  });

  test('the same key from two IPs has a separate budget for each IP', async () => {
    const { app } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const { headers } = await createTestKey(ctx.db, project, { rateLimit: 2 });
    assert.equal((await get(app, '/v1/probe', headers, '198.51.100.1')).statusCode, 200);
    assert.equal((await get(app, '/v1/probe', headers, '198.51.100.1')).statusCode, 200);
    assertTooManyRequests(await get(app, '/v1/probe', headers, '198.51.100.1'), 2);
    const other = await get(app, '/v1/probe', headers, '198.51.100.2');
    assert.equal(other.statusCode, 200);
    assert.deepEqual(rateHeaders(other), { limit: '2', remaining: '1' });
  });

  test('two keys from one IP have a budget each', async () => {
    const { app } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const first = await createTestKey(ctx.db, project, { rateLimit: 1 });
    const second = await createTestKey(ctx.db, project, { rateLimit: 1 });
    assert.equal((await get(app, '/v1/probe', first.headers)).statusCode, 200);
    assertTooManyRequests(await get(app, '/v1/probe', first.headers), 1);
    assert.equal((await get(app, '/v1/probe', second.headers)).statusCode, 200);
  });

  test('X-Forwarded-For is ignored without trustProxy', async () => {
    const { app } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const { key } = await createTestKey(ctx.db, project, { rateLimit: 1 });
    const first = await get(app, '/v1/probe', { 'x-api-key': key, 'x-forwarded-for': '203.0.113.1' });
    assert.equal(first.statusCode, 200);
    const second = await get(app, '/v1/probe', { 'x-api-key': key, 'x-forwarded-for': '203.0.113.2' });
    assertTooManyRequests(second, 1);
    // Anonymous requests cannot escape their budget by inventing addresses either.
    for (let i = 0; i < 20; i++) {
      const response = await get(
        app,
        '/v1/probe',
        { 'x-forwarded-for': `203.0.113.${i + 10}` },
        '192.0.2.30',
      );
      assert.equal(response.statusCode, 401);
    }
    assertTooManyRequests(
      await get(app, '/v1/probe', { 'x-forwarded-for': '203.0.113.99' }, '192.0.2.30'),
      20,
    );
  });

  test('X-Forwarded-For gives the client IP with trustProxy: true', async () => {
    const { app } = await newApp({ trustProxy: true });
    const { project } = await createTestProject(ctx.db);
    const { key } = await createTestKey(ctx.db, project, { rateLimit: 1 });
    const headers = (ip: string) => ({ 'x-api-key': key, 'x-forwarded-for': ip });
    assert.equal((await get(app, '/v1/probe', headers('203.0.113.1'))).statusCode, 200);
    assertTooManyRequests(await get(app, '/v1/probe', headers('203.0.113.1')), 1);
    assert.equal((await get(app, '/v1/probe', headers('203.0.113.2'))).statusCode, 200);
    // The client is the leftmost address of the chain, whatever proxy it went through.
    assertTooManyRequests(await get(app, '/v1/probe', headers('203.0.113.2, 10.0.0.1'), '10.0.0.2'), 1);
    for (let i = 0; i < 20; i++) {
      await get(app, '/v1/probe', { 'x-forwarded-for': '203.0.113.50' }, '192.0.2.40');
    }
    assertTooManyRequests(
      await get(app, '/v1/probe', { 'x-forwarded-for': '203.0.113.50' }, '192.0.2.40'),
      20,
    );
    const otherClient = await get(app, '/v1/probe', { 'x-forwarded-for': '203.0.113.51' }, '192.0.2.40');
    assert.equal(otherClient.statusCode, 401);
  });

  test('a spent budget comes back when its minute is over', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const { app, runs } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const { headers } = await createTestKey(ctx.db, project, { rateLimit: 2 });
    assert.equal((await get(app, '/v1/probe', headers)).statusCode, 200);
    t.mock.timers.tick(30_000);
    const second = await get(app, '/v1/probe', headers);
    assert.equal(second.statusCode, 200);
    assert.equal(second.headers['x-ratelimit-reset'], '30');
    t.mock.timers.tick(29_500);
    const third = await get(app, '/v1/probe', headers);
    assertTooManyRequests(third, 2);
    assert.equal(third.headers['retry-after'], '1');
    t.mock.timers.tick(500);
    const fresh = await get(app, '/v1/probe', headers);
    assert.equal(fresh.statusCode, 200, fresh.body);
    assert.deepEqual(rateHeaders(fresh), { limit: '2', remaining: '1' });
    assert.equal(fresh.headers['x-ratelimit-reset'], '60');
    assert.equal(runs(), 3);
  });

  test('an unreachable Redis does not take the API down: requests go on uncounted', async () => {
    const { app } = await newApp({ rateLimits: createRateLimitStore('redis://127.0.0.1:1') });
    const { headers } = await createTestProject(ctx.db);
    const response = await get(app, '/v1/probe', headers);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['x-ratelimit-limit'], undefined);
  });
});

describe('MemoryRateLimitStore', () => {
  test('counts hits per bucket within a window and starts a new window when it is over', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    const store = new MemoryRateLimitStore();
    assert.deepEqual(await store.hit('a', 1000), { count: 1, resetMs: 1000 });
    t.mock.timers.tick(400);
    assert.deepEqual(await store.hit('a', 1000), { count: 2, resetMs: 600 });
    assert.deepEqual(await store.hit('b', 1000), { count: 1, resetMs: 1000 });
    t.mock.timers.tick(599);
    assert.deepEqual(await store.hit('a', 1000), { count: 3, resetMs: 1 });
    t.mock.timers.tick(1);
    assert.deepEqual(await store.hit('a', 1000), { count: 1, resetMs: 1000 });
    assert.deepEqual(await store.hit('b', 1000), { count: 2, resetMs: 400 });
    await store.close();
  });

  test('expired windows of many buckets all start again at 1, and close forgets every window', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: 5_000_000 });
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 50; i++) await store.hit(`bucket-${i}`, 100);
    t.mock.timers.tick(10_000);
    // A hit after the sweep interval removes the stale buckets; each starts again at 1.
    for (let i = 0; i < 50; i++) assert.equal((await store.hit(`bucket-${i}`, 100)).count, 1);
    await store.hit('z', 100);
    await store.close();
    assert.equal((await store.hit('z', 100)).count, 1);
  });

  test('with real time, a small window resets by itself', async () => {
    const store = new MemoryRateLimitStore();
    assert.equal((await store.hit('k', 50)).count, 1);
    assert.equal((await store.hit('k', 50)).count, 2);
    await new Promise((resolve) => setTimeout(resolve, 70));
    const hit = await store.hit('k', 50);
    assert.equal(hit.count, 1);
    assert.ok(hit.resetMs > 0 && hit.resetMs <= 50, String(hit.resetMs));
  });
});

describe('RedisRateLimitStore', { skip: redisUrl === null ? 'TEST_REDIS_URL is not set' : false }, () => {
  const prefix = `folio:test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let prefixCounter = 0;
  const nextPrefix = () => `${prefix}${++prefixCounter}:`;

  after(async () => {
    const redis = new Redis(redisUrl!);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  test('counts hits in Redis and starts a new window when the old one expires', async () => {
    const store = new RedisRateLimitStore(new Redis(redisUrl!), nextPrefix());
    try {
      const first = await store.hit('a', 300);
      assert.equal(first.count, 1);
      assert.ok(first.resetMs > 0 && first.resetMs <= 300, String(first.resetMs));
      assert.equal((await store.hit('a', 300)).count, 2);
      assert.equal((await store.hit('b', 300)).count, 1);
      await new Promise((resolve) => setTimeout(resolve, 350));
      const fresh = await store.hit('a', 300);
      assert.equal(fresh.count, 1);
      assert.ok(fresh.resetMs > 0 && fresh.resetMs <= 300, String(fresh.resetMs));
    } finally {
      await store.close();
    }
  });

  test('stores with different prefixes do not share counters', async () => {
    const a = new RedisRateLimitStore(new Redis(redisUrl!), nextPrefix());
    const b = new RedisRateLimitStore(new Redis(redisUrl!), nextPrefix());
    try {
      await a.hit('k', 60_000);
      await a.hit('k', 60_000);
      assert.equal((await b.hit('k', 60_000)).count, 1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  describeEachDialect('two app instances on one Redis', (ctx) => {
    test('share one budget per key and IP', async () => {
      const shared = nextPrefix();
      const first = await probedApp(ctx.db, {
        rateLimits: new RedisRateLimitStore(new Redis(redisUrl!), shared),
      });
      const second = await probedApp(ctx.db, {
        rateLimits: new RedisRateLimitStore(new Redis(redisUrl!), shared),
      });
      try {
        const { project } = await createTestProject(ctx.db);
        const { headers } = await createTestKey(ctx.db, project, { rateLimit: 3 });
        for (const remaining of ['2', '1', '0']) {
          const response = await get(first.app, '/v1/probe', headers);
          assert.equal(response.statusCode, 200, response.body);
          assert.deepEqual(rateHeaders(response), { limit: '3', remaining });
          assertWholeSeconds(response.headers['x-ratelimit-reset'], 'X-RateLimit-Reset');
        }
        assertTooManyRequests(await get(second.app, '/v1/probe', headers), 3);
        assert.equal(first.runs(), 3);
        assert.equal(second.runs(), 0);
        // The other instance of the pair sees the same anonymous budget too.
        for (let i = 0; i < 20; i++) await get(first.app, '/v1/probe', {}, '192.0.2.60');
        assertTooManyRequests(await get(second.app, '/v1/probe', {}, '192.0.2.60'), 20);
      } finally {
        await first.app.close();
        await second.app.close();
      }
    });
  });
});
