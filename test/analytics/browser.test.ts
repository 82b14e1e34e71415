// The track endpoints from a browser (keys, errors, tracking writes): public keys, allowed origins, CORS and
// preflight, the key as a query parameter, text/plain bodies and the POST alias of the update, as
// navigator.sendBeacon needs them; media types and body size.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
} from '../helpers.ts';
import { pageViewCount, rawPageViews, track, update } from './support.ts';

function assertError(
  response: { statusCode: number; json(): any; headers: Record<string, unknown> },
  status: number,
  error: string,
) {
  assert.equal(response.statusCode, status);
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
  const body = response.json();
  assert.equal(body.error, error);
  assert.equal(body.statusCode, status);
  assert.equal(typeof body.message, 'string');
  return body;
}

describeEachDialect('tracking from browsers', (ctx) => {
  async function blog(origins?: string[]) {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'hello' })]);
    const publicKey = await createTestKey(ctx.db, owner.project, { kind: 'public', origins });
    return { ...owner, publicKey };
  }

  test('sendBeacon: a text/plain body is read as JSON, with the public key as ?key=', async () => {
    const { project, publicKey } = await blog();
    const created = await track(ctx.app, JSON.stringify({ slug: 'hello', timeOnPage: 1 }), {
      contentType: 'text/plain;charset=UTF-8',
      query: `?key=${publicKey.key}`,
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    const beacon = await update(ctx.app, id, JSON.stringify({ timeOnPage: 45, scrollDepth: 80 }), {
      method: 'POST',
      contentType: 'text/plain;charset=UTF-8',
      query: `?key=${publicKey.key}`,
    });
    assert.equal(beacon.statusCode, 200, beacon.body);
    assert.deepEqual(beacon.json(), { data: { success: true } });
    const [row] = await rawPageViews(ctx.db, project.id);
    assert.deepEqual([Number(row.time_on_page_ms), Number(row.scroll_depth_centi)], [45_000, 8000]);
  });

  test('the key as ?key= is taken on the track endpoints only', async () => {
    const { publicKey } = await blog();
    const key = publicKey.key;
    assert.equal((await getJson(ctx.app, `/v1/articles?key=${key}`)).status, 401);
    assert.equal((await track(ctx.app, { slug: 'hello' }, { query: `?key=${key}` })).statusCode, 201);
  });

  test('a text/plain body that is empty, not JSON, or not an object is a 400 naming the body', async () => {
    const { project, publicKey } = await blog();
    for (const text of ['', '   ', '{"slug": "hello"', 'slug=hello', '[1]', '"hello"']) {
      const response = await track(ctx.app, text, { contentType: 'text/plain', headers: publicKey.headers });
      const body = assertError(response, 400, 'Bad Request');
      assert.deepEqual(
        body.details.issues.map((issue: { field: string }) => issue.field),
        ['body'],
        text,
      );
    }
    const proto = await track(ctx.app, '{"slug":"hello","__proto__":{"x":1}}', {
      contentType: 'text/plain',
      headers: publicKey.headers,
    });
    assert.equal(proto.statusCode, 400);
    assert.equal(await pageViewCount(ctx.db, project.id), 0);
  });

  test('other media types are 415 Unsupported Media Type, JSON ones included', async () => {
    const { project, headers } = await blog();
    for (const contentType of [
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'text/html',
      'application/merge-patch+json',
    ]) {
      const response = await track(ctx.app, '{"slug":"hello"}', { contentType, headers });
      const body = assertError(response, 415, 'Unsupported Media Type');
      assert.match(body.message, /application\/json or text\/plain/);
      const put = await update(ctx.app, '0123456789abAAAAAAAAAAAAAAAAAAAAAA', '{}', { contentType, headers });
      assertError(put, 415, 'Unsupported Media Type');
    }
    assert.equal(await pageViewCount(ctx.db, project.id), 0);
  });

  test('a body over 64 KiB is 413 Payload Too Large, as JSON and as text', async () => {
    const { project, headers } = await blog();
    const big = JSON.stringify({ slug: 'hello', pageTitle: 'x'.repeat(64 * 1024) });
    for (const contentType of ['application/json', 'text/plain']) {
      assertError(await track(ctx.app, big, { contentType, headers }), 413, 'Payload Too Large');
    }
    assert.equal(await pageViewCount(ctx.db, project.id), 0);
  });

  test('a public key may track and update; stats and funnel refuse it with 403', async () => {
    const { publicKey } = await blog();
    const created = await track(ctx.app, { slug: 'hello' }, { headers: publicKey.headers });
    assert.equal(created.statusCode, 201);
    assert.equal(
      (await update(ctx.app, created.json().id, { timeOnPage: 3 }, { headers: publicKey.headers }))
        .statusCode,
      200,
    );
    for (const path of ['/v1/analytics/stats', '/v1/analytics/funnel']) {
      const response = await getJson(ctx.app, path, publicKey.headers);
      assert.equal(response.status, 403);
      assert.equal(response.body.error, 'Forbidden');
    }
  });

  test('allowed origins: a listed origin gets its CORS header; another origin, or none, is 403 and writes nothing', async () => {
    const { project, publicKey } = await blog(['https://blog.example.com', 'http://localhost:4321']);
    const allowed = await track(
      ctx.app,
      { slug: 'hello' },
      { headers: { ...publicKey.headers, origin: 'https://blog.example.com' } },
    );
    assert.equal(allowed.statusCode, 201);
    assert.equal(allowed.headers['access-control-allow-origin'], 'https://blog.example.com');
    assert.match(String(allowed.headers.vary), /Origin/);
    assert.match(String(allowed.headers['access-control-expose-headers']), /X-Request-Id/);
    const local = await track(
      ctx.app,
      { slug: 'hello' },
      { headers: { ...publicKey.headers, origin: 'http://localhost:4321' } },
    );
    assert.equal(local.headers['access-control-allow-origin'], 'http://localhost:4321');

    for (const origin of [
      'https://evil.example.com',
      'http://blog.example.com',
      'https://blog.example.com:8443',
      'null',
      'not a url',
      undefined,
    ]) {
      const headers: Record<string, string> = { ...publicKey.headers };
      if (origin !== undefined) headers.origin = origin;
      const refused = await track(ctx.app, { slug: 'hello' }, { headers });
      assertError(refused, 403, 'Forbidden');
      // The refusal itself is readable by the page (it holds nothing of the project); an Origin
      // that is not an http(s) origin gets no CORS header at all.
      const echoed = origin?.startsWith('http') ? origin : undefined;
      assert.equal(refused.headers['access-control-allow-origin'], echoed, String(origin));
      const put = await update(ctx.app, allowed.json().id, { timeOnPage: 99 }, { headers });
      assertError(put, 403, 'Forbidden');
    }
    assert.equal(await pageViewCount(ctx.db, project.id), 2);
    const rows = await rawPageViews(ctx.db, project.id);
    assert.ok(
      rows.every((row) => Number(row.time_on_page_ms) === 0),
      'no refused update was applied',
    );
  });

  test('a key without a list allows every origin and echoes it; without Origin no CORS header is sent', async () => {
    const { headers, publicKey } = await blog();
    for (const keyHeaders of [publicKey.headers, headers]) {
      const withOrigin = await track(
        ctx.app,
        { slug: 'hello' },
        { headers: { ...keyHeaders, origin: 'https://anywhere.example' } },
      );
      assert.equal(withOrigin.statusCode, 201);
      assert.equal(withOrigin.headers['access-control-allow-origin'], 'https://anywhere.example');
      const without = await track(ctx.app, { slug: 'hello' }, { headers: keyHeaders });
      assert.equal(without.statusCode, 201);
      assert.equal(without.headers['access-control-allow-origin'], undefined);
    }
  });

  test('preflight requests on the track paths are answered for any origin, without a key', async () => {
    for (const url of ['/v1/analytics/track', '/v1/analytics/track/0123456789abAAAAAAAAAAAAAAAAAAAAAA']) {
      const response = await ctx.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: 'https://any.example.org',
          'access-control-request-method': url.endsWith('track') ? 'POST' : 'PUT',
          'access-control-request-headers': 'content-type, x-api-key, x-folio-client',
        },
      });
      assert.equal(response.statusCode, 204, url);
      assert.equal(response.headers['access-control-allow-origin'], 'https://any.example.org');
      assert.match(String(response.headers['access-control-allow-methods']), /POST/);
      assert.match(String(response.headers['access-control-allow-methods']), /PUT/);
      const allowedHeaders = String(response.headers['access-control-allow-headers']).toLowerCase();
      for (const header of ['content-type', 'x-api-key', 'x-folio-client', 'authorization'])
        assert.ok(allowedHeaders.includes(header), header);
      assert.equal(response.body, '');
    }
  });

  test('preflight requests are not answered on the endpoints browsers may not call', async () => {
    for (const url of ['/v1/analytics/stats', '/v1/analytics/funnel']) {
      const response = await ctx.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://any.example.org', 'access-control-request-method': 'GET' },
      });
      assert.notEqual(response.statusCode, 204, url);
      assert.equal(response.headers['access-control-allow-origin'], undefined, url);
    }
  });

  test('a missing, unknown or revoked key is 401 on the track endpoints too', async () => {
    await blog();
    assertError(await track(ctx.app, { slug: 'hello' }, { headers: {} }), 401, 'Unauthorized');
    assertError(
      await track(
        ctx.app,
        { slug: 'hello' },
        { query: '?key=folio_pk_0000000000000000000000000000000000000000' },
      ),
      401,
      'Unauthorized',
    );
  });
});
