import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { type AppOptions, buildApp } from '../../src/app.ts';
import type { Db } from '../../src/db/database.ts';
import { type Decision, MemoryRateLimitStore, RedisRateLimitStore } from '../../src/http/rate-limit.ts';
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

  test('the window slides: a request is allowed again exactly when the oldest counted one is a minute old', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const { app, runs } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const { headers } = await createTestKey(ctx.db, project, { rateLimit: 2 });
    const first = await get(app, '/v1/probe', headers);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['x-ratelimit-reset'], '60');
    t.mock.timers.tick(30_000);
    const second = await get(app, '/v1/probe', headers);
    assert.equal(second.statusCode, 200);
    // Reset: when the oldest counted request leaves the window and one more is allowed.
    assert.equal(second.headers['x-ratelimit-reset'], '30');
    t.mock.timers.tick(29_500);
    const third = await get(app, '/v1/probe', headers);
    assertTooManyRequests(third, 2);
    assert.equal(third.headers['retry-after'], '1');
    t.mock.timers.tick(500);
    // The first request has left the window, the second has not: one request, not a new budget.
    const fourth = await get(app, '/v1/probe', headers);
    assert.equal(fourth.statusCode, 200, fourth.body);
    assert.deepEqual(rateHeaders(fourth), { limit: '2', remaining: '0' });
    assert.equal(fourth.headers['x-ratelimit-reset'], '30');
    const fifth = await get(app, '/v1/probe', headers);
    assertTooManyRequests(fifth, 2);
    assert.equal(fifth.headers['retry-after'], '30');
    t.mock.timers.tick(90_000);
    const fresh = await get(app, '/v1/probe', headers);
    assert.deepEqual(rateHeaders(fresh), { limit: '2', remaining: '1' });
    assert.equal(fresh.headers['x-ratelimit-reset'], '60');
    assert.equal(runs(), 4);
  });

  test('across a minute boundary no more than 100 requests pass in any 60 s (fixed windows let 200 through in 2 s)', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const { app, runs } = await newApp();
    const { project } = await createTestProject(ctx.db);
    const { headers } = await createTestKey(ctx.db, project, { rateLimit: null });
    assert.equal((await get(app, '/v1/probe', headers)).statusCode, 200);
    const passed: number[] = [Date.now()];
    t.mock.timers.tick(59_000);
    // 1 s before and 1 s after the minute the first request opened: 150 requests each time.
    for (const step of [0, 2000]) {
      t.mock.timers.tick(step);
      for (let i = 0; i < 150; i++) {
        const response = await get(app, '/v1/probe', headers);
        if (response.statusCode === 200) passed.push(Date.now());
        else assertTooManyRequests(response, 100);
      }
    }
    // The first request left the window at 60 s: exactly one more passed after it.
    assert.equal(passed.length, 101);
    assert.equal(runs(), 101);
    for (const start of passed) {
      const inWindow = passed.filter((time) => time >= start && time < start + 60_000).length;
      assert.ok(inWindow <= 100, `${inWindow} requests passed in the 60 s from ${start}`);
    }
  });

  test('an unreachable Redis does not take the API down: limits go on in memory, with their headers', async () => {
    const { app, runs } = await newApp({ rateLimits: createRateLimitStore('redis://127.0.0.1:1') });
    const { project } = await createTestProject(ctx.db);
    const { headers } = await createTestKey(ctx.db, project, { rateLimit: 2 });
    for (const remaining of ['1', '0']) {
      const response = await get(app, '/v1/probe', headers);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(rateHeaders(response), { limit: '2', remaining });
    }
    assertTooManyRequests(await get(app, '/v1/probe', headers), 2);
    assert.equal(runs(), 2);
  });
});

/** The sliding-window rule itself: allowed iff fewer than `limit` were allowed in the last window. */
function referenceDecisions(times: number[], limit: number, windowMs: number): Decision[] {
  const allowedAt: number[] = [];
  return times.map((now) => {
    const recent = allowedAt.filter((time) => time > now - windowMs);
    const allowed = recent.length < limit;
    if (allowed) {
      allowedAt.push(now);
      recent.push(now);
    }
    return {
      allowed,
      remaining: limit - recent.length,
      resetMs: recent.length === 0 ? windowMs : recent[0] + windowMs - now,
    };
  });
}

