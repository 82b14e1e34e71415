// A Redis (holding the rate limits) that freezes, under the real server: the process stays alive,
// the limits are counted in the instance's memory meanwhile, and /ready stays 200, telling it in
// its body (an outage of Redis is every instance's: failing /ready would pull them all at once).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { createTestProject } from '../helpers.ts';
import {
  type Folio,
  missing,
  type RedisProcess,
  redisBin,
  report,
  sleep,
  startFolio,
  startRedis,
  timedFetch,
} from './support.ts';

const bin = redisBin();
const skip = missing('redis-server', bin !== null);

describe('fault: Redis frozen under the real server', { skip, timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-faults-'));
  let redis: RedisProcess;
  let folio: Folio;
  let headers: Record<string, string>;

  before(async () => {
    redis = await startRedis(bin!);
    const db = openDatabase(join(dir, 'folio.db'));
    await migrateToLatest(db);
    headers = (await createTestProject(db)).headers;
    await db.close();
    folio = await startFolio({ DATABASE_URL: join(dir, 'folio.db'), REDIS_URL: redis.url });
  });

  after(async () => {
    await folio?.service.stop();
    await redis?.service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('frozen (SIGSTOP): /health 200, /ready 200 telling the fallback, API served; ready again after SIGCONT', async () => {
    let ready = await timedFetch(`${folio.base}/ready`);
    for (let i = 0; i < 50 && ready.status !== 200; i++) {
      await sleep(50);
      ready = await timedFetch(`${folio.base}/ready`);
    }
    assert.equal(ready.status, 200, ready.body);
    assert.equal((await timedFetch(`${folio.base}/v1/articles`, { headers })).status, 200);

    redis.service.signal('SIGSTOP');
    let returned: number;
    try {
      const [health, degraded, api] = await Promise.all([
        timedFetch(`${folio.base}/health`),
        timedFetch(`${folio.base}/ready`),
        timedFetch(`${folio.base}/v1/articles`, { headers }, 3000),
      ]);
      report(
        `Redis frozen (SIGSTOP): /health ${health.status} in ${Math.round(health.ms)} ms, /ready ${degraded.status} in ${Math.round(degraded.ms)} ms, GET /v1/articles ${api.status} in ${Math.round(api.ms)} ms`,
      );
      assert.equal(health.status, 200);
      assert.equal(degraded.status, 200, degraded.body);
      assert.equal(JSON.parse(degraded.body).status, 'degraded');
      assert.match(
        JSON.parse(degraded.body).checks.redis,
        /^Redis cannot be reached .*; rate limits are counted in this instance's memory until it is back$/,
      );
      assert.equal(api.status, 200, api.body);
      assert.ok(api.headers!.get('x-ratelimit-limit'));
    } finally {
      redis.service.signal('SIGCONT');
      returned = performance.now();
    }
    let back = await timedFetch(`${folio.base}/ready`);
    for (let i = 0; i < 100 && JSON.parse(back.body || '{}').status !== 'ready'; i++) {
      await sleep(50);
      back = await timedFetch(`${folio.base}/ready`);
    }
    report(
      `Redis resumed (SIGCONT): /ready ${back.status} after ${((performance.now() - returned) / 1000).toFixed(2)} s`,
    );
    assert.equal(back.status, 200, back.body);
    assert.deepEqual(JSON.parse(back.body), { status: 'ready', checks: { database: 'ok', redis: 'ok' } });
  });
});
