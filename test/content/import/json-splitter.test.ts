import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type JsonElement, JsonArticleSplitter } from '../../../src/content/import/json-splitter.ts';

/** The text split in chunks of `size` bytes: its elements and skeleton. */
function split(text: string, size = 7): { elements: JsonElement[]; skeleton: string | null } {
  const elements: JsonElement[] = [];
  const splitter = new JsonArticleSplitter((element) => elements.push(element));
  const bytes = Buffer.from(text);
  for (let start = 0; start < bytes.length; start += size) splitter.push(bytes.subarray(start, start + size));
  return { elements, skeleton: splitter.end() };
}

test('split: every article of any document comes out whole, in chunks of any size, and the skeleton holds the rest', () => {
  fc.assert(
    fc.property(
      fc.array(fc.jsonValue(), { maxLength: 6 }),
      fc.jsonValue(),
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 1, max: 40 }),
      (articles, tags, indent, size) => {
        const text = JSON.stringify({ tags, articles, more: { articles: [1] } }, null, indent);
        const { elements, skeleton } = split(text, size);
        assert.deepEqual(
          elements.map((element) => JSON.parse(element.text!)),
          JSON.parse(JSON.stringify(articles)),
        );
        const rest = JSON.parse(skeleton!);
        assert.deepEqual(rest.tags, JSON.parse(JSON.stringify(tags)) ?? null);
        assert.deepEqual(
          rest.articles,
          articles.map(() => 0),
        );
        assert.deepEqual(rest.more, { articles: [1] });
        // Lines stay where they were.
        assert.equal(skeleton!.split('\n').length, text.split('\n').length);
      },
    ),
  );
});

test('split: lines of each article, of its value and of its own slug key', () => {
  const text = [
    '\uFEFF{',
    '  "articles": [',
    '    {',
    '      "title": "a \\" ] } , slug",',
    '      "nested": { "slug": 1 },',
    '      "slug": "a"',
    '    },',
    '',
    '    "text",',
    '    { "title": "b" }',
    '  ]',
    '}',
  ].join('\n');
  const { elements, skeleton } = split(text, 5);
  assert.deepEqual(
    elements.map(({ index, firstLine, valueLine, slugLine }) => ({ index, firstLine, valueLine, slugLine })),
    [
      { index: 0, firstLine: 2, valueLine: 3, slugLine: 6 },
      { index: 1, firstLine: 7, valueLine: 9, slugLine: null },
      { index: 2, firstLine: 9, valueLine: 10, slugLine: null },
    ],
  );
  assert.deepEqual(JSON.parse(skeleton!), { articles: [0, 0, 0] });
});

test('split: broken JSON is left for JSON.parse to refuse, in an article or in the skeleton', () => {
  for (const text of [
    '{ "articles": [ {"a": 1} {"b": 2} ] }',
    '{ "articles": [ 1,, 2 ] }',
    '{ "articles": [ 1, ] }',
    '{ "articles": [ {"a": 1 ',
    '{ "articles": [ {"a": ] } ] }',
    '{ "articles": [ 1 ] ',
    '{ "articles": [ 1 ] ] }',
  ]) {
    const { elements, skeleton } = split(text);
    const parses = (value: string | null) => {
      try {
        JSON.parse(value!);
        return true;
      } catch {
        return false;
      }
    };
    assert.ok(!(parses(skeleton) && elements.every((element) => parses(element.text))), text);
  }
});

test('split: the articles of a root that is a list, or of a nested key, are not split', () => {
  for (const text of ['[{ "articles": [1, 2] }]', '{ "db": [{ "articles": [1] }] }', '{ "articles": 3 }']) {
    const { elements, skeleton } = split(text);
    assert.equal(elements.length, 0);
    assert.equal(skeleton, text);
  }
});

test('split: bytes that are not UTF-8 in an article, and a NUL byte, are told', () => {
  const elements: JsonElement[] = [];
  const splitter = new JsonArticleSplitter((element) => elements.push(element));
  splitter.push(Buffer.from('{"articles": ["'));
  splitter.push(Uint8Array.from([0xff, 0x22, 0x2c, 0x0a, 0x22, 0x00, 0x22]));
  splitter.push(Buffer.from(']}'));
  splitter.end();
  assert.equal(elements[0].text, null);
  assert.equal(splitter.nulLine, 2);
});
