// The ids of Atom entries and JSON Feed items: the RSS guid written as an IRI, the same for the
// same guid, and always an IRI a feed validator accepts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { feedItemId } from '../../src/seo/feed-ids.ts';

const host = 'blog.example.com';

test('feed ids: a guid that is already an absolute IRI is kept exactly', () => {
  for (const guid of [
    'https://old.example.com/moved/',
    'http://old.example.com/?p=123',
    'https://例え.jp/記事/1',
    'urn:uuid:0F9B0F5E-8C7B-4B8E-9C55-1D2E3F4A5B6C',
    'tag:old.example.com,2019:post-1',
    'urn:isbn:0451450523',
  ]) {
    assert.equal(feedItemId(guid, host), guid);
  }
});

test('feed ids: a UUID (a Folio id) becomes urn:uuid in lower case', () => {
  assert.equal(
    feedItemId('0F9B0F5E-8C7B-4B8E-9C55-1D2E3F4A5B6C', host),
    'urn:uuid:0f9b0f5e-8c7b-4b8e-9c55-1d2e3f4a5b6c',
  );
  assert.equal(
    feedItemId(' 0f9b0f5e-8c7b-4b8e-9c55-1d2e3f4a5b6c\n', host),
    'urn:uuid:0f9b0f5e-8c7b-4b8e-9c55-1d2e3f4a5b6c',
  );
});

test('feed ids: anything else becomes a tag URI of the host, percent-encoded where a tag URI needs it', () => {
  const cases: Array<[string, string]> = [
    ['5f3a1b2c3d4e5f6a7b8c9d0e', 'tag:blog.example.com,2026:5f3a1b2c3d4e5f6a7b8c9d0e'],
    ['my-post', 'tag:blog.example.com,2026:my-post'],
    ['a b/é?c', 'tag:blog.example.com,2026:a%20b/%C3%A9?c'],
    ['100%', 'tag:blog.example.com,2026:100%25'],
    ['<x>"{}|\\^`#', 'tag:blog.example.com,2026:%3Cx%3E%22%7B%7D%7C%5C%5E%60%23'],
    ['https://has space.example/', 'tag:blog.example.com,2026:https://has%20space.example/'],
    ['2024:post', 'tag:blog.example.com,2026:2024:post'],
    ['lone \ud800 surrogate', 'tag:blog.example.com,2026:lone%20%EF%BF%BD%20surrogate'],
    // XML cannot carry a lone surrogate or U+FFFF: kept, the Atom id would lose it and differ.
    ['x:\ud800', 'tag:blog.example.com,2026:x:%EF%BF%BD'],
    ['x:\uffff', 'tag:blog.example.com,2026:x:%EF%BF%BF'],
  ];
  for (const [guid, id] of cases) assert.equal(feedItemId(guid, host), id, guid);
});

test('feed ids: every guid gives an absolute IRI without characters an IRI cannot hold, the same each time', () => {
  const iri =
    /^[A-Za-z][A-Za-z0-9+.-]*:(?:[^\s<>"{}|\\^`\u0000-\u001F\u007F-\u009F%\uD800-\uDFFF\uFFFE\uFFFF]|%[0-9A-F]{2})+$/iu;
  fc.assert(
    fc.property(fc.string({ unit: 'binary', minLength: 1 }), (guid) => {
      fc.pre(guid.trim() !== '');
      const id = feedItemId(guid, host);
      assert.match(id, iri);
      assert.equal(feedItemId(guid, host), id);
    }),
    { numRuns: 2000 },
  );
});

test('feed ids: two guids that are not IRIs never share an id', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (a, b) => {
      fc.pre(a.trim() !== b.trim() && !a.includes(':') && !b.includes(':'));
      assert.notEqual(feedItemId(a, host), feedItemId(b, host));
    }),
    { numRuns: 2000 },
  );
});
