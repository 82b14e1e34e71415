import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loggableUrl } from '../../src/http/request-id.ts';
import { revokeApiKey } from '../../src/projects/service.ts';
import { createTestKey, createTestProject, describeEachDialect } from '../helpers.ts';

const protectedPaths = ['/v1/articles', '/v1/tags', '/v1/project'];
const unknownKey = `folio_sk_${'Q'.repeat(40)}`;

let ipCounter = 0;
/** Anonymous requests share a budget of 20 per IP: each test sends them from an IP of its own. */
function freshIp(): string {
  ipCounter++;
  return `10.1.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}

async function getJson(
  app: FastifyInstance,
  url: string,
  headers: Record<string, string> = {},
  remoteAddress = '127.0.0.1',
): Promise<{ status: number; body: any }> {
  const response = await app.inject({ method: 'GET', url, headers, remoteAddress });
  return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : null };
}

function assertError(
  response: { status: number; body: unknown },
  statusCode: number,
  error: string,
  message?: string,
): void {
  assert.equal(response.status, statusCode, JSON.stringify(response.body));
  const body = response.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'statusCode']);
  assert.equal(body.error, error);
  assert.equal(body.statusCode, statusCode);
  assert.equal(typeof body.message, 'string');
  if (message !== undefined) assert.equal(body.message, message);
}

describeEachDialect('authentication', (ctx) => {
  test('a request without a key is refused with 401 Missing API key on every API endpoint', async () => {
    for (const path of [...protectedPaths, '/v1/articles/some-slug', '/v1/tags/some-tag']) {
      const response = await getJson(ctx.app, path, {}, freshIp());
      assert.deepEqual(
        response.body,
        { error: 'Unauthorized', message: 'Missing API key', statusCode: 401 },
        path,
      );
      assert.equal(response.status, 401, path);
    }
  });

  test('an empty X-API-Key header counts as a missing key', async () => {
    const response = await getJson(ctx.app, '/v1/articles', { 'x-api-key': '   ' }, freshIp());
    assertError(response, 401, 'Unauthorized', 'Missing API key');
  });

  test('a malformed or unknown key is refused with 401 Invalid API key', async () => {
    const { key } = await createTestProject(ctx.db);
    const candidates = [
      'nonsense',
      'folio_sk_short',
      `folio_xx_${'a'.repeat(40)}`,
      `${key}!`,
      `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`,
      unknownKey,
      `folio_pk_${'Q'.repeat(40)}`,
      `folio_sk_${'a'.repeat(300)}`,
    ];
    for (const candidate of candidates) {
      const response = await getJson(ctx.app, '/v1/articles', { 'x-api-key': candidate }, freshIp());
      assert.deepEqual(
        response.body,
        { error: 'Unauthorized', message: 'Invalid API key', statusCode: 401 },
        candidate,
      );
      assert.equal(response.status, 401);
    }
  });

  test('a secret key in X-API-Key is accepted on every endpoint', async () => {
    const { headers } = await createTestProject(ctx.db);
    for (const path of protectedPaths) {
      const response = await getJson(ctx.app, path, headers);
      assert.equal(response.status, 200, `${path}: ${JSON.stringify(response.body)}`);
      assert.ok('data' in response.body, path);
    }
  });

  test('Authorization: Bearer <key> is accepted like X-API-Key', async () => {
    const { key, project } = await createTestProject(ctx.db);
    const bearer = await getJson(ctx.app, '/v1/project', { authorization: `Bearer ${key}` });
    assert.equal(bearer.status, 200, JSON.stringify(bearer.body));
    assert.equal(bearer.body.data.project.id, project.id);
    const lowerCase = await getJson(ctx.app, '/v1/project', { authorization: `bearer ${key}` });
    assert.equal(lowerCase.status, 200);
    assert.equal(lowerCase.body.data.project.id, project.id);
  });

  test('Authorization: Bearer with an unknown key is 401 Invalid API key', async () => {
    const response = await getJson(
      ctx.app,
      '/v1/project',
      { authorization: `Bearer ${unknownKey}` },
      freshIp(),
    );
    assertError(response, 401, 'Unauthorized', 'Invalid API key');
  });

  test('the key selects its own project', async () => {
    const first = await createTestProject(ctx.db);
    const second = await createTestProject(ctx.db);
    const a = await getJson(ctx.app, '/v1/project', first.headers);
    const b = await getJson(ctx.app, '/v1/project', second.headers);
    assert.equal(a.body.data.project.id, first.project.id);
    assert.equal(b.body.data.project.id, second.project.id);
  });

  test('a revoked key is refused on the very next request', async () => {
    const { project } = await createTestProject(ctx.db);
    const { keyId, headers } = await createTestKey(ctx.db, project);
    const before = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(before.status, 200);
    const revoked = await revokeApiKey(ctx.db, keyId);
    assert.equal(typeof revoked.revoked_at, 'string');
    const after = await getJson(ctx.app, '/v1/project', headers);
    assertError(after, 401, 'Unauthorized', 'Invalid API key');
    const bearer = await getJson(ctx.app, '/v1/articles', {
      authorization: `Bearer ${headers['x-api-key']}`,
    });
    assertError(bearer, 401, 'Unauthorized', 'Invalid API key');
  });

  test('revoking one key leaves the other keys of the project working', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const other = await createTestKey(ctx.db, project);
    await revokeApiKey(ctx.db, other.keyId);
    assert.equal((await getJson(ctx.app, '/v1/project', other.headers)).status, 401);
    assert.equal((await getJson(ctx.app, '/v1/project', headers)).status, 200);
  });

  test('a public key gets 403 Forbidden on statistics and the funnel, and reads content', async () => {
    const { project } = await createTestProject(ctx.db);
    const publicKey = await createTestKey(ctx.db, project, { kind: 'public' });
    assert.match(publicKey.key, /^folio_pk_[0-9A-Za-z]{32,}$/);
    for (const path of ['/v1/analytics/stats', '/v1/analytics/funnel']) {
      const response = await getJson(ctx.app, path, publicKey.headers);
      assertError(response, 403, 'Forbidden');
      assert.match(response.body.message, /needs a secret key/);
    }
    const bearer = await getJson(ctx.app, '/v1/analytics/stats', {
      authorization: `Bearer ${publicKey.key}`,
    });
    assertError(bearer, 403, 'Forbidden');
    for (const path of protectedPaths) {
      assert.equal((await getJson(ctx.app, path, publicKey.headers)).status, 200, path);
    }
  });
});

// The log goes to file descriptor 1 of the process (pino), so a child process builds the app with
// a verbose log level and sends the requests; its stdout is the log.
interface LoggedRun {
  log: string[];
  keys: Record<string, string>;
  statuses: number[];
}

function runLoggedRequests(requests: Array<{ url: string; headers: Record<string, string> }>): LoggedRun {
  const src = (path: string) => JSON.stringify(new URL(`../../src/${path}`, import.meta.url).href);
  const script = `
    import { buildApp } from ${src('app.ts')};
    import { openDatabase } from ${src('db/database.ts')};
    import { migrateToLatest } from ${src('db/migrations/index.ts')};
    import { createApiKey, createProject, revokeApiKey } from ${src('projects/service.ts')};
    const db = openDatabase(':memory:');
    await migrateToLatest(db);
    await createProject(db, { name: 'Log test', slug: 'log-test' });
    const secret = await createApiKey(db, 'log-test', { kind: 'secret' });
    const publicKey = await createApiKey(db, 'log-test', { kind: 'public' });
    const revoked = await createApiKey(db, 'log-test', { kind: 'secret' });
    await revokeApiKey(db, revoked.row.id);
    const keys = { secret: secret.key, public: publicKey.key, revoked: revoked.key, unknown: ${JSON.stringify(unknownKey)} };
    const fill = (text) =>
      text.replace(/\\{(\\w+)\\}/g, (_, name) => (name === 'secretBody' ? secret.key.slice(9) : keys[name]));
    const app = await buildApp({ db, logLevel: 'trace' });
    const statuses = [];
    for (const [index, request] of ${JSON.stringify(requests)}.entries()) {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, fill(v)]));
      headers['x-request-id'] = 'logged-' + index;
      statuses.push((await app.inject({ method: 'GET', url: fill(request.url), headers })).statusCode);
    }
    await app.close();
    await db.close();
    process.stderr.write(JSON.stringify({ keys, statuses }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(child.status, 0, child.stderr);
  const { keys, statuses } = JSON.parse(child.stderr.trim().split('\n').at(-1)!);
  return { log: child.stdout.split('\n').filter((line) => line !== ''), keys, statuses };
}

/** The log is really there: each request left at least one line with its request id. */
function assertEveryRequestLogged(run: LoggedRun, count: number): void {
  const entries = run.log.map((line) => JSON.parse(line));
  for (let index = 0; index < count; index++) {
    assert.ok(
      entries.some((entry) => entry.reqId === `logged-${index}`),
      `request ${index} is not in the log:\n${run.log.join('\n')}`,
    );
  }
}

function assertNoKeyIn(log: string[], keys: Record<string, string>): void {
  for (const line of log) {
    for (const [name, key] of Object.entries(keys)) {
      // The random part alone must not appear either (e.g. after some re-encoding of the prefix).
      assert.ok(!line.includes(key.slice('folio_sk_'.length)), `the ${name} key is logged: ${line}`);
    }
  }
}

test('no key sent in X-API-Key or Authorization is ever logged, whatever the outcome', () => {
  const run = runLoggedRequests([
    { url: '/v1/articles', headers: { 'x-api-key': '{secret}' } },
    { url: '/v1/project', headers: { authorization: 'Bearer {secret}' } },
    { url: '/v1/analytics/stats', headers: { 'x-api-key': '{public}' } },
    { url: '/v1/articles', headers: { 'x-api-key': '{revoked}' } },
    { url: '/v1/articles', headers: { authorization: 'Bearer {unknown}' } },
    { url: '/v1/no-such-route', headers: { 'x-api-key': '{secret}' } },
  ]);
  assert.deepEqual(run.statuses, [200, 200, 403, 401, 401, 404]);
  assertEveryRequestLogged(run, 6);
  assertNoKeyIn(run.log, run.keys);
});

test('a key sent as the `key` query parameter is not logged either', () => {
  const run = runLoggedRequests([
    { url: '/v1/articles?key={secret}', headers: {} },
    { url: '/v1/articles?limit=1&key={public}', headers: {} },
    { url: '/v1/articles?KEY={secret}&limit=2', headers: {} },
    { url: '/v1/articles?key=folio%5Fsk%5F{secret}', headers: {} },
    { url: '/v1/articles?%6Bey={secret}', headers: {} },
    { url: '/v1/no-such-route?x=1&key={secret}', headers: { 'x-api-key': '{secret}' } },
  ]);
  assert.deepEqual(run.statuses, [401, 401, 401, 401, 401, 404]);
  assertEveryRequestLogged(run, 6);
  assertNoKeyIn(run.log, run.keys);
});

test('a key anywhere in the URL, under any parameter name or in the path, is not logged', () => {
  const run = runLoggedRequests([
    { url: '/v1/articles?key[]={public}', headers: {} },
    { url: '/v1/articles?key[0]={secret}&limit=1', headers: {} },
    { url: '/v1/articles?token={secret}', headers: {} },
    { url: '/v1/articles?{secret}', headers: {} },
    { url: '/v1/articles?x=%66olio%5fsk%5f{secretBody}', headers: {} },
    { url: '/v1/articles/{secret}', headers: { 'x-api-key': '{secret}' } },
    { url: '/v1/{public}/x?a=1', headers: {} },
  ]);
  assert.deepEqual(run.statuses, [401, 401, 401, 401, 401, 404, 401]);
  assertEveryRequestLogged(run, 7);
  assertNoKeyIn(run.log, run.keys);
});

test('loggableUrl redacts the value of every `key` query parameter and nothing else', () => {
  const cases: Array<[string, string]> = [
    ['/v1/articles', '/v1/articles'],
    ['/v1/articles?limit=3', '/v1/articles?limit=3'],
    ['/v1/track?key=folio_pk_abc', '/v1/track?key=[redacted]'],
    ['/v1/track?a=1&key=folio_pk_abc&b=2', '/v1/track?a=1&key=[redacted]&b=2'],
    ['/v1/track?key=one&key=two', '/v1/track?key=[redacted]&key=[redacted]'],
    ['/v1/track?Key=x', '/v1/track?Key=[redacted]'],
    ['/v1/track?%6Bey=x', '/v1/track?%6Bey=[redacted]'],
    ['/v1/track?key', '/v1/track?key=[redacted]'],
    ['/v1/track?keys=x&monkey=y&key2=z', '/v1/track?keys=x&monkey=y&key2=z'],
    ['/v1/track?%E0%A4%A=x', '/v1/track?%E0%A4%A=x'],
  ];
  for (const [url, expected] of cases) assert.equal(loggableUrl(url), expected, url);
});

test('loggableUrl redacts a key-like value under any name and in any path segment', () => {
  const key = `folio_pk_${'a1B2'.repeat(10)}`;
  const cases: Array<[string, string]> = [
    [`/v1/track?key[]=${key}`, '/v1/track?key[]=[redacted]'],
    [`/v1/track?a=1&key%5B%5D=${key}&b=2`, '/v1/track?a=1&key%5B%5D=[redacted]&b=2'],
    [`/v1/track?token=${key}`, '/v1/track?token=[redacted]'],
    [`/v1/track?t=folio%5Fpk%5F${'x'.repeat(40)}`, '/v1/track?t=[redacted]'],
    [`/v1/track?${key}`, '/v1/track?[redacted]'],
    [`/v1/track?${key}=1`, '/v1/track?[redacted]=1'],
    [`/v1/articles/${key}?limit=1`, '/v1/articles/[redacted]?limit=1'],
    [`/v1/articles/%66olio_sk_abc`, '/v1/articles/[redacted]'],
    ['/v1/articles/folio-notes?q=folio', '/v1/articles/folio-notes?q=folio'],
  ];
  for (const [url, expected] of cases) assert.equal(loggableUrl(url), expected, url);
});
