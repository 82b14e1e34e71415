// Secret keys' scopes: `read` (content and SEO), `analytics` (statistics, insights, CSV, tracking)
// and `write`, each route's given by its URL and method unless it names one; public keys have none.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp } from '../../src/app.ts';
import type { Db } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import type { KeyScope } from '../../src/db/schema.ts';
import { registerAuth } from '../../src/http/auth.ts';
import { registerErrorHandling } from '../../src/http/errors.ts';
import { DatabaseFailures } from '../../src/http/ops-routes.ts';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.ts';
import { scopeOfRoute } from '../../src/http/route-scopes.ts';
import { keyLookup } from '../../src/projects/key-lookup.ts';
import { generateKey, hashKey, keyPrefix } from '../../src/projects/keys.ts';
import { pageViewCount, track } from '../analytics/support.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  migrateBefore,
} from '../helpers.ts';

const readPaths = ['/v1/articles', '/v1/articles/hello', '/v1/tags', '/v1/project', '/v1/seo/sitemap'];
const analyticsPaths = [
  '/v1/analytics/stats',
  '/v1/analytics/funnel',
  '/v1/analytics/timeseries',
  '/v1/analytics/breakdown/device',
  '/v1/analytics/breakdown/device?format=csv',
  '/v1/analytics/realtime',
];

function assertNeedsScope(response: { status: number; body: any }, scope: KeyScope, what: string): void {
  assert.equal(response.status, 403, `${what}: ${JSON.stringify(response.body)}`);
  assert.equal(response.body.error, 'Forbidden', what);
  assert.deepEqual(response.body.details, { scope }, what);
  assert.match(response.body.message, new RegExp(`needs the '${scope}' scope`), what);
}

test('scopeOfRoute: analytics paths need analytics; webhooks, previews, revisions and writes need write; other reads need read', () => {
  const cases: Array<[string | string[], string, KeyScope]> = [
    ['GET', '/v1/articles', 'read'],
    ['HEAD', '/v1/articles/:slug', 'read'],
    [['GET', 'HEAD'], '/v1/tags/:name', 'read'],
    ['GET', '/v1/project', 'read'],
    ['GET', '/v1/redirects', 'read'],
    ['GET', '/v1/seo/sitemap', 'read'],
    ['GET', '/v1/something-new', 'read'],
    ['GET', '/v1/analytics/stats', 'analytics'],
    ['GET', '/v1/analytics/breakdown/:dimension', 'analytics'],
    ['POST', '/v1/analytics/track', 'analytics'],
    [['PUT', 'POST'], '/v1/analytics/track/:id', 'analytics'],
    ['POST', '/v1/articles', 'write'],
    ['PUT', '/v1/articles/:slug', 'write'],
    ['PATCH', '/v1/articles/:slug', 'write'],
    ['delete', '/v1/articles/:slug', 'write'],
    ['POST', '/v1/tags', 'write'],
    ['DELETE', '/v1/tags/:name', 'write'],
    [['GET', 'POST'], '/v1/tags/:name', 'write'],
    ['GET', '/v1/articles/:slug/revisions', 'write'],
    ['GET', '/v1/articles/:slug/revisions/:id', 'write'],
    ['POST', '/v1/articles/:slug/revisions/:id/restore', 'write'],
    ['GET', '/v1/webhooks', 'write'],
    ['GET', '/v1/webhooks/:id/deliveries', 'write'],
    ['GET', '/v1/previews/:id', 'write'],
    ['DELETE', '/v1/previews/:id', 'write'],
    ['GET', '/v1/articles/:slug/previews', 'write'],
    ['POST', '/v1/articles/:slug/previews', 'write'],
    ['POST', '/v1/import', 'write'],
    // Not a prefix match on the word alone.
    ['GET', '/v1/analyticsx', 'read'],
    ['GET', '/v1/webhooks-guide', 'read'],
  ];
  for (const [methods, url, scope] of cases)
    assert.equal(scopeOfRoute(methods, url), scope, `${methods} ${url}`);
});

