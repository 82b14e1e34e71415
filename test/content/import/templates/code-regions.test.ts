// Where template syntax is code and must stay as written: fenced blocks (backticks or tildes, closed
// only by a fence as long), to the end when never closed, and inline code spans of any backtick count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeRegions } from '../../../../src/content/import/templates/code-regions.ts';

const spans = (text: string) => codeRegions(text).map((region) => text.slice(region.start, region.end));

test('code regions: a tilde fence, and a backtick fence closed only by a fence at least as long', () => {
  const text = '~~~\n{{< a >}}\n~~~\n````md\n```\n{{< b >}}\n````\nafter';
  assert.deepEqual(spans(text), ['~~~\n{{< a >}}\n~~~\n', '````md\n```\n{{< b >}}\n````\n']);
});

test('code regions: a fence never closed runs to the end of the text', () => {
  assert.deepEqual(spans('text\n```\n{% x %}\nmore'), ['```\n{% x %}\nmore']);
});

test('code regions: inline spans match equal backtick runs, not across a blank line', () => {
  const text = 'a ``x ` y`` b `c` d `open\n\nclose`';
  assert.deepEqual(spans(text), ['``x ` y``', '`c`']);
});
