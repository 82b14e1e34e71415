// The XML escaping module: exact outputs for the special characters, dropping of what XML 1.0
// cannot carry, and the round-trip property checked by a parser and by xmllint.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { xmlAttribute, xmlCharacters, xmlText } from '../../src/seo/xml.ts';
import { xmllint, xmlParser } from './xml-tools.ts';

describe('xmlText', () => {
  const cases: Array<[string, string]> = [
    ['', ''],
    ['plain text', 'plain text'],
    ['a & b', 'a &amp; b'],
    ['<script>', '&lt;script&gt;'],
    ['x ]]> y', 'x ]]&gt; y'],
    [`"double" 'single'`, '&quot;double&quot; &apos;single&apos;'],
    ['&amp; stays text', '&amp;amp; stays text'],
    ['&#65;', '&amp;#65;'],
    ['tab\tnew\nline', 'tab\tnew\nline'],
    ['cr\r\nlf', 'cr&#xD;\nlf'],
    ['😀 中文 한국어 カタカナ', '😀 中文 한국어 カタカナ'],
    ['\u0085 \u2028 \u007f', '\u0085 \u2028 \u007f'],
    ['nul\u0000 bell\u0007 vt\u000b ff\u000c esc\u001b', 'nul bell vt ff esc'],
    ['\ufffe\uffff', ''],
    ['\ufffd stays', '\ufffd stays'],
    ['lone high \ud800 end', 'lone high  end'],
    ['lone low \udc00 end', 'lone low  end'],
    ['reversed \udc00\ud800 pair', 'reversed  pair'],
    ['high at end \ud83d', 'high at end '],
    ['pair 😀 kept \ud83d\ude00', 'pair 😀 kept 😀'],
    [
      'U+1FFFE \u{1fffe} and U+10FFFF \u{10ffff} are XML characters',
      'U+1FFFE \u{1fffe} and U+10FFFF \u{10ffff} are XML characters',
    ],
  ];
  for (const [input, expected] of cases) {
    test(`xmlText(${JSON.stringify(input)}) is ${JSON.stringify(expected)}`, () => {
      assert.equal(xmlText(input), expected);
    });
  }
});

describe('xmlAttribute', () => {
  test('escapes the five specials and writes tab, newline and carriage return as references', () => {
    assert.equal(xmlAttribute(`a&b<c>d"e'f\tg\nh\ri`), 'a&amp;b&lt;c&gt;d&quot;e&apos;f&#x9;g&#xA;h&#xD;i');
  });
  test('drops control characters, non-characters and lone surrogates like xmlText', () => {
    assert.equal(xmlAttribute('x\u0001\u001f\uffff\ud800y\udfffz'), 'xyz');
  });
});

describe('xmlCharacters', () => {
  test('removes only what XML 1.0 cannot carry', () => {
    assert.equal(xmlCharacters('a\u0000b\tc\nd\re\ud800f&<>'), 'ab\tc\nd\ref&<>');
  });
});

// Strings rich in what is hard for XML, mixed with arbitrary code points (lone surrogates included).
const awkward = fc.constantFrom(
  '&',
  '<',
  '>',
  '"',
  "'",
  ']]>',
  '&amp;',
  '&#x26;',
  '\r',
  '\n',
  '\r\n',
  '\t',
  ' ',
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u0085',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ufffe',
  '\uffff',
  '😀',
  '中文',
  '<![CDATA[',
  '<?xml',
  '<!--',
);
const hardStrings = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .array(fc.oneof(awkward, fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 30 })
    .map((parts) => parts.join('')),
);

const forbidden =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('escaping properties', () => {
  test('any string escaped into an element and an attribute parses back to itself minus the dropped characters', () => {
    fc.assert(
      fc.property(hardStrings, (input) => {
        const parsed = xmlParser.parse(`<r><a x="${xmlAttribute(input)}">${xmlText(input)}</a></r>`);
        const expected = xmlCharacters(input);
        assert.equal(parsed.r.a['#text'] ?? '', expected);
        assert.equal(parsed.r.a['@x'], expected);
      }),
      { numRuns: 2000 },
    );
  });

  test('escaped output never holds a markup character or a character XML 1.0 forbids', () => {
    fc.assert(
      fc.property(hardStrings, (input) => {
        for (const output of [xmlText(input), xmlAttribute(input)]) {
          assert.doesNotMatch(output, /[<>"']/);
          assert.doesNotMatch(output, /&(?!(amp|lt|gt|quot|apos|#xD|#xA|#x9);)/);
          assert.doesNotMatch(output, forbidden);
        }
        assert.doesNotMatch(xmlAttribute(input), /[\t\n\r]/);
      }),
      { numRuns: 2000 },
    );
  });

  test('xmllint accepts a document of a thousand escaped arbitrary strings', () => {
    const samples = fc.sample(hardStrings, { numRuns: 1000, seed: 42 });
    const body = samples.map(
      (text) => `<a x="${xmlAttribute(text)}" y='${xmlAttribute(text)}'>${xmlText(text)}</a>`,
    );
    const lint = xmllint(`<?xml version="1.0" encoding="UTF-8"?>\n<r>${body.join('\n')}</r>\n`);
    assert.ok(lint.ok, lint.errors.slice(0, 2000));
  });

  test('xmllint rejects the same strings unescaped: the check can fail', () => {
    assert.equal(xmllint('<r>\u0001</r>').ok, false);
    assert.equal(xmllint('<r>a & b</r>').ok, false);
    assert.equal(xmllint('<r x="a"b"/>').ok, false);
  });
});