describeEachDialect('key scopes', (ctx) => {
  test('a secret key with only analytics gets 403 naming read on content, tags, project and SEO reads', async () => {
    const { project, headers } = await createTestProject(ctx.db, { scopes: ['analytics'] });
    await importArticles(ctx.db, project, [articleInput({ slug: 'hello' })]);
    for (const path of readPaths) assertNeedsScope(await getJson(ctx.app, path, headers), 'read', path);
    const head = await ctx.app.inject({ method: 'HEAD', url: '/v1/articles', headers });
    assert.equal(head.statusCode, 403);
    // What the key has is allowed.
    assert.equal((await getJson(ctx.app, '/v1/analytics/stats', headers)).status, 200);
  });

  test('a secret key with only read gets 403 naming analytics on statistics, funnel, insights, CSV and tracking', async () => {
    const { project, headers } = await createTestProject(ctx.db, { scopes: ['read'] });
    await importArticles(ctx.db, project, [articleInput({ slug: 'hello' })]);
    for (const path of analyticsPaths)
      assertNeedsScope(await getJson(ctx.app, path, headers), 'analytics', path);
    const tracked = await track(ctx.app, { slug: 'hello' }, { headers });
    assertNeedsScope({ status: tracked.statusCode, body: tracked.json() }, 'analytics', 'track');
    assert.equal(await pageViewCount(ctx.db, project.id), 0, 'the refused view was not stored');
    assert.equal((await getJson(ctx.app, '/v1/articles/hello', headers)).status, 200);
  });

  test('a key made without scopes reads and tracks; a public key tracks and reads whatever its stored scopes', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [articleInput({ slug: 'hello' })]);
    for (const path of [...readPaths, ...analyticsPaths]) {
      const response = await ctx.app.inject({ method: 'GET', url: path, headers });
      assert.equal(response.statusCode, 200, `${path}: ${response.body}`);
    }
    assert.equal((await track(ctx.app, { slug: 'hello' }, { headers })).statusCode, 201);

    const browserKey = await createTestKey(ctx.db, project, { kind: 'public' });
    // Scopes are a secret key's: even none stored changes nothing for a public key.
    await ctx.db.kysely
      .updateTable('api_keys')
      .set({ scopes: '[]' })
      .where('id', '=', browserKey.keyId)
      .execute();
    await ctx.db.changesSeen();
    assert.equal((await track(ctx.app, { slug: 'hello' }, { headers: browserKey.headers })).statusCode, 201);
    assert.equal((await getJson(ctx.app, '/v1/articles/hello', browserKey.headers)).status, 200);
    assert.equal((await getJson(ctx.app, '/v1/analytics/stats', browserKey.headers)).status, 403);
  });

  test("a key's scopes changed in the database through another connection are seen by the next request", async () => {
    const { keyId, headers } = await createTestProject(ctx.db, { scopes: ['read'] });
    assert.equal((await getJson(ctx.app, '/v1/project', headers)).status, 200);
    assertNeedsScope(await getJson(ctx.app, '/v1/analytics/stats', headers), 'analytics', 'before');
    const other = openDatabase(ctx.url);
    try {
      await other.kysely
        .updateTable('api_keys')
        .set({ scopes: '["analytics"]' })
        .where('id', '=', keyId)
        .execute();
    } finally {
      await other.close();
    }
    await ctx.db.changesSeen();
    assertNeedsScope(await getJson(ctx.app, '/v1/project', headers), 'read', 'after');
    assert.equal((await getJson(ctx.app, '/v1/analytics/stats', headers)).status, 200);
  });

  test('every keyed operation of the OpenAPI document, as /docs serves it, says its scope and its 403', async () => {
    const { headers } = await createTestProject(ctx.db);
    for (const url of ['/v1/openapi.json', '/docs/json']) {
      const document = (await getJson(ctx.app, url, headers)).body;
      let scoped = 0;
      for (const [path, operations] of Object.entries<any>(document.paths)) {
        for (const [method, operation] of Object.entries<any>(operations)) {
          if (path === '/health' || path === '/ready' || path === '/metrics' || path.endsWith('script.js')) {
            assert.doesNotMatch(operation.description ?? '', /\*\*Scope:\*\*/, `${method} ${path}`);
            continue;
          }
          const scope = scopeOfRoute(method.toUpperCase(), path.replace(/\{(\w+)\}/g, ':$1'));
          assert.match(
            operation.description,
            new RegExp(`\\*\\*Scope:\\*\\* a secret key needs the \`${scope}\` scope`),
            `${method} ${path}`,
          );
          assert.ok(operation.responses['403'], `${method} ${path} documents its 403`);
          scoped++;
        }
      }
      assert.ok(scoped >= 20, `${url}: ${scoped} scoped operations`);
      assert.match(document.info.description, /`read`.*`analytics`.*`write`/);
    }
  });
});

