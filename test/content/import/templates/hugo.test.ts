// Hugo shortcodes beyond the fixtures: code is left alone, the comment form prints literally, unknown
// paired shortcodes keep their inner text, and warnings say the file line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TemplateContext } from '../../../../src/content/import/templates/expand.ts';
import { expandTemplates } from '../../../../src/content/import/templates/expand.ts';

function hugo(body: string, extra: Partial<TemplateContext> = {}) {
  return expandTemplates(body, {
    file: 'content/posts/x.md',
    firstBodyLine: 5,
    dialects: ['hugo'],
    resolveRef: (target) => (target === 'known' ? 'https://site.example/known/' : null),
    ...extra,
  });
}

test('hugo: shortcodes inside fenced code and inline code are kept as written', () => {
  const body = 'Use `{{< youtube abc >}}` inline.\n\n```md\n{{< figure src="a.jpg" >}}\n```\n';
  const { text, warnings } = hugo(body);
  assert.equal(text, body);
  assert.deepEqual(warnings, []);
});

test('hugo: the comment form prints the shortcode literally, in code and in prose', () => {
  const { text, warnings } = hugo('```\n{{</* youtube abc */>}}\n```\nand {{%/* ref "x" */%}}');
  assert.equal(text, '```\n{{< youtube abc >}}\n```\nand {{% ref "x" %}}');
  assert.deepEqual(warnings, []);
});

test('hugo: an unknown paired shortcode keeps its inner text and is reported at its line', () => {
  const { text, warnings } = hugo('One\n\n{{< note kind="tip" >}}\nKeep **this**.\n{{< /note >}}\n');
  assert.equal(text, 'One\n\n\nKeep **this**.\n\n');
  assert.deepEqual(
    warnings.map((w) => [w.kind, w.line]),
    [['unknown-shortcode', 7]],
  );
});

test('hugo: a shortcode the site defines is reported as a site shortcode, not an unknown one', () => {
  const { text, warnings } = hugo('{{< tideclock port="Porto" >}}', {
    options: { siteShortcodes: ['tideclock'] },
  });
  assert.equal(text, '');
  assert.equal(warnings[0].kind, 'site-shortcode');
});

test('hugo: a ref that matches no article is reported as unknown-link and keeps its target', () => {
  const { text, warnings } = hugo('[a]({{< ref "missing" >}}) [b]({{< relref "known#part" >}})', {
    resolveRef: (target) => (target === 'known' ? '/known/' : null),
  });
  assert.equal(text, '[a](missing) [b](/known/#part)');
  assert.deepEqual(
    warnings.map((w) => [w.kind, w.line]),
    [['unknown-link', 5]],
  );
});

test('hugo: highlight drops the common indentation and picks a fence longer than any backticks in the code', () => {
  const { text } = hugo('{{< highlight md >}}\n    ```js\n      x\n    ```\n{{< /highlight >}}');
  assert.equal(text, '````md\n```js\n  x\n```\n````');
});

test('hugo: highlight written mid-line still becomes a block on lines of its own', () => {
  const { text } = hugo('Code: {{< highlight sh >}}ls{{< /highlight >}} done');
  assert.equal(text, 'Code: \n```sh\nls\n```\n done');
});