describe('MemoryRateLimitStore', () => {
  test('counts allowed requests per bucket over the last window; a refused one is not counted', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    const store = new MemoryRateLimitStore();
    assert.deepEqual(await store.consume('a', 2, 1000), { allowed: true, remaining: 1, resetMs: 1000 });
    t.mock.timers.tick(400);
    assert.deepEqual(await store.consume('a', 2, 1000), { allowed: true, remaining: 0, resetMs: 600 });
    assert.deepEqual(await store.consume('b', 2, 1000), { allowed: true, remaining: 1, resetMs: 1000 });
    t.mock.timers.tick(599);
    assert.deepEqual(await store.consume('a', 2, 1000), { allowed: false, remaining: 0, resetMs: 1 });
    t.mock.timers.tick(1);
    // The first request is a whole window old: one slot, not a new budget.
    assert.deepEqual(await store.consume('a', 2, 1000), { allowed: true, remaining: 0, resetMs: 400 });
    assert.deepEqual(await store.consume('b', 2, 1000), { allowed: true, remaining: 0, resetMs: 400 });
    await store.close();
  });

  test('matches the sliding-window rule for any sequence of request times (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 10, max: 1000 }),
        // Many requests in one millisecond as well as gaps longer than the window.
        fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 })), { maxLength: 300 }),
        async (limit, windowMs, gaps) => {
          const times: number[] = [];
          let now = 10_000_000;
          for (const gap of gaps) times.push((now += gap));
          const expected = referenceDecisions(times, limit, windowMs);
          const store = new MemoryRateLimitStore();
          const realNow = Date.now;
          try {
            for (const [index, time] of times.entries()) {
              Date.now = () => time;
              const decision = await store.consume('k', limit, windowMs);
              assert.deepEqual(decision, expected[index], `request ${index} at ${time}`);
              assert.ok(decision.resetMs > 0 && decision.resetMs <= windowMs);
            }
          } finally {
            Date.now = realNow;
          }
        },
      ),
    );
  });

  test('buckets idle for a window are forgotten, and close forgets every bucket', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: 5_000_000 });
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 50; i++) await store.consume(`bucket-${i}`, 1, 100);
    t.mock.timers.tick(10_000);
    for (let i = 0; i < 50; i++) assert.equal((await store.consume(`bucket-${i}`, 1, 100)).allowed, true);
    assert.equal((await store.consume('z', 1, 100)).allowed, true);
    assert.equal((await store.consume('z', 1, 100)).allowed, false);
    await store.close();
    assert.equal((await store.consume('z', 1, 100)).allowed, true);
  });

  test('with real time, a small window frees its slots by itself', async () => {
    const store = new MemoryRateLimitStore();
    assert.equal((await store.consume('k', 2, 50)).allowed, true);
    assert.equal((await store.consume('k', 2, 50)).allowed, true);
    assert.equal((await store.consume('k', 2, 50)).allowed, false);
    await new Promise((resolve) => setTimeout(resolve, 70));
    const decision = await store.consume('k', 2, 50);
    assert.equal(decision.allowed, true);
    assert.equal(decision.remaining, 1);
    assert.ok(decision.resetMs > 0 && decision.resetMs <= 50, String(decision.resetMs));
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

  test('counts allowed requests in Redis and frees them when they leave the window', async () => {
    const store = new RedisRateLimitStore(new Redis(redisUrl!), nextPrefix());
    try {
      const first = await store.consume('a', 2, 300);
      assert.deepEqual({ ...first, resetMs: 0 }, { allowed: true, remaining: 1, resetMs: 0 });
      assert.ok(first.resetMs > 0 && first.resetMs <= 300, String(first.resetMs));
      assert.equal((await store.consume('a', 2, 300)).remaining, 0);
      const refused = await store.consume('a', 2, 300);
      assert.equal(refused.allowed, false);
      assert.ok(refused.resetMs > 0 && refused.resetMs <= 300, String(refused.resetMs));
      assert.equal((await store.consume('b', 2, 300)).remaining, 1);
      await new Promise((resolve) => setTimeout(resolve, 350));
      const fresh = await store.consume('a', 2, 300);
      assert.deepEqual({ ...fresh, resetMs: 0 }, { allowed: true, remaining: 1, resetMs: 0 });
    } finally {
      await store.close();
    }
  });

  test('the window slides across its boundary: a full budget does not come back at once', async () => {
    // Real time, with margins of a second: one request, then the rest of the budget 1.6 s later;
    // 2.4 s after the first only that first one has left the 2 s window.
    const store = new RedisRateLimitStore(new Redis(redisUrl!), nextPrefix());
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    try {
      assert.equal((await store.consume('k', 5, 2000)).allowed, true);
      await sleep(1600);
      for (let i = 0; i < 4; i++) assert.equal((await store.consume('k', 5, 2000)).allowed, true);
      assert.equal((await store.consume('k', 5, 2000)).allowed, false);
      await sleep(800);
      const decisions = [];
      for (let i = 0; i < 5; i++) decisions.push((await store.consume('k', 5, 2000)).allowed);
      assert.deepEqual(decisions, [true, false, false, false, false]);
    } finally {
      await store.close();
    }
  });

  test('stores with different prefixes do not share counters', async () => {
    const a = new RedisRateLimitStore(new Redis(redisUrl!), nextPrefix());
    const b = new RedisRateLimitStore(new Redis(redisUrl!), nextPrefix());
    try {
      await a.consume('k', 5, 60_000);
      await a.consume('k', 5, 60_000);
      assert.equal((await b.consume('k', 5, 60_000)).remaining, 4);
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
