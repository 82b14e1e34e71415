// Whatever the query string or slug, the SEO endpoints answer 200, 400 naming known fields, or 404:
// never a 500. Arbitrary values, malformed percent-encodings and NULs included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { articleInput, createTestProject, describeEachDialect, importArticles } from '../helpers.ts';

/** Percent-encodes every UTF-8 byte but unreserved ASCII (a lone surrogate becomes U+FFFD). */
function encode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const rawPieces = fc.constantFrom(
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '%FF',
  '%C0%AF',
  '+',
  '&',
  '=',
  '[]',
  '%5B%5D',
);
const value = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }).map(encode),
  fc.integer({ min: -5, max: 2_000_000 }).map(String),
  fc.webUrl().map(encode),
  fc
    .array(fc.oneof(rawPieces, fc.string({ maxLength: 4 }).map(encode)), { maxLength: 6 })
    .map((parts) => parts.join('')),
);
const parameter = fc.tuple(fc.constantFrom('baseUrl', 'page', 'limit', 'format', 'feedUrl', 'other'), value);
const queryString = fc
  .array(parameter, { maxLength: 4 })
  .map((pairs) => pairs.map(([name, v]) => `${name}=${v}`).join('&'));
const path = fc.oneof(
  fc.constantFrom(
    '/v1/seo/structured-data',
    '/v1/seo/sitemap',
    '/v1/seo/rss',
    '/v1/seo/atom',
    '/v1/seo/feed.json',
    '/v1/seo/article/post',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map((slug) => `/v1/seo/article/${encode(slug)}`),
);

const knownFields = new Set([
  'baseUrl',
  'page',
  'limit',
  'format',
  'feedUrl',
  'slug',
  'path',
  'request',
  'querystring',
]);

describeEachDialect('seo bad input', (ctx) => {
  test('no query string or slug makes an SEO endpoint answer 500; every 400 names its fields', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'post', title: 'A & <b>', content: 'x\u0001y' }),
    ]);
    await fc.assert(
      fc.asyncProperty(path, queryString, async (route, query) => {
        const response = await ctx.app.inject({ url: query === '' ? route : `${route}?${query}`, headers });
        assert.ok(
          [200, 400, 404].includes(response.statusCode),
          `${route}?${query} → ${response.statusCode} ${response.body}`,
        );
        if (response.statusCode !== 200) {
          assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
          const body = response.json();
          assert.equal(body.statusCode, response.statusCode);
          if (response.statusCode === 400) {
            assert.ok(body.details.issues.length > 0);
            for (const issue of body.details.issues) {
              // A name the query made up (`&` and `=` in values split it) is refused by name.
              const unknown = issue.message.startsWith('is not a known parameter');
              assert.ok(knownFields.has(issue.field) || unknown, issue.field);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
