// No input, however malformed, makes a track or statistics endpoint answer a 5xx (a bad request is a 4xx), and
// only the requests answered 201 leave a page view behind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { articleInput, createTestProject, describeEachDialect, getJson, importArticles } from '../helpers.ts';
import { pageViewCount, track, update } from './support.ts';

const contentTypes = [
  'application/json',
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/xml',
  'application/json; charset=latin1',
];
const strings = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('', '\u0000', '\ud800', 'hello', '../x', '%00'),
);
const members = fc.record(
  {
    slug: fc.oneof(strings, fc.constant('hello'), fc.integer()),
    sessionId: strings,
    pageTitle: strings,
    timeOnPage: fc.oneof(fc.double(), fc.integer(), strings, fc.constant(null)),
    scrollDepth: fc.oneof(fc.double({ noNaN: true }), fc.constant(100), fc.constant(null)),
    bounced: fc.oneof(fc.boolean(), fc.constant(null), strings),
    screenWidth: fc.oneof(fc.integer(), fc.double()),
    events: fc.oneof(
      fc.array(
        fc.record(
          { type: strings, element: strings, timeOffset: fc.oneof(fc.double(), strings) },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
      fc.anything(),
    ),
    fetchGeo: fc.oneof(fc.boolean(), fc.anything()),
  },
  { requiredKeys: [] },
);
const bodies = fc.oneof(
  members.map((body) => JSON.stringify(body)),
  fc.json(),
  fc.string(),
  fc.constant('{"slug":"hello","__proto__":{"a":1}}'),
  fc.constant('{"slug": "hello"'),
);

describeEachDialect('analytics: malformed input', (ctx) => {
  test('no body, media type, id or query makes a track endpoint answer a 5xx', async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'hello' })]);
    const existing = (await track(ctx.app, { slug: 'hello' }, { headers: owner.headers })).json()
      .id as string;
    let created = 1;
    await fc.assert(
      fc.asyncProperty(
        bodies,
        fc.constantFrom(...contentTypes),
        fc.constantFrom('POST', 'PUT', 'POST /:id'),
        fc.oneof(fc.constant(existing), fc.string({ maxLength: 40 }).map(encodeURIComponent)),
        async (body, contentType, method, id) => {
          const response =
            method === 'POST'
              ? await track(ctx.app, body, { headers: owner.headers, contentType })
              : await update(ctx.app, id, body, {
                  headers: owner.headers,
                  contentType,
                  method: method === 'PUT' ? 'PUT' : 'POST',
                });
          assert.ok(response.statusCode < 500, `${response.statusCode} ${response.body}`);
          assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
          if (response.statusCode === 201) created++;
        },
      ),
      { numRuns: 150 },
    );
    assert.equal(await pageViewCount(ctx.db, owner.project.id), created);
  });

  test('no query string makes stats or funnel answer a 5xx', async () => {
    const owner = await createTestProject(ctx.db);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('stats', 'funnel'),
        fc.string(),
        fc.string(),
        async (endpoint, days, slug) => {
          const query = `?days=${encodeURIComponent(days)}&slug=${encodeURIComponent(slug)}`;
          const response = await getJson(ctx.app, `/v1/analytics/${endpoint}${query}`, owner.headers);
          assert.ok(
            [200, 400, 404].includes(response.status),
            `${response.status} ${JSON.stringify(response.body)}`,
          );
        },
      ),
      { numRuns: 100 },
    );
  });
});
