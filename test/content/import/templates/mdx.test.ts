// MDX beyond the fixtures: plain-HTML JSX kept as HTML, components and expressions reported at their
// line, ESM dropped, code left alone, Docusaurus admonitions kept as HTML around their Markdown.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandTemplates } from '../../../../src/content/import/templates/expand.ts';

function mdx(body: string) {
  return expandTemplates(body, {
    file: 'data/blog/x.mdx',
    firstBodyLine: 8,
    dialects: ['mdx'],
    resolveRef: () => null,
  });
}

const kindsAndLines = (warnings: Array<{ kind?: string; line: number }>) =>
  warnings.map((w) => [w.kind, w.line]);

// The shapes of the Next.js tailwind starter's posts (the fixture's data/blog files are described by its
// expected.json): className JSX, a self-closed span, a site component and pliny's TOCInline.
test('mdx: JSX that is plain HTML becomes HTML, className as class and a self-closed span closed', () => {
  const body = [
    "import IconGrid from '@/components/IconGrid'",
    "import TOCInline from 'pliny/ui/TOCInline'",
    '',
    '<div className="flex gap-2">',
    '  <span className="h-6 w-6 rounded bg-red-500" />',
    '  <img src="/static/images/picker.png" alt="Picker" width={320} hidden={true} draggable={false} />',
    '</div>',
    '',
    '<IconGrid icons={icons} />',
    '',
    '<TOCInline toc={props.toc} exclude="Overview" />',
  ].join('\n');
  const { text, warnings } = mdx(body);
  assert.equal(
    text,
    [
      '',
      '<div class="flex gap-2">',
      '  <span class="h-6 w-6 rounded bg-red-500"></span>',
      '  <img src="/static/images/picker.png" alt="Picker" width="320" hidden />',
      '</div>',
      '',
      '',
      '',
      '',
    ].join('\n'),
  );
  assert.deepEqual(kindsAndLines(warnings), [
    ['mdx-component', 16],
    ['mdx-component', 18],
  ]);
});

test('mdx: an attribute holding an expression or a spread is reported and removed, the element kept', () => {
  const { text, warnings } = mdx('<a href={url} {...rest} title={"Home"}>Home</a>');
  assert.equal(text, '<a title="Home">Home</a>');
  assert.deepEqual(kindsAndLines(warnings), [
    ['mdx-expression', 8],
    ['mdx-expression', 8],
  ]);
});

test('mdx: multi-line ESM blocks are dropped up to the blank line that ends them', () => {
  const { text } = mdx("export const meta = {\n  title: 'x',\n}\n\nText after.");
  assert.equal(text, '\nText after.');
});

test('mdx: braces, tags and import lines inside code are kept as written', () => {
  const body = '```jsx\nimport X from "x";\n<Tabs>{value}</Tabs>\n```\n\nInline `<Foo />` and `{x}`.';
  const { text, warnings } = mdx(body);
  assert.equal(text, body);
  assert.deepEqual(warnings, []);
});

test('mdx: comments are removed; the truncate comment becomes the Markdown truncate marker', () => {
  const { text, warnings } = mdx('A{/* note */}B\n\n{/* truncate */}\n\nC');
  assert.equal(text, 'AB\n\n<!-- truncate -->\n\nC');
  assert.deepEqual(warnings, []);
});

test('mdx: fragments vanish without a report; escaped braces stay', () => {
  const { text, warnings } = mdx('<>\nHello \\{name\\}\n</>');
  assert.equal(text, '\nHello \\{name\\}\n');
  assert.deepEqual(warnings, []);
});

test('mdx: a component spanning lines is reported at its first line and its children kept', () => {
  const { text, warnings } = mdx('One\n\n<Callout\n  type="warning"\n>\n**Careful.**\n</Callout>');
  assert.equal(text, 'One\n\n\n**Careful.**\n');
  assert.deepEqual(kindsAndLines(warnings), [['mdx-component', 10]]);
});

test('mdx: Docusaurus admonitions become a titled div around their Markdown, nested ones too', () => {
  const body = ':::tip[Try **this**]\n\nOuter\n\n::::note\nInner\n::::\n\n:::\n\n```md\n:::danger\n```';
  const { text } = mdx(body);
  assert.equal(
    text,
    [
      '<div class="admonition admonition-tip">',
      '<p class="admonition-title">Try <strong>this</strong></p>',
      '',
      '',
      'Outer',
      '',
      '<div class="admonition admonition-note">',
      '<p class="admonition-title">Note</p>',
      '',
      'Inner',
      '',
      '</div>',
      '',
      '',
      '</div>',
      '',
      '```md',
      ':::danger',
      '```',
    ].join('\n'),
  );
});

test('mdx: text that is not JSX (a lone "<" or an unclosed brace) is kept as written', () => {
  const { text, warnings } = mdx('a < b and 3<4 and {unclosed');
  assert.equal(text, 'a < b and 3<4 and {unclosed');
  assert.deepEqual(warnings, []);
});

test('mdx: string and number literals in braces are JSX text and are kept without a report', () => {
  const { text, warnings } = mdx('Hello{\' \'}<b>world</b>{"!"} {3}');
  assert.equal(text, 'Hello <b>world</b>! 3');
  assert.deepEqual(warnings, []);
});

test('mdx: a style object of literal values becomes CSS, numbers in pixels where React adds them', () => {
  const { text, warnings } = mdx(
    "<div style={{ textAlign: 'center', maxWidth: 300, opacity: 0.5, '--gap': '2px' }}>x</div>",
  );
  assert.equal(text, '<div style="text-align: center; max-width: 300px; opacity: 0.5; --gap: 2px">x</div>');
  assert.deepEqual(warnings, []);
});

test('mdx: a style object computed at run time is reported and removed', () => {
  const { text, warnings } = mdx('<div style={{ width: size }}>x</div>');
  assert.equal(text, '<div>x</div>');
  assert.deepEqual(kindsAndLines(warnings), [['mdx-expression', 8]]);
});

test('mdx: attribute strings are escaped for HTML, entities already written kept as they are', () => {
  const { text } = mdx('<abbr title="Fish &amp; chips & &quot;peas&quot;">F&C</abbr>');
  assert.equal(text, '<abbr title="Fish &amp; chips &amp; &quot;peas&quot;">F&C</abbr>');
});
