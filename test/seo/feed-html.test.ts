// The HTML of feed items: Markdown rendered, then cleaned to an allow-list, with relative links
// and images made absolute against the article's URL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { feedHtml } from '../../src/seo/feed-html.ts';

const articleUrl = 'https://blog.example.com/posts/my-article';

describe('feedHtml', () => {
  test('renders Markdown to HTML', () => {
    assert.equal(
      feedHtml('# Title\n\nSome *emphasis*, **strong** and `code`.\n\n- one\n- two\n', articleUrl),
      '<h1>Title</h1>\n<p>Some <em>emphasis</em>, <strong>strong</strong> and <code>code</code>.</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n',
    );
  });

  test('keeps fenced code with its language class, and tables without their styles', () => {
    assert.equal(
      feedHtml('```ts\nconst a = 1 < 2;\n```\n', articleUrl),
      '<pre><code class="language-ts">const a = 1 &lt; 2;\n</code></pre>\n',
    );
    const table = feedHtml('| a | b |\n|---|--:|\n| 1 | 2 |\n', articleUrl);
    assert.match(table, /<table>/);
    assert.match(table, /<td>2<\/td>/);
    assert.doesNotMatch(table, /style/);
  });

  test('removes scripts with their content, and styles, iframes, objects and forms', () => {
    const html = feedHtml(
      'Before\n\n<script>alert("x")</script>\n\n<style>p { color: red }</style>\n\n<iframe src="https://evil.example"></iframe><object data="x.swf"></object><form action="/steal"><input name="a"></form>\n\nAfter <svg onload="alert(1)"><script>alert(2)</script></svg>\n',
      articleUrl,
    );
    assert.doesNotMatch(html, /script|alert|style|color: red|iframe|object|form|input|svg|onload/i);
    assert.match(html, /<p>Before<\/p>/);
    assert.match(html, /After/);
  });

  test('removes event handlers and style attributes', () => {
    const html = feedHtml(
      '<p onclick="steal()" style="position:fixed" class="x">Hi <img src="/a.png" onerror="steal()" style="width:9999px"> <a href="/x" onmouseover="steal()">x</a></p>\n',
      articleUrl,
    );
    assert.equal(
      html,
      '<p>Hi <img src="https://blog.example.com/a.png" /> <a href="https://blog.example.com/x">x</a></p>\n',
    );
  });

  test('removes javascript:, vbscript: and data: URLs however they are spelled', () => {
    const spellings = [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'jav&#x09;ascript:alert(1)',
      '&#106;avascript:alert(1)',
      'javascript&colon;alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    ];
    for (const href of spellings) {
      const html = feedHtml(`<a href="${href}">link</a> <img src="${href}" alt="i">\n`, articleUrl);
      assert.equal(html, '<p><a>link</a> </p>\n', `${href} gave ${html}`);
      // markdown-it refuses most of them and leaves the text; what it does link (a percent-encoded
      // tab makes a harmless relative path) must come out as an https URL of the blog.
      const markdown = feedHtml(
        `[link](${href.replaceAll(' ', '')}) ![i](${href.replaceAll(' ', '')})\n`,
        articleUrl,
      );
      for (const [, url] of markdown.matchAll(/(?:href|src)="([^"]*)"/g)) {
        assert.ok(url.startsWith('https://blog.example.com/'), `${href} in Markdown gave ${markdown}`);
      }
    }
  });

  test('makes relative links and images absolute against the article URL', () => {
    const html = feedHtml(
      '[root](/about) [sibling](other-post) [up](../x) [top](#intro) [query](?page=2) [cdn](//cdn.example.com/a.js)\n\n![alt text](images/pic.png "A title")\n',
      articleUrl,
    );
    assert.equal(
      html,
      '<p><a href="https://blog.example.com/about">root</a> <a href="https://blog.example.com/posts/other-post">sibling</a> <a href="https://blog.example.com/x">up</a> <a href="https://blog.example.com/posts/my-article#intro">top</a> <a href="https://blog.example.com/posts/my-article?page=2">query</a> <a href="https://cdn.example.com/a.js">cdn</a></p>\n<p><img src="https://blog.example.com/posts/images/pic.png" alt="alt text" title="A title" /></p>\n',
    );
  });

  test('keeps absolute http(s), mailto and tel links as they are', () => {
    assert.equal(
      feedHtml('[a](https://example.org/x?y=1&z=2) [m](mailto:me@example.org) [t](tel:+123)\n', articleUrl),
      '<p><a href="https://example.org/x?y=1&amp;z=2">a</a> <a href="mailto:me@example.org">m</a> <a href="tel:+123">t</a></p>\n',
    );
  });

  test('keeps text that looks like markup escaped', () => {
    assert.equal(
      feedHtml('Use `<b>` & "quotes" ]]> 😀 中文\n', articleUrl),
      '<p>Use <code>&lt;b&gt;</code> &amp; "quotes" ]]&gt; 😀 中文</p>\n',
    );
  });
});
