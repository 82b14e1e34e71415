// GET /v1/seo/rss through the HTTP surface: an RSS 2.0 document read back by a real feed parser
// (rss-parser) and checked by xmllint, with hostile titles and content, sanitised HTML, RFC 822
// dates, the `limit` and `feedUrl` parameters and ETags.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Parser from 'rss-parser';
import { articleInput, createTestProject, describeEachDialect, importArticles } from '../helpers.ts';
import { xmllint, xmlParser } from './xml-tools.ts';

const rssType = 'application/rss+xml; charset=utf-8';
const feedParser = new Parser();
const rfc822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** The feed as every check sees it: xmllint must accept it, then rss-parser and fast-xml-parser read it. */
async function readFeed(body: string) {
  const lint = xmllint(body);
  assert.ok(lint.ok, lint.errors.slice(0, 2000));
  return { feed: await feedParser.parseString(body), tree: xmlParser.parse(body) };
}

describeEachDialect('seo rss', (ctx) => {
  test('rss: an RSS 2.0 feed whose channel and items hold the title, link, description, dates and categories they should', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com/' });
    await importArticles(
      ctx.db,
      project,
      [
        articleInput({
          slug: 'hello',
          title: 'Hello feed',
          excerpt: 'The excerpt is the description',
          author: { name: 'Grace Hopper', image: null },
          tags: ['news', 'Feeds'],
          publishedAt: '2026-01-02T03:04:05.000Z',
          updatedAt: '2026-01-05T00:00:00.000Z',
          content: 'Some **bold** text.\n',
        }),
        articleInput({
          slug: 'older',
          publishedAt: '2025-12-01T00:00:00.000Z',
          updatedAt: '2025-12-01T00:00:00.000Z',
          seo: {
            metaTitle: null,
            metaDescription: 'From front matter',
            ogImage: null,
            canonicalUrl: null,
            keywords: null,
          },
        }),
      ],
      [],
    );
    const response = await ctx.app.inject({ url: '/v1/seo/rss', headers });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], rssType);
    assert.ok(response.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '));
    const { feed, tree } = await readFeed(response.body);
    assert.deepEqual(tree.rss['@version'], '2.0');
    assert.equal(tree.rss['@xmlns:content'], 'http://purl.org/rss/1.0/modules/content/');
    assert.equal(tree.rss['@xmlns:dc'], 'http://purl.org/dc/elements/1.1/');
    assert.equal(tree.rss['@xmlns:atom'], 'http://www.w3.org/2005/Atom');
    assert.equal(feed.title, project.name);
    assert.equal(feed.link, 'https://blog.example.com');
    assert.equal(feed.description, 'A test project');
    assert.equal((feed as any).lastBuildDate, 'Mon, 05 Jan 2026 00:00:00 GMT');
    assert.equal((feed as any).generator, 'Folio');
    assert.equal(feed.feedUrl, undefined, 'no atom:link without feedUrl');
    assert.equal(feed.items.length, 2);
    const [hello, older] = feed.items;
    assert.equal(hello.title, 'Hello feed');
    assert.equal(hello.link, 'https://blog.example.com/hello');
    assert.match(hello.guid!, /^[0-9a-f-]{36}$/);
    assert.equal(tree.rss.channel.item[0].guid['@isPermaLink'], 'false');
    assert.equal(hello.pubDate, 'Fri, 02 Jan 2026 03:04:05 GMT');
    assert.match(hello.pubDate!, rfc822);
    assert.equal(hello.isoDate, '2026-01-02T03:04:05.000Z');
    assert.equal(hello.content, 'The excerpt is the description');
    assert.equal((hello as any)['content:encoded'], '<p>Some <strong>bold</strong> text.</p>\n');
    assert.equal(hello.creator, 'Grace Hopper');
    assert.deepEqual(hello.categories, ['Feeds', 'news']);
    assert.equal(older.content, 'From front matter');
    assert.equal(older.pubDate, 'Mon, 01 Dec 2025 00:00:00 GMT');
    assert.equal(older.categories, undefined);
  });

  test('rss: titles and content holding &, <, ]]>, quotes, emoji and CJK text come back exactly', async () => {
    const { project, headers } = await createTestProject(ctx.db, {
      name: 'Ben & Jerry\'s <"Blog"> ]]>',
      siteUrl: 'https://blog.example.com',
    });
    const title = `Tom & Jerry <script>alert("x")</script> ]]> 'single' "double" 😀👩‍💻 中文标题 日本語 한국어`;
    const content =
      'Text with & and < and > and ]]> and ]]]]><![CDATA[ and "quotes" and \'apostrophes\'.\n\n' +
      '絵文字 😀 and 中文 with &amp; literally.\n\n' +
      '<![CDATA[ raw ]]>\n';
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'hostile',
        title,
        excerpt: 'Excerpt ]]> & <b>not bold</b> 😀 中文',
        author: { name: 'Zoë "Z" <z@example.com>', image: null },
        tags: ['C&C', '<tag>', '中文'],
        content,
      }),
    ]);
    const response = await ctx.app.inject({ url: '/v1/seo/rss', headers });
    const { feed, tree } = await readFeed(response.body);
    assert.equal(feed.title, 'Ben & Jerry\'s <"Blog"> ]]>');
    const [item] = feed.items;
    assert.equal(item.title, title);
    assert.equal(tree.rss.channel.item[0].title, title);
    assert.equal(item.content, 'Excerpt ]]> & <b>not bold</b> 😀 中文');
    assert.equal(item.creator, 'Zoë "Z" <z@example.com>');
    assert.deepEqual(item.categories, ['<tag>', 'C&C', '中文']);
    assert.equal(
      (item as any)['content:encoded'],
      '<p>Text with &amp; and &lt; and &gt; and ]]&gt; and ]]]]&gt;&lt;![CDATA[ and "quotes" and \'apostrophes\'.</p>\n' +
        '<p>絵文字 😀 and 中文 with &amp; literally.</p>\n' +
        // The raw CDATA block is not HTML: the sanitiser drops it, leaving its line break.
        '\n',
    );
  });

  test('rss: control characters and lone surrogates are dropped and the feed still parses', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'controls',
        title: 'Bell\u0007 escape\u001b vt\u000b ff\u000c nonchar\uffff lone\ud800 end',
        excerpt: 'Back\u0008space',
        author: { name: 'Null\u0001 Person', image: null },
        tags: ['tag\u0002'],
        content: 'Para\u0003graph with \udc00 a lone low surrogate and U+FFFE \ufffe.\n',
      }),
    ]);
    const response = await ctx.app.inject({ url: '/v1/seo/rss', headers });
    assert.doesNotMatch(response.body, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/);
    const { feed } = await readFeed(response.body);
    const [item] = feed.items;
    // The database may have stored a lone surrogate as U+FFFD already; either way it is gone.
    const withoutReplacement = (text: string | undefined) => text?.replaceAll('\ufffd', '');
    assert.equal(withoutReplacement(item.title), 'Bell escape vt ff nonchar lone end');
    assert.equal(item.content, 'Backspace');
    assert.equal(item.creator, 'Null Person');
    assert.deepEqual(item.categories, ['tag']);
    assert.equal(
      withoutReplacement((item as any)['content:encoded']),
      '<p>Paragraph with  a lone low surrogate and U+FFFE .</p>\n',
    );
  });

  test('rss: content:encoded has no scripts, handlers, styles or javascript: URLs, and absolute links and images', async () => {
    const { project, headers } = await createTestProject(ctx.db, {
      siteUrl: 'https://blog.example.com/blog',
    });
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'unsafe',
        content:
          'See [the docs](/docs) and [next](next-post) and ![a chart](img/chart.png).\n\n' +
          '<script>steal(document.cookie)</script>\n\n' +
          '<p style="color:red" onclick="steal()">Styled <a href="javascript:steal()">bad link</a> <img src="x.png" onerror="steal()"></p>\n\n' +
          '<style>body{display:none}</style><iframe src="https://evil.example"></iframe>\n',
      }),
    ]);
    const response = await ctx.app.inject({ url: '/v1/seo/rss', headers });
    const { feed } = await readFeed(response.body);
    const html = (feed.items[0] as any)['content:encoded'] as string;
    assert.equal(
      html,
      '<p>See <a href="https://blog.example.com/docs">the docs</a> and <a href="https://blog.example.com/blog/next-post">next</a> and <img src="https://blog.example.com/blog/img/chart.png" alt="a chart" />.</p>\n' +
        // The removed script block leaves only its line break; the style goes, and the iframe
        // becomes a plain link to the page it framed (a feed shows no frames).
        '\n<p>Styled <a>bad link</a> <img src="https://blog.example.com/blog/x.png" /></p>\n' +
        '<p><a href="https://evil.example/">https://evil.example/</a></p>\n',
    );
  });

  test('rss: only published articles, newest first; limit defaults to 20 and takes 1 to 100', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    const published = Array.from({ length: 22 }, (_, i) =>
      articleInput({ slug: `post-${i}`, publishedAt: new Date(Date.UTC(2025, 0, 1 + i)).toISOString() }),
    );
    await importArticles(ctx.db, project, [
      ...published,
      articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'scheduled', publishedAt: '2999-01-01T00:00:00.000Z' }),
      articleInput({ slug: 'archived', status: 'archived', publishedAt: '2026-06-01T00:00:00.000Z' }),
    ]);
    const slugsOf = async (query: string) => {
      const response = await ctx.app.inject({ url: `/v1/seo/rss${query}`, headers });
      assert.equal(response.statusCode, 200, response.body);
      const { feed } = await readFeed(response.body);
      return feed.items.map((item) => item.link!.replace('https://blog.example.com/', ''));
    };
    const newestFirst = Array.from({ length: 22 }, (_, i) => `post-${21 - i}`);
    assert.deepEqual(await slugsOf(''), newestFirst.slice(0, 20));
    assert.deepEqual(await slugsOf('?limit=1'), ['post-21']);
    assert.deepEqual(await slugsOf('?limit=100'), newestFirst);
  });

  test('rss: malformed limit and feedUrl are 400s naming the field; errors stay JSON', async () => {
    const { headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    const limitMessage = 'must be an integer from 1 to 100';
    const cases: Array<[string, string, string]> = [
      ['limit=0', 'limit', limitMessage],
      ['limit=101', 'limit', limitMessage],
      ['limit=-5', 'limit', limitMessage],
      ['limit=2.5', 'limit', limitMessage],
      ['limit=ten', 'limit', limitMessage],
      ['limit=', 'limit', limitMessage],
      [
        'feedUrl=rss.xml',
        'feedUrl',
        'must be an absolute http or https URL such as https://blog.example.com',
      ],
      [
        'feedUrl=javascript%3Aalert(1)',
        'feedUrl',
        'must be an absolute http or https URL such as https://blog.example.com',
      ],
      [
        'feedUrl=https%3A%2F%2Fu%3Ap%40blog.example.com%2Frss',
        'feedUrl',
        'must not hold a user name or password',
      ],
    ];
    for (const [query, field, message] of cases) {
      const response = await ctx.app.inject({ url: `/v1/seo/rss?${query}`, headers });
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      const body = response.json();
      assert.deepEqual(body, {
        error: 'Bad Request',
        message: `${field}: ${message}`,
        statusCode: 400,
        details: { issues: [{ field, message }] },
      });
    }
  });

  test('rss: feedUrl becomes the channel atom:link rel="self"', async () => {
    const { headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    const response = await ctx.app.inject({
      url: `/v1/seo/rss?feedUrl=${encodeURIComponent('https://blog.example.com/feed.xml?lang=en&x="y"')}`,
      headers,
    });
    const { feed, tree } = await readFeed(response.body);
    assert.equal(feed.feedUrl, 'https://blog.example.com/feed.xml?lang=en&x=%22y%22');
    assert.equal(tree.rss.channel['atom:link']['@rel'], 'self');
    assert.equal(tree.rss.channel['atom:link']['@type'], 'application/rss+xml');
  });

  test('rss: a project without published articles gives a channel without items', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    const response = await ctx.app.inject({ url: '/v1/seo/rss', headers });
    assert.equal(response.statusCode, 200);
    const { feed } = await readFeed(response.body);
    assert.deepEqual(feed.items, []);
    assert.equal((feed as any).lastBuildDate, new Date(project.updated_at).toUTCString());
  });

  test('rss: the feed has an ETag and a matching If-None-Match gets 304', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [articleInput({ slug: 'one' })]);
    const first = await ctx.app.inject({ url: '/v1/seo/rss', headers });
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[\w-]+"$/);
    const again = await ctx.app.inject({
      url: '/v1/seo/rss',
      headers: { ...headers, 'if-none-match': etag },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers['content-type'], undefined);
  });
});
