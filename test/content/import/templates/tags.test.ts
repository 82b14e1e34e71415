// Liquid and Nunjucks tags beyond the fixtures: raw text in code, whitespace control, variables,
// control flow and unknown tags reported at their line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemplateContext, TemplateDialect } from '../../../../src/content/import/templates/expand.ts';
import { expandTemplates } from '../../../../src/content/import/templates/expand.ts';

function expand(dialect: TemplateDialect, body: string, extra: Partial<TemplateContext> = {}) {
  return expandTemplates(body, {
    file: '_posts/x.md',
    firstBodyLine: 4,
    dialects: [dialect],
    resolveRef: (target) => (target.includes('known') ? '/known/' : null),
    ...extra,
  });
}

const kindsAndLines = (warnings: Array<{ kind?: string; line: number }>) =>
  warnings.map((w) => [w.kind, w.line]);

test('liquid: tags in fenced and inline code are kept, but raw markers there are removed as Jekyll does', () => {
  const body =
    'Write `{{ site.url }}`.\n\n```liquid\n{% raw %}{% if x %}{{ y }}{% endif %}{% endraw %}\n{{ z }}\n```\n';
  const { text, warnings } = expand('liquid', body);
  assert.equal(text, 'Write `{{ site.url }}`.\n\n```liquid\n{% if x %}{{ y }}{% endif %}\n{{ z }}\n```\n');
  assert.deepEqual(warnings, []);
});

test('liquid: whitespace control dashes remove the whitespace on their side', () => {
  const { text } = expand('liquid', 'a  \n{%- assign x = "b" -%}\n  {{ x }}');
  assert.equal(text, 'ab');
});

test('liquid: assign and capture set variables that later outputs and filters read', () => {
  const { text, warnings } = expand(
    'liquid',
    '{% assign name = "ada" %}{% capture greeting %}Hi {{ name | capitalize }}{% endcapture %}{{ greeting | append: "!" }}',
  );
  assert.equal(text, 'Hi Ada!');
  assert.deepEqual(warnings, []);
});

test('liquid: an output reading site data is removed and reported as a template expression at its line', () => {
  const { text, warnings } = expand('liquid', 'Title:\n{{ page.title | upcase }}.');
  assert.equal(text, 'Title:\n.');
  assert.deepEqual(kindsAndLines(warnings), [['template-expression', 5]]);
});

test('liquid: control flow keeps the text inside and reports the opening tag once', () => {
  const { text, warnings } = expand('liquid', '{% if site.beta %}\nBeta\n{% else %}\nStable\n{% endif %}');
  assert.equal(text, '\nBeta\n\nStable\n');
  assert.deepEqual(kindsAndLines(warnings), [['template-logic', 4]]);
});

test('liquid: an unknown paired tag keeps its inner text; an include is reported and removed', () => {
  const { text, warnings } = expand('liquid', '{% callout %}Look{% endcallout %}\n{% include note.html %}');
  assert.equal(text, 'Look\n');
  assert.deepEqual(kindsAndLines(warnings), [
    ['unknown-shortcode', 4],
    ['unknown-shortcode', 5],
  ]);
});

test('liquid: a site tag is reported as a site shortcode; link and post_url with no article as unknown-link', () => {
  const { text, warnings } = expand(
    'liquid',
    '{% gallery %}\n[a]({% link _posts/nope.md %}) [b]({% post_url known %})',
    {
      options: { siteShortcodes: ['gallery'] },
    },
  );
  assert.equal(text, '\n[a](_posts/nope.md) [b](/known/)');
  assert.deepEqual(kindsAndLines(warnings), [
    ['site-shortcode', 4],
    ['unknown-link', 5],
  ]);
});