test('hugo: youtube without privacy mode uses www.youtube.com; vimeo honours enableDNT', () => {
  const { text } = hugo('{{< youtube abc >}}\n{{< vimeo id=42 class="video" >}}', {
    options: { vimeoDnt: true },
  });
  assert.match(text, /src="https:\/\/www\.youtube\.com\/embed\/abc\?autoplay=0&amp;controls=1/);
  assert.match(
    text,
    /<div class="video"><iframe src="https:\/\/player\.vimeo\.com\/video\/42\?dnt=1" allow="fullscreen">/,
  );
});

test('hugo: figure resolves its src, links it, and renders title and caption as Hugo does', () => {
  const { text } = hugo('{{< figure src="a.jpg" link="/big.jpg" title="T" caption="A *b*" >}}', {
    resolveResource: (src) => `https://site.example/post/${src}`,
  });
  assert.equal(
    text,
    '<figure><a href="/big.jpg"><img src="https://site.example/post/a.jpg" alt="A b"></a><figcaption><h4>T</h4><p>A <em>b</em></p></figcaption></figure>',
  );
});

test('hugo: details renders its inner Markdown inside a details element; comment removes its inner text', () => {
  const { text } = hugo(
    '{{< details summary="More" >}}\n*x*\n{{< /details >}}\n{{< comment >}}secret{{< /comment >}}',
  );
  assert.equal(text, '<details>\n<summary>More</summary>\n\n*x*\n\n</details>\n');
});

test('hugo: a shortcode delimiter that opens no valid call is reported and left as written', () => {
  const { text, warnings } = hugo('Odd {{< "unclosed\n\nnext');
  assert.equal(text, 'Odd {{< "unclosed\n\nnext');
  assert.equal(warnings[0].kind, 'unknown-shortcode');
});

test('hugo: param reads the values the reader gives, and is reported when it has none', () => {
  const { text, warnings } = hugo('By {{< param "author" >}}, {{< param "missing" >}}.', {
    options: { variables: { author: 'Rosa' } },
  });
  assert.equal(text, 'By Rosa, .');
  assert.deepEqual(
    warnings.map((w) => [w.kind, w.line]),
    [['unknown-shortcode', 5]],
  );
});

test('hugo: x and instagram, which Hugo fetches from the network, become links and are reported', () => {
  const { text, warnings } = hugo(
    '{{< x user="SanDiegoZoo" id="1453110110599868418" >}}\n{{< instagram CxOWiQNP2MO >}}',
  );
  assert.equal(
    text,
    '<p><a href="https://x.com/SanDiegoZoo/status/1453110110599868418">https://x.com/SanDiegoZoo/status/1453110110599868418</a></p>\n' +
      '<p><a href="https://www.instagram.com/p/CxOWiQNP2MO/">https://www.instagram.com/p/CxOWiQNP2MO/</a></p>',
  );
  assert.deepEqual(
    warnings.map((w) => [w.kind, w.line]),
    [
      ['embed-as-link', 5],
      ['embed-as-link', 6],
    ],
  );
});

test('hugo: a paired qr is reported as a built-in that cannot be drawn, and its text removed', () => {
  const { text, warnings } = hugo('{{< qr >}}https://example.org{{< /qr >}}');
  assert.equal(text, '');
  assert.match(warnings[0].message, /qr draws its image at build time/);
});

test('hugo: details escapes its attributes and renders its summary as Markdown', () => {
  const { text } = hugo('{{< details summary="*Why*" title="a \\"b\\"" >}}x{{< /details >}}');
  assert.equal(text, '<details title="a &quot;b&quot;">\n<summary><em>Why</em></summary>\n\nx\n\n</details>');
});

test('hugo: highlight options are split on commas only, so hl_lines with spaces is one option', () => {
  const { warnings } = hugo('{{< highlight go "linenos=table,hl_lines=2 3" >}}\nx\n{{< /highlight >}}');
  assert.deepEqual(
    warnings.map((w) => w.message.split(' ')[2]),
    ['linenos=table', 'hl_lines=2'],
  );
});

test('hugo: an inline shortcode, a Go template run at build time, is removed with its body and reported', () => {
  const { text, warnings } = hugo('Now: {{< time.inline >}}{{ now }}{{< /time.inline >}}.');
  assert.equal(text, 'Now: .');
  assert.match(warnings[0].message, /inline shortcode/);
});

test('hugo: a highlight that is never closed is reported as such and removed', () => {
  const { text, warnings } = hugo('{{< highlight go >}}\nx');
  assert.equal(text, '\nx');
  assert.match(warnings[0].message, /highlight has no closing \/highlight/);
});

test('hugo: a highlight inside a list item stays in the item, its lines indented like its tag', () => {
  const { text } = hugo(
    '1. Run it:\n\n   {{< highlight sh >}}\n   ls\n\n   pwd\n   {{< /highlight >}}\n2. Done',
  );
  assert.equal(text, '1. Run it:\n\n   ```sh\n   ls\n\n   pwd\n   ```\n2. Done');
});
