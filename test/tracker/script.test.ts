// GET /v1/analytics/script.js: served without a key or rate limit, small, cacheable
// (ETag, a day; a year with the current version in the URL), gzipped when accepted.
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { test } from 'node:test';
import { buildTrackerScript } from '../../src/tracker/script.ts';
import { acceptsGzip } from '../../src/tracker/routes.ts';
import { describeEachDialect } from '../helpers.ts';

const url = '/v1/analytics/script.js';

test('the tracker stays under 2 KB gzipped', async () => {
  const script = await buildTrackerScript();
  assert.ok(script.gzipped.length < 2048, `${script.gzipped.length} bytes gzipped`);
  assert.deepEqual(gunzipSync(script.gzipped), script.code);
  // Minified: no comment or indentation of the source survives.
  assert.doesNotMatch(script.code.toString(), /\/\/|\n {2}/);
});

test('acceptsGzip: by name or *, unless its quality is 0', () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['gzip, deflate, br, zstd', true],
    ['br;q=1.0, GZIP;q=0.5', true],
    ['identity', false],
    ['br', false],
    ['gzip;q=0', false],
    ['gzip; q=0, *', false],
    ['*', true],
    ['*;q=0', false],
    ['x-gzip', true],
    ['deflate, *;q=0.1', true],
  ];
  for (const [header, expected] of cases) assert.equal(acceptsGzip(header), expected, String(header));
});

describeEachDialect('GET /v1/analytics/script.js', (ctx) => {
  test('no key needed: the minified tracker as JavaScript, a day in public caches, with a weak ETag', async () => {
    const response = await ctx.app.inject({ method: 'GET', url });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(response.headers['cache-control'], 'public, max-age=86400, stale-while-revalidate=604800');
    assert.equal(response.headers['vary'], 'Accept-Encoding');
    assert.equal(response.headers['access-control-allow-origin'], '*');
    assert.equal(response.headers['content-encoding'], undefined);
    const script = await buildTrackerScript();
    assert.equal(response.body, script.code.toString());
    assert.equal(response.headers.etag, `W/"${script.version}"`);
    assert.match(script.version, /^[0-9a-f]{12}$/);
    assert.match(response.body, /data-key/);
    assert.match(response.body, /sendBeacon/);

    const head = await ctx.app.inject({ method: 'HEAD', url });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers.etag, response.headers.etag);
  });

  test('gzipped when the client takes gzip, with the same ETag; identity otherwise', async () => {
    const plain = await ctx.app.inject({
      method: 'GET',
      url,
      headers: { 'accept-encoding': 'gzip;q=0, br' },
    });
    assert.equal(plain.headers['content-encoding'], undefined);
    const gzipped = await ctx.app.inject({
      method: 'GET',
      url,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    assert.equal(gzipped.statusCode, 200);
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(gzipped.headers.etag, plain.headers.etag);
    assert.equal(gunzipSync(gzipped.rawPayload).toString(), plain.body);
    assert.ok(gzipped.rawPayload.length < 2048, `${gzipped.rawPayload.length} bytes`);
  });

  test('revalidation: If-None-Match with the ETag is a 304 without a body, still publicly cacheable', async () => {
    const first = await ctx.app.inject({ method: 'GET', url });
    const etag = first.headers.etag as string;
    for (const header of [etag, `"other", ${etag}`]) {
      const again = await ctx.app.inject({ method: 'GET', url, headers: { 'if-none-match': header } });
      assert.equal(again.statusCode, 304, header);
      assert.equal(again.body, '');
      assert.equal(again.headers['cache-control'], 'public, max-age=86400, stale-while-revalidate=604800');
    }
    const changed = await ctx.app.inject({ method: 'GET', url, headers: { 'if-none-match': 'W/"old"' } });
    assert.equal(changed.statusCode, 200);
  });

  test('?v= with the current version is cached for a year; any other version gets the current script', async () => {
    const { version } = await buildTrackerScript();
    const current = await ctx.app.inject({ method: 'GET', url: `${url}?v=${version}` });
    assert.equal(current.statusCode, 200);
    assert.equal(current.headers['cache-control'], 'public, max-age=31536000, immutable');
    const old = await ctx.app.inject({ method: 'GET', url: `${url}?v=0123456789ab` });
    assert.equal(old.statusCode, 200);
    assert.equal(old.body, current.body);
    assert.equal(old.headers['cache-control'], 'public, max-age=86400, stale-while-revalidate=604800');
    const tooLong = await ctx.app.inject({ method: 'GET', url: `${url}?v=${'x'.repeat(65)}` });
    assert.equal(tooLong.statusCode, 400);
    assert.equal(tooLong.json().details.issues[0].field, 'v');
  });

  test('fetching the script spends no rate-limit budget', async () => {
    // Far more than the anonymous budget of one IP (20 a minute): a school or office behind one
    // address loads it for every visitor.
    for (let i = 0; i < 50; i++) {
      const response = await ctx.app.inject({ method: 'GET', url, remoteAddress: '198.51.100.9' });
      assert.equal(response.statusCode, 200, `request ${i}`);
      assert.equal(response.headers['x-ratelimit-limit'], undefined);
    }
    // The same address still has its whole anonymous budget for the API.
    const keyless = await ctx.app.inject({
      method: 'GET',
      url: '/v1/articles',
      remoteAddress: '198.51.100.9',
    });
    assert.equal(keyless.statusCode, 401);
    assert.equal(keyless.headers['x-ratelimit-remaining'], '19');
  });

  test('the OpenAPI document describes the route as keyless JavaScript', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const operation = document.paths['/v1/analytics/script.js'].get;
    assert.deepEqual(operation.security, []);
    assert.ok(operation.responses['200'].content['text/javascript']);
    assert.match(operation.description, /data-key/);
  });
});
