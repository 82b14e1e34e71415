// Whatever a body holds, expansion finishes without throwing (a post must never abort the import) and
// every warning names a line of the body; text without template syntax comes out unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { TemplateDialect } from '../../../../src/content/import/templates/expand.ts';
import { expandTemplates } from '../../../../src/content/import/templates/expand.ts';

const dialects: TemplateDialect[] = ['hugo', 'liquid', 'nunjucks', 'mdx'];

// Fragments of every dialect's syntax, so that random bodies hit half-open and mismatched constructs.
const pieces = [
  '{{<',
  '>}}',
  '{{%',
  '%}}',
  '{{',
  '}}',
  '{%',
  '%}',
  '{#',
  '#}',
  '{',
  '}',
  '<',
  '>',
  '/',
  '/*',
  '*/',
  '"',
  "'",
  '`',
  '```',
  '\n',
  '\n\n',
  ' ',
  '  ',
  'a',
  'B',
  '-',
  '\\',
  '=',
  '|',
  ':::',
  'tip',
  'highlight',
  'endhighlight',
  '/highlight',
  'raw',
  'endraw',
  'figure',
  'youtube',
  'details',
  '/details',
  'set',
  'endset',
  'if',
  'endif',
  'import',
  'export',
  'Tabs',
  'div',
  'className',
];
const bodies = fc.array(fc.constantFrom(...pieces), { maxLength: 50 }).map((parts) => parts.join(''));

function expand(body: string, dialect: TemplateDialect) {
  return expandTemplates(body, {
    file: 'f.md',
    firstBodyLine: 3,
    dialects: [dialect],
    resolveRef: () => null,
  });
}

for (const dialect of dialects) {
  test(`${dialect}: any body expands without throwing, and each warning names a line of the body`, () => {
    fc.assert(
      fc.property(bodies, (body) => {
        const lastLine = 3 + body.split('\n').length - 1;
        const { text, warnings } = expand(body, dialect);
        assert.equal(typeof text, 'string');
        for (const warning of warnings)
          assert.ok(warning.line >= 3 && warning.line <= lastLine, `line ${warning.line}`);
      }),
      { numRuns: 2000 },
    );
  });

  test(`${dialect}: text without template syntax comes out unchanged, with no warning`, () => {
    const plain = fc.string({
      unit: fc.constantFrom('a', 'Z', ' ', '\n', '.', '*', '#', '-', '(', ')', '[', ']', '`'),
    });
    fc.assert(
      fc.property(plain, (body) => {
        assert.deepEqual(expand(body, dialect), { text: body, warnings: [] });
      }),
      { numRuns: 1000 },
    );
  });
}