test('liquid: highlight options are reported as dropped and raw markers inside the code removed', () => {
  const { text, warnings } = expand(
    'liquid',
    '{% highlight html linenos %}\n{% raw %}{{ x }}{% endraw %}\n{% endhighlight %}',
  );
  assert.equal(text, '```html\n{{ x }}\n```');
  assert.deepEqual(kindsAndLines(warnings), [['shortcode-option-dropped', 4]]);
});

test('nunjucks: comments are removed, set blocks and filters with arguments are evaluated', () => {
  const { text, warnings } = expand(
    'nunjucks',
    '{# note to self #}{% set who %}the {{ "LEEKS" | lower }}{% endset %}{{ who | title }} and {{ missing | default("x") }}',
  );
  assert.equal(text, 'The Leeks and ');
  assert.deepEqual(kindsAndLines(warnings), [['template-expression', 4]]);
});

test('nunjucks: the paired syntax-highlight tag takes its language and reports highlighted lines as dropped', () => {
  const { text, warnings } = expand('nunjucks', '{% highlight "js 1,3" %}\nlet a;\n{% endhighlight %}');
  assert.equal(text, '```js\nlet a;\n```');
  assert.deepEqual(kindsAndLines(warnings), [['shortcode-option-dropped', 4]]);
});

test('nunjucks: verbatim keeps its text literally, and a Liquid-only filter is reported', () => {
  const { text, warnings } = expand('nunjucks', '{% verbatim %}{{ a }}{% endverbatim %} {{ "x" | upcase }}');
  assert.equal(text, '{{ a }} ');
  assert.deepEqual(kindsAndLines(warnings), [['template-expression', 4]]);
});

test('liquid: a delimiter that opens no valid tag is reported, but not inside raw text', () => {
  const { warnings } = expand('liquid', '{% raw %}{% oops{% endraw %}\n{% 1 %}');
  assert.deepEqual(kindsAndLines(warnings), [['unknown-shortcode', 5]]);
});

test('liquid: jekyll-gist renders its script tag', () => {
  const { text } = expand('liquid', '{% gist parkr/931c1c8d465a04042403 jekyll-private-gist.markdown %}');
  assert.equal(
    text,
    '<script src="https://gist.github.com/parkr/931c1c8d465a04042403.js?file=jekyll-private-gist.markdown"> </script>',
  );
});

test('liquid: values the reader gives (site.baseurl, page.title) are read by their dotted names', () => {
  const { text, warnings } = expand(
    'liquid',
    '[x]({{ site.baseurl }}{% link known.md %}) {{ page["title"] | upcase }}',
    {
      options: { variables: { 'site.baseurl': '/blog', 'page.title': 'Supper' } },
    },
  );
  assert.equal(text, '[x](/blog/known/) SUPPER');
  assert.deepEqual(warnings, []);
});

test('liquid: a highlight option with a quoted value holding spaces is one dropped option', () => {
  const { text, warnings } = expand('liquid', '{% highlight ruby mark_lines="1 2" %}\nx\n{% endhighlight %}');
  assert.equal(text, '```ruby\nx\n```');
  assert.deepEqual(
    warnings.map((w) => w.message),
    ['highlight option mark_lines="1 2" has no Markdown equivalent; the code block is kept without it'],
  );
});

test('nunjucks: a set the import cannot compute is reported as such, and its later use too', () => {
  const { text, warnings } = expand('nunjucks', '{% set crops = ["leeks"] %}{{ crops | first }}');
  assert.equal(text, '');
  assert.deepEqual(
    warnings.map((w) => w.message),
    [
      'set crops = ["leeks"]: ["leeks"] is not a value the import can compute; removed',
      "{{ crops | first }}: crops is the site's data at build time; removed",
    ],
  );
});

test('liquid: a highlight inside a list item keeps the item, the code as written after its indentation', () => {
  const { text } = expand('liquid', '- Feed:\n  {% highlight ruby %}\nfeed!\n  {% endhighlight %}\n- Wait');
  assert.equal(text, '- Feed:\n  ```ruby\n  feed!\n  ```\n- Wait');
});