// The rule itself, on a route only a test app has: a write route needs `write`, a route naming its
// scope gets that one, and a keyless route none; routes of plugins get theirs too.
describeEachDialect('the scope rule on routes of any file', (ctx) => {
  let app: FastifyInstance;
  after(async () => {
    await app?.close();
  });

  async function testApp(): Promise<FastifyInstance> {
    app = Fastify();
    registerErrorHandling(app, new DatabaseFailures());
    registerAuth(app, { keys: keyLookup(ctx.db), rateLimits: new MemoryRateLimitStore() });
    const answer = async () => ({ ok: true });
    app.post('/v1/articles', answer);
    app.patch('/v1/articles/:slug', answer);
    app.delete('/v1/tags/:name', answer);
    app.get('/v1/articles/:slug/revisions', answer);
    app.get('/v1/webhooks', answer);
    app.get('/v1/brand-new', answer);
    app.get('/v1/analytics/brand-new', answer);
    app.get('/v1/named', { config: { scope: 'analytics' } }, answer);
    app.get('/v1/open', { config: { access: 'none' } }, answer);
    await app.register(async (plugin) => {
      plugin.post('/v1/previews', answer);
    });
    await app.ready();
    return app;
  }

  test('write routes need write, other reads read, analytics paths analytics, a named scope wins', async () => {
    await testApp();
    const { project, headers: reader } = await createTestProject(ctx.db);
    const { headers: writer } = await createTestKey(ctx.db, project, { scopes: ['write'] });
    const send = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: object) => {
      const response = await app.inject({ method, url, headers: headers as Record<string, string> });
      return { status: response.statusCode, body: response.json() };
    };
    const writes: Array<['GET' | 'POST' | 'PATCH' | 'DELETE', string]> = [
      ['POST', '/v1/articles'],
      ['PATCH', '/v1/articles/hello'],
      ['DELETE', '/v1/tags/news'],
      ['GET', '/v1/articles/hello/revisions'],
      ['GET', '/v1/webhooks'],
      ['POST', '/v1/previews'],
    ];
    for (const [method, url] of writes) {
      assertNeedsScope(await send(method, url, reader), 'write', `${method} ${url}`);
      assert.equal((await send(method, url, writer)).status, 200, `${method} ${url}`);
    }
    assert.equal((await send('GET', '/v1/brand-new', reader)).status, 200);
    assertNeedsScope(await send('GET', '/v1/brand-new', writer), 'read', 'a new read');
    assertNeedsScope(await send('GET', '/v1/analytics/brand-new', writer), 'analytics', 'a new report');
    assertNeedsScope(await send('GET', '/v1/named', writer), 'analytics', 'a named scope');
    assert.equal((await send('GET', '/v1/open', {})).status, 200);
  });
});

// A key made before scopes existed keeps what it could do: read and analytics, not write.
for (const dialect of configuredDialects()) {
  test(`migration 0017 [${dialect}]: a secret key created before it gets read and analytics`, async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    let app: FastifyInstance | undefined;
    try {
      await migrateBefore(database.db, '0017');
      const key = await oldSecretKey(database.db);
      await migrateToLatest(database.db);
      const stored = await database.db.kysely
        .selectFrom('api_keys')
        .select('scopes')
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(stored.scopes), ['read', 'analytics']);
      app = await buildApp({ db: database.db });
      const headers = { 'x-api-key': key };
      assert.equal((await getJson(app, '/v1/articles', headers)).status, 200);
      assert.equal((await getJson(app, '/v1/analytics/stats', headers)).status, 200);
    } finally {
      await app?.close();
      await database.drop();
    }
  });
}

/** A project and a secret key as migrations 0001 to 0016 store them. */
async function oldSecretKey(db: Db): Promise<string> {
  const now = '2026-01-01T00:00:00.000Z';
  const old = db.kysely as Kysely<any>;
  await old
    .insertInto('projects')
    .values({
      id: 'project-old',
      name: 'Old',
      slug: 'old',
      description: '',
      site_url: null,
      logo_url: null,
      storage_limit_bytes: 100_000_000,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const key = generateKey('secret');
  await old
    .insertInto('api_keys')
    .values({
      id: 'key_old',
      project_id: 'project-old',
      kind: 'secret',
      name: 'old key',
      prefix: keyPrefix(key),
      key_hash: hashKey(key),
      rate_limit: null,
      allowed_origins: null,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return key;
}
