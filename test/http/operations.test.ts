// Operations endpoints and the database's bad days, in process: /health, /ready, /metrics, the 503
// answers for a full, read-only or locked database, and the draining state of a shutdown. The
// same faults with real processes (a frozen PostgreSQL, SIGTERM under load) are in test/faults/.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp, type Lifecycle } from '../../src/app.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { createRateLimitStore } from '../../src/server.ts';
import { track } from '../analytics/support.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  importArticles,
  postgresUrl,
  redisUrl,
  type TestProject,
} from '../helpers.ts';

async function blog(db: Parameters<typeof createTestProject>[0]): Promise<TestProject> {
  const project = await createTestProject(db);
  await importArticles(db, project.project, [
    articleInput({ slug: 'hello' }),
    articleInput({ slug: 'other' }),
  ]);
  return project;
}

function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split(' ')[0];
    if (wanted.every((label) => labelText.includes(label))) sum += Number(line.split(' ').at(-1));
  }
  return sum;
}

describeEachDialect('operations endpoints', (ctx) => {
  test('/health answers 200 without a key, a database call or a rate limit', async () => {
    for (let i = 0; i < 30; i++) {
      const response = await ctx.app.inject({ url: '/health' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { status: 'ok' });
      assert.equal(response.headers['x-ratelimit-limit'], undefined);
      assert.ok(response.headers['x-request-id']);
    }
  });

  /** /ready's checks when all is well: PostgreSQL's include its change notifications. */
  function allOk(extra: Record<string, string> = {}): Record<string, string> {
    return { database: 'ok', ...(ctx.dialect === 'postgres' ? { notifications: 'ok' } : {}), ...extra };
  }

  /** /ready, once the app listens to the database's change notifications (it starts to at once). */
  async function readyOnceListening(app: typeof ctx.app) {
    let response = await app.inject({ url: '/ready' });
    for (
      let i = 0;
      i < 100 && response.json().checks.notifications === 'Not listening; it connects again by itself';
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      response = await app.inject({ url: '/ready' });
    }
    return response;
  }

  test('/ready answers 200 when the database reads, without a key or a rate limit', async () => {
    await readyOnceListening(ctx.app);
    for (let i = 0; i < 30; i++) {
      const response = await ctx.app.inject({ url: '/ready' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { status: 'ready', checks: allOk() });
      assert.equal(response.headers['x-ratelimit-limit'], undefined);
    }
  });

  test("/ready stays 200 while Redis is down, telling that limits are counted in the instance's memory", async (t) => {
    const unreachable = createRateLimitStore('redis://127.0.0.1:1');
    const app = await buildApp({ db: ctx.db, rateLimits: unreachable });
    t.after(() => app.close());
    const down = await readyOnceListening(app);
    assert.equal(down.statusCode, 200, down.body);
    assert.equal(down.headers['retry-after'], undefined);
    assert.equal(down.json().status, 'degraded');
    assert.equal(down.json().checks.database, 'ok');
    assert.match(
      down.json().checks.redis,
      /^Redis cannot be reached .*; rate limits are counted in this instance's memory until it is back$/,
    );
    // The fallback serves meanwhile.
    const { headers } = await blog(ctx.db);
    const served = await app.inject({ url: '/v1/articles', headers });
    assert.equal(served.statusCode, 200, served.body);
    assert.ok(served.headers['x-ratelimit-limit']);
    if (redisUrl) {
      const reachable = await buildApp({ db: ctx.db, rateLimits: createRateLimitStore(redisUrl) });
      t.after(() => reachable.close());
      let response = await readyOnceListening(reachable);
      // The first PING may come before the connection is up.
      for (let i = 0; i < 50 && response.json().status !== 'ready'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        response = await reachable.inject({ url: '/ready' });
      }
      assert.deepEqual(response.json(), { status: 'ready', checks: allOk({ redis: 'ok' }) });
    }
  });

  test('/metrics counts requests by route pattern and status, never by URL or key', async () => {
    const { key, headers } = await blog(ctx.db);
    assert.equal((await ctx.app.inject({ url: '/v1/articles/hello', headers })).statusCode, 200);
    assert.equal((await ctx.app.inject({ url: '/v1/articles/hello', headers })).statusCode, 200);
    assert.equal((await ctx.app.inject({ url: '/v1/articles/missing-one', headers })).statusCode, 404);
    assert.equal((await ctx.app.inject({ url: '/nowhere/at/all', headers })).statusCode, 404);
    // A route that hands its request to the not-found handler (Swagger UI's static files, for a
    // file that is not there) counts as unmatched too, not under its own pattern.
    assert.equal((await ctx.app.inject({ url: '/docs/static/no-such-file.js' })).statusCode, 404);
    const created = await track(ctx.app, { slug: 'hello' }, { headers });
    assert.equal(created.statusCode, 201, created.body);

    const response = await ctx.app.inject({ url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain/);
    const text = response.body;
    const route = { method: 'GET', route: '/v1/articles/:slug' };
    assert.equal(metricValue(text, 'folio_http_requests_total', { ...route, status: '200' }), 2);
    assert.equal(metricValue(text, 'folio_http_requests_total', { ...route, status: '404' }), 1);
    assert.equal(
      metricValue(text, 'folio_http_request_duration_seconds_count', { ...route, status: '200' }),
      2,
    );
    assert.equal(metricValue(text, 'folio_http_requests_total', { route: 'unmatched', status: '404' }), 2);
    assert.equal(
      metricValue(text, 'folio_http_requests_total', { route: '/docs/static/*', status: '404' }),
      0,
    );
    // The histogram's buckets are cumulative, end with +Inf = count, and its sum is the time spent.
    const ok = { ...route, status: '200' };
    const buckets = text
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('folio_http_request_duration_seconds_bucket{') &&
          line.includes('route="/v1/articles/:slug"') &&
          line.includes('status="200"'),
      )
      .map((line) => Number(line.split(' ').at(-1)));
    assert.equal(buckets.length, 13);
    assert.ok(buckets.every((count, index) => index === 0 || count >= buckets[index - 1]));
    assert.equal(metricValue(text, 'folio_http_request_duration_seconds_bucket', { ...ok, le: '+Inf' }), 2);
    assert.equal(metricValue(text, 'folio_http_request_duration_seconds_bucket', { ...ok, le: '5' }), 2);
    const sum = metricValue(text, 'folio_http_request_duration_seconds_sum', ok);
    assert.ok(sum > 0 && sum < 10, String(sum));
    assert.match(text, /# TYPE folio_http_request_duration_seconds histogram/);
    assert.ok(metricValue(text, 'folio_answer_cache_requests_total', { result: 'hit' }) >= 1);
    assert.ok(metricValue(text, 'folio_answer_cache_requests_total', { result: 'miss' }) >= 1);
    assert.ok(metricValue(text, 'folio_page_view_write_batches_total', { outcome: 'committed' }) >= 1);
    assert.ok(metricValue(text, 'folio_page_view_write_batch_duration_seconds_count') >= 1);
    assert.equal(metricValue(text, 'folio_rate_limit_store_up', { store: 'memory' }), 1);
    if (ctx.dialect === 'postgres') {
      assert.ok(metricValue(text, 'folio_db_pool_connections', { state: 'total' }) >= 1);
    }
    for (const secret of [key, 'missing-one', 'nowhere', 'hello']) {
      assert.ok(!text.includes(secret), `the metrics must not carry '${secret}'`);
    }
    // Scrapes are not rate limited.
    for (let i = 0; i < 30; i++) assert.equal((await ctx.app.inject({ url: '/metrics' })).statusCode, 200);
  });

  test('a draining instance refuses new requests with 503, Retry-After and its request id', async (t) => {
    const lifecycle: Lifecycle = { draining: false };
    const app = await buildApp({ db: ctx.db, lifecycle });
    t.after(() => app.close());
    const { headers } = await blog(ctx.db);
    assert.equal((await app.inject({ url: '/v1/articles', headers })).statusCode, 200);
    lifecycle.draining = true;
    for (const url of ['/v1/articles', '/ready', '/health']) {
      const response = await app.inject({ url, headers: { ...headers, 'x-request-id': 'drain-1' } });
      assert.equal(response.statusCode, 503, url);
      assert.equal(response.headers['retry-after'], '5');
      assert.equal(response.headers['x-request-id'], 'drain-1');
      assert.equal(response.headers.connection, 'close');
      assert.deepEqual(response.json(), {
        error: 'Service Unavailable',
        message: 'The server is shutting down; retry on another instance or shortly',
        statusCode: 503,
      });
    }
  });
});

describe('PostgreSQL query timeouts', { skip: postgresUrl ? false : 'TEST_POSTGRES_URL is not set' }, () => {
  test('a query past the timeout fails as a timeout; transactionWithTimeout raises it for its transaction', async (t) => {
    const db = openDatabase(postgresUrl!, { poolSize: 1, queryTimeoutMs: 100 });
    t.after(() => db.close());
    await assert.rejects(sql`select pg_sleep(1)`.execute(db.kysely), (error: Error) => {
      assert.equal((error as { code?: string }).code, 'FOLIO_DB_TIMEOUT');
      return true;
    });
    // A search that asks for 3 s gets them, client side too.
    await db.transactionWithTimeout(3000, async (trx) => {
      await sql`select pg_sleep(0.3)`.execute(trx);
    });
    // Past its own timeout, the server cancels the statement (before the client gives up).
    await assert.rejects(
      db.transactionWithTimeout(200, async (trx) => {
        await sql`select pg_sleep(2)`.execute(trx);
      }),
      (error: Error) => {
        assert.match(error.message, /statement timeout/);
        return true;
      },
    );
    // After the transaction the usual timeout applies again.
    await assert.rejects(sql`select pg_sleep(1)`.execute(db.kysely));
  });
});

describe('an SQLite database that refuses writes', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function open() {
    const dir = mkdtempSync(join(tmpdir(), 'folio-ops-'));
    dirs.push(dir);
    const path = join(dir, 'folio.db');
    const db = openDatabase(path);
    await migrateToLatest(db);
    const app = await buildApp({ db });
    const project = await blog(db);
    return { path, db, app, project, close: async () => (await app.close(), await db.close()) };
  }

  test('out of disk space: writes answer 503 saying so, readiness too, and reads go on', async (t) => {
    const { db, app, project, close } = await open();
    t.after(close);
    // The database may not grow by a page: SQLite answers SQLITE_FULL, as on a full disk.
    const { rows } = await sql<{ page_count: number }>`PRAGMA page_count`.execute(db.kysely);
    await sql.raw(`PRAGMA max_page_count = ${rows[0].page_count}`).execute(db.kysely);
    let response = await track(
      app,
      { slug: 'hello', pageTitle: 'x'.repeat(500) },
      { headers: project.headers },
    );
    for (let i = 0; i < 200 && response.statusCode === 201; i++) {
      response = await track(
        app,
        { slug: 'hello', pageTitle: 'x'.repeat(500) },
        { headers: project.headers },
      );
    }
    assert.equal(response.statusCode, 503, response.body);
    assert.equal(response.headers['retry-after'], '5');
    assert.deepEqual(response.json(), {
      error: 'Service Unavailable',
      message: 'The database is out of disk space; try again later',
      statusCode: 503,
    });
    const ready = await app.inject({ url: '/ready' });
    assert.equal(ready.statusCode, 503);
    assert.deepEqual(ready.json(), {
      status: 'unavailable',
      checks: { database: 'The database is out of disk space' },
    });
    assert.equal((await app.inject({ url: '/v1/articles/hello', headers: project.headers })).statusCode, 200);
  });

  test('read-only: writes answer 503 saying so, and readiness too', async (t) => {
    const { db, app, project, close } = await open();
    t.after(close);
    await sql`PRAGMA query_only = 1`.execute(db.kysely);
    const response = await track(app, { slug: 'hello' }, { headers: project.headers });
    assert.equal(response.statusCode, 503, response.body);
    assert.equal(response.json().message, 'The database is read-only; writes are refused for now');
    const ready = await app.inject({ url: '/ready' });
    assert.equal(ready.statusCode, 503);
    assert.deepEqual(ready.json().checks, { database: 'The database is read-only' });
    await sql`PRAGMA query_only = 0`.execute(db.kysely);
    await sql`PRAGMA user_version = 0`.execute(db.kysely);
    assert.equal((await track(app, { slug: 'hello' }, { headers: project.headers })).statusCode, 201);
  });

  test("another process's write lock: reads are answered while a write waits for it", async (t) => {
    const { path, app, project, close } = await open();
    t.after(close);
    const other = new DatabaseSync(path); // the CLI's import, say
    t.after(() => other.close());
    // Warm the caches a read may use, so that the read below is what a busy server serves.
    assert.equal((await app.inject({ url: '/v1/articles', headers: project.headers })).statusCode, 200);
    other.exec('begin immediate');
    const order: string[] = [];
    const write = track(app, { slug: 'hello' }, { headers: project.headers }).then((response) => {
      order.push('write');
      return response;
    });
    // The write is queued before the reads start.
    await new Promise((resolve) => setImmediate(resolve));
    for (const url of ['/v1/articles', '/v1/articles/other', '/v1/tags', '/health']) {
      const read = await app.inject({ url, headers: project.headers });
      assert.equal(read.statusCode, 200, `${url}: ${read.body}`);
      order.push(url);
    }
    other.exec('commit');
    const written = await write;
    assert.equal(written.statusCode, 201, written.body);
    assert.deepEqual(order, ['/v1/articles', '/v1/articles/other', '/v1/tags', '/health', 'write']);
  });

  test('a write lock held longer than the wait answers 503 with Retry-After, nothing half-written', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-ops-'));
    dirs.push(dir);
    const path = join(dir, 'folio.db');
    const db = openDatabase(path, { busyWaitMs: 50 });
    await migrateToLatest(db);
    const app = await buildApp({ db });
    t.after(async () => (await app.close(), await db.close()));
    const project = await blog(db);
    const other = new DatabaseSync(path);
    t.after(() => other.close());
    other.exec('begin immediate');
    const response = await track(app, { slug: 'hello' }, { headers: project.headers });
    other.exec('commit');
    assert.equal(response.statusCode, 503, response.body);
    assert.equal(response.headers['retry-after'], '5');
    assert.equal(response.json().message, 'The database did not answer in time; try again shortly');
    const { rows } = await sql<{ n: number }>`select count(*) as n from page_view_rows`.execute(db.kysely);
    assert.equal(rows[0].n, 0);
  });
});
