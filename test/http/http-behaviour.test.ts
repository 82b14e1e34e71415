import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { openDatabase } from '../../src/db/database.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  importArticles,
} from '../helpers.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let ipCounter = 0;
/** Anonymous requests share a budget of 20 per IP: tests that send them use an IP of their own. */
function freshIp(): string {
  ipCounter++;
  return `10.2.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}

function send(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', ...options });
}

/** The contract's error body: exactly error, message and statusCode, plus details on a 400. */
function assertErrorBody(
  response: LightMyRequestResponse,
  statusCode: number,
  error: string,
  message?: string | RegExp,
): Record<string, any> {
  assert.equal(response.statusCode, statusCode, response.body);
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
  const body = response.json();
  const expectedKeys =
    statusCode === 400 ? ['details', 'error', 'message', 'statusCode'] : ['error', 'message', 'statusCode'];
  assert.deepEqual(Object.keys(body).sort(), expectedKeys, response.body);
  assert.equal(body.error, error);
  assert.equal(body.statusCode, statusCode);
  assert.equal(typeof body.message, 'string');
  assert.notEqual(body.message, '');
  if (typeof message === 'string') assert.equal(body.message, message);
  if (message instanceof RegExp) assert.match(body.message, message);
  if (statusCode === 400) {
    assert.ok(Array.isArray(body.details.issues), response.body);
    assert.ok(body.details.issues.length > 0, response.body);
    for (const issue of body.details.issues) {
      assert.deepEqual(Object.keys(issue).sort(), ['field', 'message']);
      assert.equal(typeof issue.field, 'string');
      assert.equal(typeof issue.message, 'string');
    }
  }
  return body;
}

/** Every route path registered in the app, with its methods, read from Fastify's route tree. */
function registeredRoutes(app: FastifyInstance): Map<string, Set<string>> {
  const routes = new Map<string, Set<string>>();
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    const path = (depth > 0 ? stack[depth - 1] : '') + match[2];
    stack[depth] = path;
    stack.length = depth + 1;
    if (match[3]) {
      const methods = routes.get(path) ?? new Set<string>();
      for (const method of match[3].split(',')) methods.add(method.trim());
      routes.set(path, methods);
    }
  }
  return routes;
}

describeEachDialect('HTTP behaviour', (ctx) => {
  const extraApps: FastifyInstance[] = [];
  after(async () => {
    await Promise.all(extraApps.map((app) => app.close()));
  });

  describe('X-Request-Id', () => {
    test('is on every response: 200, 400, 401, 403, 404', async () => {
      const { project, headers } = await createTestProject(ctx.db);
      const publicKey = await createTestKey(ctx.db, project, { kind: 'public' });
      const cases: Array<[InjectOptions, number]> = [
        [{ url: '/v1/articles', headers }, 200],
        [{ url: '/v1/articles?limit=0', headers }, 400],
        [{ url: '/v1/articles', remoteAddress: freshIp() }, 401],
        [{ url: '/v1/analytics/stats', headers: publicKey.headers }, 403],
        [{ url: '/v1/articles/nope', headers }, 404],
        [{ url: '/v1/no-such-route', headers }, 404],
        [{ url: '/v1/openapi.json' }, 200],
      ];
      const seen = new Set<string>();
      for (const [options, status] of cases) {
        const response = await send(ctx.app, options);
        assert.equal(response.statusCode, status, `${options.url}: ${response.body}`);
        const id = response.headers['x-request-id'];
        assert.match(String(id), uuid, `${options.url}: ${id}`);
        seen.add(String(id));
      }
      assert.equal(seen.size, cases.length, 'request ids repeat');
    });

    test('a valid incoming X-Request-Id is reused, on success and on error', async () => {
      const { headers } = await createTestProject(ctx.db);
      const ids = ['abc-123', 'Req_1.2:3-x', 'a'.repeat(128), '0f8fad5b-d9cb-469f-a165-70867728950e'];
      for (const id of ids) {
        const ok = await send(ctx.app, { url: '/v1/articles', headers: { ...headers, 'x-request-id': id } });
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.headers['x-request-id'], id);
        const notFound = await send(ctx.app, {
          url: '/v1/articles/nope',
          headers: { ...headers, 'x-request-id': id },
        });
        assert.equal(notFound.statusCode, 404);
        assert.equal(notFound.headers['x-request-id'], id);
      }
      const anonymous = await send(ctx.app, {
        url: '/v1/articles',
        headers: { 'x-request-id': 'trace-401' },
        remoteAddress: freshIp(),
      });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.headers['x-request-id'], 'trace-401');
    });

    test('an invalid incoming X-Request-Id (too long, spaces, other characters) is replaced', async () => {
      const { headers } = await createTestProject(ctx.db);
      const invalid = ['a'.repeat(129), 'has space', ' leading', 'semi;colon', 'slash/id', 'é', '<script>'];
      for (const id of invalid) {
        const response = await send(ctx.app, {
          url: '/v1/articles',
          headers: { ...headers, 'x-request-id': id },
        });
        assert.equal(response.statusCode, 200);
        const returned = String(response.headers['x-request-id']);
        assert.notEqual(returned, id);
        assert.match(returned, uuid, JSON.stringify(id));
      }
    });
  });

  describe('caching of GET answers', () => {
    test('every GET 200 carries an ETag and Cache-Control: private, no-cache, and is UTF-8 JSON', async () => {
      const { project, headers } = await createTestProject(ctx.db);
      await importArticles(ctx.db, project, [articleInput({ slug: 'cached', tags: ['News'] })]);
      for (const url of [
        '/v1/articles',
        '/v1/articles/cached',
        '/v1/tags',
        '/v1/tags/News',
        '/v1/project',
        '/v1/openapi.json',
      ]) {
        const response = await send(ctx.app, { url, headers });
        assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
        assert.match(String(response.headers.etag), /^(W\/)?"[^"]+"$/, url);
        assert.equal(response.headers['cache-control'], 'private, no-cache', url);
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8', url);
        // Unchanged data: the same ETag on the next request.
        const again = await send(ctx.app, { url, headers });
        assert.equal(again.headers.etag, response.headers.etag, url);
      }
    });

    test('error answers to GET carry no ETag', async () => {
      const { headers } = await createTestProject(ctx.db);
      for (const options of [
        { url: '/v1/articles/nope', headers },
        { url: '/v1/articles?limit=0', headers },
        { url: '/v1/articles', remoteAddress: freshIp() },
      ]) {
        const response = await send(ctx.app, options);
        assert.ok(response.statusCode >= 400);
        assert.equal(response.headers.etag, undefined, options.url);
      }
    });

    test('If-None-Match with the ETag gives 304 with an empty body', async () => {
      const { project, headers } = await createTestProject(ctx.db);
      await importArticles(ctx.db, project, [articleInput({ slug: 'etag' })]);
      for (const url of ['/v1/articles', '/v1/articles/etag', '/v1/project', '/v1/tags']) {
        const first = await send(ctx.app, { url, headers });
        const etag = String(first.headers.etag);
        for (const ifNoneMatch of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
          const cached = await send(ctx.app, { url, headers: { ...headers, 'if-none-match': ifNoneMatch } });
          assert.equal(cached.statusCode, 304, `${url} with ${ifNoneMatch}`);
          assert.equal(cached.body, '');
          assert.equal(cached.headers.etag, etag);
          assert.equal(cached.headers['cache-control'], 'private, no-cache');
          assert.match(String(cached.headers['x-request-id']), uuid);
        }
        const stale = await send(ctx.app, { url, headers: { ...headers, 'if-none-match': '"stale"' } });
        assert.equal(stale.statusCode, 200);
        assert.equal(stale.body, first.body);
      }
    });

    test('a changed resource gets a different ETag, and the old ETag no longer matches', async () => {
      const { project, headers } = await createTestProject(ctx.db);
      await importArticles(ctx.db, project, [articleInput({ slug: 'changing', title: 'First title' })]);
      const urls = ['/v1/articles/changing', '/v1/articles', '/v1/project'];
      const before = await Promise.all(urls.map((url) => send(ctx.app, { url, headers })));
      await importArticles(ctx.db, project, [
        articleInput({
          slug: 'changing',
          title: 'Second, longer title',
          updatedAt: '2026-02-01T00:00:00.000Z',
        }),
      ]);
      for (const [index, url] of urls.entries()) {
        const oldTag = String(before[index].headers.etag);
        const after = await send(ctx.app, { url, headers: { ...headers, 'if-none-match': oldTag } });
        assert.equal(after.statusCode, 200, url);
        assert.notEqual(after.headers.etag, oldTag, url);
        assert.notEqual(after.body, before[index].body, url);
      }
    });

    test('the same resource seen through two projects does not share an ETag', async () => {
      const first = await createTestProject(ctx.db, { name: 'Same name' });
      const second = await createTestProject(ctx.db, { name: 'Same name' });
      const a = await send(ctx.app, { url: '/v1/project', headers: first.headers });
      const b = await send(ctx.app, { url: '/v1/project', headers: second.headers });
      assert.notEqual(a.headers.etag, b.headers.etag);
      const cross = await send(ctx.app, {
        url: '/v1/project',
        headers: { ...second.headers, 'if-none-match': String(a.headers.etag) },
      });
      assert.equal(cross.statusCode, 200);
    });
  });

  describe('errors', () => {
    test('an unknown route with a valid key is a 404 JSON error', async () => {
      const { headers } = await createTestProject(ctx.db);
      for (const [method, url] of [
        ['GET', '/v1/no-such-route'],
        ['GET', '/v2/articles'],
        ['GET', '/'],
        ['POST', '/v1/articles'],
        ['DELETE', '/v1/project'],
      ] as const) {
        const response = await send(ctx.app, { method, url, headers });
        const body = assertErrorBody(response, 404, 'Not Found');
        assert.ok(body.message.includes(url), body.message);
      }
    });

    test('an unknown route without a key is 401, not a hint that the route does not exist', async () => {
      const response = await send(ctx.app, { url: '/v1/no-such-route', remoteAddress: freshIp() });
      assertErrorBody(response, 401, 'Unauthorized', 'Missing API key');
    });

    test('every error body has exactly error, message and statusCode, and a 400 also details.issues', async () => {
      const { project, headers } = await createTestProject(ctx.db);
      const publicKey = await createTestKey(ctx.db, project, { kind: 'public' });
      const limited = await createTestKey(ctx.db, project, { rateLimit: 1 });
      await send(ctx.app, { url: '/v1/project', headers: limited.headers });

      const bad = assertErrorBody(
        await send(ctx.app, { url: '/v1/articles?limit=0&page=x', headers }),
        400,
        'Bad Request',
      );
      assert.deepEqual(bad.details.issues.map((issue: { field: string }) => issue.field).sort(), [
        'limit',
        'page',
      ]);
      assertErrorBody(await send(ctx.app, { url: '/v1/articles?sort=nope', headers }), 400, 'Bad Request');
      assertErrorBody(await send(ctx.app, { url: '/v1/tags?limit=abc', headers }), 400, 'Bad Request');
      assertErrorBody(
        await send(ctx.app, { url: '/v1/articles', remoteAddress: freshIp() }),
        401,
        'Unauthorized',
        'Missing API key',
      );
      assertErrorBody(
        await send(ctx.app, {
          url: '/v1/articles',
          headers: { 'x-api-key': 'nope' },
          remoteAddress: freshIp(),
        }),
        401,
        'Unauthorized',
        'Invalid API key',
      );
      assertErrorBody(
        await send(ctx.app, { url: '/v1/analytics/funnel', headers: publicKey.headers }),
        403,
        'Forbidden',
      );
      assertErrorBody(
        await send(ctx.app, { url: '/v1/articles/missing-one', headers }),
        404,
        'Not Found',
        "Article 'missing-one' not found",
      );
      assertErrorBody(
        await send(ctx.app, { url: '/v1/tags/Missing', headers }),
        404,
        'Not Found',
        'Tag not found',
      );
      assertErrorBody(
        await send(ctx.app, { url: '/v1/project', headers: limited.headers }),
        429,
        'Too Many Requests',
      );
    });

    test('body errors: too large is 413, not JSON is 415, malformed JSON is 400 — all in the error shape', async () => {
      const app = await buildApp({ db: ctx.db });
      extraApps.push(app);
      app.post('/v1/probe/echo', async (request) => ({ data: request.body }));
      const { headers } = await createTestProject(ctx.db);
      const json = { ...headers, 'content-type': 'application/json' };

      const ok = await send(app, {
        method: 'POST',
        url: '/v1/probe/echo',
        headers: json,
        payload: '{"a":1}',
      });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json(), { data: { a: 1 } });

      const tooLarge = JSON.stringify({ text: 'x'.repeat(64 * 1024) });
      assertErrorBody(
        await send(app, { method: 'POST', url: '/v1/probe/echo', headers: json, payload: tooLarge }),
        413,
        'Payload Too Large',
      );
      assertErrorBody(
        await send(app, {
          method: 'POST',
          url: '/v1/probe/echo',
          headers: { ...headers, 'content-type': 'application/xml' },
          payload: '<a/>',
        }),
        415,
        'Unsupported Media Type',
      );
      for (const payload of ['{"a":', '', '{"a":1}}']) {
        const malformed = assertErrorBody(
          await send(app, { method: 'POST', url: '/v1/probe/echo', headers: json, payload }),
          400,
          'Bad Request',
        );
        assert.deepEqual(malformed.details.issues, [{ field: 'body', message: malformed.message }]);
      }
    });

    test('a path that is not valid percent-encoding is a 400 in the error shape, with a request id', async () => {
      const { headers } = await createTestProject(ctx.db);
      for (const url of ['/v1/articles/%E0%A4%A', '/v1/tags/%']) {
        const response = await send(ctx.app, {
          url,
          headers: { ...headers, 'x-request-id': 'routing-error' },
        });
        assertErrorBody(response, 400, 'Bad Request');
        assert.equal(response.headers['x-request-id'], 'routing-error');
        const anonymous = await send(ctx.app, { url, remoteAddress: freshIp() });
        assertErrorBody(anonymous, 400, 'Bad Request');
        assert.match(String(anonymous.headers['x-request-id']), uuid);
      }
    });

    test('a path parameter over 1000 characters is a 400 in the error shape, with a request id', async () => {
      const { headers } = await createTestProject(ctx.db);
      const response = await send(ctx.app, {
        url: `/v1/articles/${'a'.repeat(1001)}`,
        headers: { ...headers, 'x-request-id': 'long-param' },
      });
      assertErrorBody(response, 400, 'Bad Request');
      assert.equal(response.headers['x-request-id'], 'long-param');
      const atLimit = await send(ctx.app, { url: `/v1/articles/${'a'.repeat(1000)}`, headers });
      assertErrorBody(atLimit, 404, 'Not Found');
    });

    test('an unexpected error is a 500 whose message reveals nothing of the cause', async () => {
      const app = await buildApp({ db: ctx.db });
      extraApps.push(app);
      app.get('/v1/probe/crash', async () => {
        throw new Error('secret internal detail at /srv/folio/db.ts:42');
      });
      const { headers } = await createTestProject(ctx.db);
      const response = await send(app, {
        url: '/v1/probe/crash',
        headers: { ...headers, 'x-request-id': 'crash-1' },
      });
      const body = assertErrorBody(response, 500, 'Internal Server Error');
      assert.ok(!body.message.includes('secret'), body.message);
      assert.ok(!body.message.includes('db.ts'), body.message);
      assert.equal(response.headers['x-request-id'], 'crash-1');
    });
  });

  describe('OpenAPI document and reference', () => {
    test('GET /v1/openapi.json needs no key and is an OpenAPI 3.1 document', async () => {
      const response = await send(ctx.app, { url: '/v1/openapi.json', remoteAddress: freshIp() });
      assert.equal(response.statusCode, 200, response.body);
      // Public, but counted against the anonymous budget like any request without a key.
      assert.equal(response.headers['x-ratelimit-limit'], '20');
      assert.equal(response.headers['x-ratelimit-remaining'], '19');
      const document = response.json();
      assert.equal(document.openapi, '3.1.0');
      assert.equal(typeof document.info.title, 'string');
      assert.equal(typeof document.info.version, 'string');
      assert.equal(typeof document.paths, 'object');
      assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['apiKey', 'bearer']);
      assert.deepEqual(document.components.securitySchemes.apiKey, {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
      });
    });

    test('documents exactly the /v1 API routes the app serves, each with its methods', async () => {
      const document = (await send(ctx.app, { url: '/v1/openapi.json' })).json();
      const served = registeredRoutes(ctx.app);
      const expected = new Map<string, string[]>();
      for (const [path, methods] of served) {
        if (!path.startsWith('/v1/') || path === '/v1/openapi.json') continue;
        const documented = [...methods].filter((method) => method !== 'HEAD' && method !== 'OPTIONS');
        if (documented.length === 0) continue;
        expected.set(
          path.replace(/:(\w+)/g, '{$1}'),
          documented.map((method) => method.toLowerCase()).sort(),
        );
      }
      for (const path of [
        '/v1/articles',
        '/v1/articles/{slug}',
        '/v1/tags',
        '/v1/tags/{name}',
        '/v1/project',
      ]) {
        assert.ok(expected.has(path), `${path} is not served`);
      }
      // Besides the API, only the operations probes (/health, /ready, /metrics) are documented.
      const apiPaths = Object.keys(document.paths).filter((path) => path.startsWith('/v1/'));
      assert.deepEqual(apiPaths.sort(), [...expected.keys()].sort());
      assert.deepEqual(
        Object.keys(document.paths)
          .filter((path) => !path.startsWith('/v1/'))
          .sort(),
        ['/health', '/metrics', '/ready'],
      );
      for (const [path, methods] of expected) {
        const operations = Object.keys(document.paths[path]).filter((key) =>
          ['get', 'put', 'post', 'delete', 'patch'].includes(key),
        );
        assert.deepEqual(operations.sort(), methods, path);
      }
    });

    test('every operation documents its path parameters, a 200 response schema and the error schema', async () => {
      const document = (await send(ctx.app, { url: '/v1/openapi.json' })).json();
      for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
        for (const [method, operation] of Object.entries<any>(item)) {
          if (!['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
          const where = `${method.toUpperCase()} ${path}`;
          const parameters: any[] = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
          const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
          const documentedPathNames = parameters.filter((p) => p.in === 'path').map((p) => p.name);
          assert.deepEqual(documentedPathNames.sort(), pathNames.sort(), where);
          for (const parameter of parameters.filter((p) => p.in === 'path')) {
            assert.equal(parameter.required, true, `${where} ${parameter.name}`);
            assert.equal(typeof parameter.schema, 'object', `${where} ${parameter.name}`);
          }
          const ok = operation.responses?.['200'] ?? operation.responses?.['201'];
          // A DELETE may answer 204, without a body.
          assert.ok(
            ok ?? (method === 'delete' && operation.responses?.['204']),
            `${where} has no 200 response`,
          );
          const schemas = Object.values<any>(ok?.content ?? {}).map((media) => media.schema);
          if (ok)
            assert.ok(schemas.length > 0 && schemas.every((schema) => typeof schema === 'object'), where);
          // Keyless operations (`security: []`, the tracker script) have no 401 to document.
          const unauthorized = operation.responses?.['401']?.content?.['application/json']?.schema;
          if (operation.tags?.includes('Operations')) assert.deepEqual(operation.security, [], where);
          if (!Array.isArray(operation.security) || operation.security.length > 0)
            assert.ok(unauthorized, `${where} does not document its 401`);
          assert.equal(typeof operation.summary, 'string', where);
        }
      }
    });

    test('the content endpoints document their query parameters and JSON 200 bodies', async () => {
      const document = (await send(ctx.app, { url: '/v1/openapi.json' })).json();
      const queryNames = (path: string) =>
        (document.paths[path].get.parameters ?? [])
          .filter((p: any) => p.in === 'query')
          .map((p: any) => p.name)
          .sort();
      const articleList = [
        'excludeTags',
        'limit',
        'order',
        'page',
        'published',
        'search',
        'select',
        'sort',
        'status',
        'tags',
        'tagsAll',
      ];
      for (const name of articleList)
        assert.ok(queryNames('/v1/articles').includes(name), `articles: ${name}`);
      assert.ok(queryNames('/v1/articles/{slug}').includes('select'));
      for (const name of ['sort', 'order', 'limit'])
        assert.ok(queryNames('/v1/tags').includes(name), `tags: ${name}`);
      for (const path of [
        '/v1/articles',
        '/v1/articles/{slug}',
        '/v1/tags',
        '/v1/tags/{name}',
        '/v1/project',
      ]) {
        const schema = document.paths[path].get.responses['200'].content['application/json'].schema;
        assert.equal(schema.type, 'object', path);
        assert.ok(schema.properties.data, `${path}: no data member`);
        assert.ok(schema.required.includes('data'), path);
      }
      const list = document.paths['/v1/articles'].get.responses['200'].content['application/json'].schema;
      assert.equal(list.properties.data.type, 'array');
      assert.ok(list.properties.meta, 'article list has no meta');
    });

    test('GET /docs needs no key and returns the HTML reference, which loads the document without a key', async () => {
      let response = await send(ctx.app, { url: '/docs', remoteAddress: freshIp() });
      for (let hops = 0; hops < 3 && response.statusCode >= 300 && response.statusCode < 400; hops++) {
        const location = new URL(String(response.headers.location), 'http://localhost/docs');
        response = await send(ctx.app, {
          url: location.pathname + location.search,
          remoteAddress: freshIp(),
        });
      }
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.match(response.body, /<html/i);
      const json = await send(ctx.app, { url: '/docs/json', remoteAddress: freshIp() });
      assert.equal(json.statusCode, 200, json.body);
      assert.equal(json.json().openapi, '3.1.0');
      const initializer = await send(ctx.app, {
        url: '/docs/static/swagger-initializer.js',
        remoteAddress: freshIp(),
      });
      assert.equal(initializer.statusCode, 200);
    });
  });
});

describe('a database that cannot be reached', () => {
  const db = openDatabase('postgres://postgres@127.0.0.1:1/none', { poolSize: 1 });
  let app: FastifyInstance;
  after(async () => {
    await app?.close();
    await db.close();
  });

  test('gives 503 Service Unavailable in the error shape, with a request id', async () => {
    app = await buildApp({ db });
    const key = `folio_sk_${'A'.repeat(40)}`;
    for (const headers of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }]) {
      const response = await send(app, {
        url: '/v1/articles',
        headers: { ...headers, 'x-request-id': 'db-down' },
      });
      assertErrorBody(response, 503, 'Service Unavailable');
      assert.equal(response.headers['x-request-id'], 'db-down');
    }
    // Liveness needs no database; readiness tells why requests fail but stays 200: a shared
    // database's outage is every instance's, and must not take them all out of the balancer.
    const health = await send(app, { url: '/health' });
    assert.equal(health.statusCode, 200);
    const ready = await send(app, { url: '/ready' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().status, 'degraded');
    assert.match(ready.json().checks.database, /cannot be reached/);
    // What needs no database still works.
    const openapi = await send(app, { url: '/v1/openapi.json' });
    assert.equal(openapi.statusCode, 200);
  });
});
