// Embeds as links (seo/embeds.ts): the page each kind of embed links to, and which parts of the
// Markdown may change (raw HTML only, never code).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { embeddedPage, embedsAsLinks } from '../../src/seo/embeds.ts';
import { feedHtml } from '../../src/seo/feed-html.ts';

describe('embeddedPage', () => {
  test('links each embed to the page a reader would open', () => {
    const cases: Array<[string, 'iframe' | 'script', string | null]> = [
      ['https://www.youtube.com/embed/dQw4w9WgXcQ', 'iframe', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
      [
        'https://youtube.com/embed/dQw4w9WgXcQ?start=0',
        'iframe',
        'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      ],
      [
        '//www.youtube-nocookie.com/embed/a-b_c?start=90',
        'iframe',
        'https://www.youtube.com/watch?v=a-b_c&t=90s',
      ],
      [
        'https://www.youtube.com/embed/videoseries?list=PL123',
        'iframe',
        'https://www.youtube.com/playlist?list=PL123',
      ],
      ['https://player.vimeo.com/video/146022717?dnt=1', 'iframe', 'https://vimeo.com/146022717'],
      ['https://player.vimeo.com/video/146022717?h=ab12cd', 'iframe', 'https://vimeo.com/146022717/ab12cd'],
      ['https://gist.github.com/spf13/7896402.js', 'script', 'https://gist.github.com/spf13/7896402'],
      [
        'https://gist.github.com/spf13/7896402.js?file=My%20File.go',
        'script',
        'https://gist.github.com/spf13/7896402#file-my-file-go',
      ],
      ['https://codepen.io/team/embed/preview/abc', 'iframe', 'https://codepen.io/team/embed/preview/abc'],
      // Another script is no page to open: the sanitiser removes it as before.
      ['https://example.com/widget.js', 'script', null],
      ['javascript:alert(1)', 'iframe', null],
      ['data:text/html,<b>x</b>', 'iframe', null],
      ['relative/page.html', 'iframe', null],
    ];
    for (const [src, kind, expected] of cases) assert.equal(embeddedPage(src, kind), expected, src);
  });
});

describe('embedsAsLinks', () => {
  test('leaves Markdown without embeds exactly as it is', () => {
    const markdown = 'Text\r\n\r\n<div>raw</div>\n\n```\ncode\n```\n';
    assert.equal(embedsAsLinks(markdown), markdown);
  });

  test('changes raw HTML only: embeds in fenced, indented and inline code stay', () => {
    const code = [
      '```',
      '<iframe src="https://www.youtube.com/embed/fenced"></iframe>',
      '```',
      '',
      '    <script src="https://gist.github.com/u/indented.js"></script>',
      '',
      'Use `<iframe src="https://www.youtube.com/embed/span"></iframe>` in a page.',
      '',
    ].join('\n');
    assert.equal(embedsAsLinks(code), code);
  });

  test('an embed inside a list item or a quote becomes a link too, and an unknown script is still removed', () => {
    const html = feedHtml(
      '- <iframe src="https://player.vimeo.com/video/1"></iframe>\n\n' +
        '> <iframe src="https://player.vimeo.com/video/2"></iframe>\n\n' +
        '<script src="https://example.com/tracker.js"></script>\n',
      'https://blog.example.com/post/',
    );
    assert.ok(html.includes('<a href="https://vimeo.com/1">https://vimeo.com/1</a>'), html);
    assert.ok(html.includes('<a href="https://vimeo.com/2">https://vimeo.com/2</a>'), html);
    assert.ok(!html.includes('tracker'), html);
  });

  test('an iframe whose src holds quotes or angle brackets cannot break out of the link', () => {
    const html = feedHtml(
      "<iframe src='https://frames.example/p?a=\"><script>x()</script>'></iframe>\n",
      'https://blog.example.com/post/',
    );
    assert.ok(!/<script/i.test(html), html);
    assert.match(
      html,
      /^<p><a href="https:\/\/frames\.example\/p\?a=%22%3E%3Cscript%3Ex\(\)%3C\/script%3E">/,
    );
  });
});
