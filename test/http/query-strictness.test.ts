// Query strings are taken as sent: every integer parameter of every endpoint
// refuses what is not plain decimal digits (Infinity, 1e309, 0x10, +1, ...) with a 400 naming it,
// and every endpoint refuses unknown parameters by name. The tables come from the OpenAPI document,
// so an endpoint added later is covered too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browser } from '../analytics/support.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  importArticles,
} from '../helpers.ts';

interface Operation {
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: Record<string, unknown> }>;
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

const badIntegers = [
  'Infinity',
  '-Infinity',
  '1e309',
  '-1e309',
  '1e2',
  '0x10',
  '0b1',
  '+1',
  '1%20',
  '%201',
  '1.0',
  '1.',
  '%EF%BC%91', // a full-width digit one
  '9'.repeat(400),
];

/** A valid body where one is needed, so that the query is what is refused. */
const bodies: Record<string, object> = { '/v1/webhooks': { url: 'https://hooks.example.com/' } };

describeEachDialect('query strictness', (ctx) => {
  async function setup() {
    // Every scope: a write endpoint checks its scope before its parameters.
    const p = await createTestProject(ctx.db, {
      siteUrl: 'https://blog.example.com',
      scopes: ['read', 'analytics', 'write'],
    });
    await importArticles(ctx.db, p.project, [articleInput({ slug: 'post', tags: ['news'] })]);
    await ctx.app.ready();
    const document = ctx.app.swagger() as unknown as OpenApi;
    return { ...p, document };
  }

  function concrete(path: string): string {
    return path
      .replace('{slug}', 'post')
      .replace('{name}', 'news')
      .replace('{id}', 'pv-unknown')
      .replace('{dimension}', 'source');
  }

  test('every integer query parameter refuses Infinity, 1e309, 0x10, +1 and the like with a 400 naming it', async () => {
    const { headers, project, document } = await setup();
    const table: Array<[string, string]> = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const parameter of operations.get?.parameters ?? []) {
        if (parameter.in === 'query' && parameter.schema.type === 'integer')
          table.push([path, parameter.name]);
      }
    }
    assert.deepEqual(table.map(([path, name]) => `${path} ${name}`).sort(), [
      '/v1/analytics/articles/{slug}/reading days',
      '/v1/analytics/breakdown/{dimension} days',
      '/v1/analytics/breakdown/{dimension} limit',
      '/v1/analytics/breakdown/{dimension} page',
      '/v1/analytics/funnel days',
      '/v1/analytics/stats days',
      '/v1/analytics/timeseries days',
      '/v1/articles limit',
      '/v1/articles page',
      '/v1/seo/atom limit',
      '/v1/seo/feed.json limit',
      '/v1/seo/rss limit',
      '/v1/seo/sitemap page',
      '/v1/seo/structured-data limit',
      '/v1/seo/structured-data page',
      '/v1/tags limit',
      '/v1/webhooks/{id}/deliveries limit',
      '/v1/webhooks/{id}/deliveries page',
    ]);
    // The webhook `{id}` names: a documentation address, refused at delivery without a socket.
    await ctx.db.kysely
      .insertInto('webhooks')
      .values({
        id: 'pv-unknown',
        project_id: project.id,
        url: 'http://192.0.2.1/hook',
        secret: 'whsec_AAAA',
        events: '[]',
        description: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    for (const [path, name] of table) {
      for (const value of badIntegers) {
        const url = `${concrete(path)}?${name}=${value}`;
        const response = await ctx.app.inject({ url, headers });
        assert.equal(response.statusCode, 400, `${url} → ${response.statusCode} ${response.body}`);
        const issues = response.json().details.issues;
        assert.equal(issues.length, 1, url);
        assert.equal(issues[0].field, name, url);
        assert.match(issues[0].message, /^must be an integer from \d+ to \d+$/, url);
      }
      const good = await ctx.app.inject({ url: `${concrete(path)}?${name}=2`, headers });
      assert.equal(good.statusCode, 200, `${path}?${name}=2 → ${good.body}`);
    }
  });

  test('every endpoint refuses unknown query parameters with a 400 naming each one', async () => {
    const { headers, project, document } = await setup();
    // Only a public key may travel in `key` (a secret one there is refused before anything else).
    const { key } = await createTestKey(ctx.db, project, { kind: 'public' });
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        // Keyless static assets (the tracker script) take any parameter a page or CDN may add.
        if (operation.security?.length === 0) continue;
        const known = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        const keyParameter = known.includes('key') ? `key=${key}&` : '';
        const response = await ctx.app.inject({
          method: method.toUpperCase() as 'GET',
          url: `${concrete(path)}?${keyParameter}filter=tag:news&include=tags`,
          headers: { ...headers, 'user-agent': browser },
          ...(method === 'get' ? {} : { payload: bodies[path] ?? { slug: 'post' } }),
        });
        assert.equal(response.statusCode, 400, `${method} ${path} → ${response.body}`);
        const issues = response.json().details.issues;
        assert.deepEqual(
          issues.map((issue: { field: string }) => issue.field),
          ['filter', 'include'],
          `${method} ${path}`,
        );
        for (const issue of issues) assert.match(issue.message, /^is not a known parameter/);
        checked++;
      }
    }
    assert.ok(checked >= 13, `only ${checked} operations checked`);
  });

  test('parameters with a default are optional in the OpenAPI document, and every known one is accepted', async () => {
    const { document } = await setup();
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'query') continue;
          assert.notEqual(parameter.required, true, `${method} ${path} ${parameter.name} is required`);
        }
      }
    }
    const { headers } = await setup();
    const all = await ctx.app.inject({
      url: '/v1/articles?page=1&limit=5&sort=title&order=asc&published=true&status=published&search=Body&select=%7B%7D&tags=news&tagsAll=news&excludeTags=x',
      headers,
    });
    assert.equal(all.statusCode, 200, all.body);
    assert.equal(all.json().meta.total, 1);
  });

  test('track: timeOffset 1e309 (Infinity once parsed) is a 400 naming it, and nothing is stored', async () => {
    const { headers } = await setup();
    const payload = '{"slug":"post","events":[{"type":"click","timeOffset":1e309}],"timeOnPage":1e309}';
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/v1/analytics/track',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': browser },
      payload,
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.deepEqual(
      response.json().details.issues.map((issue: { field: string }) => issue.field),
      ['timeOnPage', 'events.0.timeOffset'],
    );
    const count = await ctx.db.kysely
      .selectFrom('page_view_rows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
  });
});
