// Nothing in an article's fields can inject into a page that embeds Folio's SEO output: JSON-LD is
// script-safe JSON (a title holding `</script>` cannot end the element), and URLs that are not
// http(s) or site paths (`javascript:`, `data:`) never reach canonical, Open Graph, JSON-LD,
// sitemap or RSS links; the import names each such field in a warning.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { parseArticleFile } from '../../src/content/import/markdown-file.ts';
import { isWebLink } from '../../src/content/web-link.ts';
import { scriptSafeJson } from '../../src/seo/script-safe-json.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  importArticles,
  removeContentFolders,
} from '../helpers.ts';

after(removeContentFolders);

const hostileTitle = '</script><script>alert(1)</script> & more';
const hostileUrl = 'javascript:alert(1)';

describe('script-safe JSON and web links (pure)', () => {
  test('scriptSafeJson escapes < > & U+2028 U+2029 and reads back as the same value', () => {
    const values = [
      hostileTitle,
      { a: ['<!--', '-->', '<![CDATA[', ']]>'], '</script>': '&amp;' },
      'plain text, "quoted" \\ backslash \u00e9 \ud83d\ude00',
      [1, null, true, { nested: '<b>' }],
    ];
    for (const value of values) {
      const json = scriptSafeJson(value);
      assert.doesNotMatch(json, /[<>&\u2028\u2029]/, json);
      assert.deepEqual(JSON.parse(json), value);
    }
    assert.equal(scriptSafeJson('</script>'), '"\\u003c/script\\u003e"');
  });

  test('isWebLink takes http(s) URLs and references without a scheme, and no other scheme', () => {
    for (const link of [
      'https://a.example/x.png',
      'http://a.example',
      '/img/a.png',
      'a.png',
      '../a.png',
      '//cdn.example/a.png',
      '#top',
      'HTTPS://A.EXAMPLE/',
    ]) {
      assert.equal(isWebLink(link), true, link);
    }
    for (const link of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'java\tscript:alert(1)',
      'data:image/png;base64,AAAA',
      'vbscript:x',
      'mailto:a@b.c',
      'file:///etc/passwd',
      'ftp://a.example/x',
    ]) {
      assert.equal(isWebLink(link), false, link);
    }
  });
});

describeEachDialect('SEO output of a hostile article', (ctx) => {
  async function hostileBlog() {
    const owner = await createTestProject(ctx.db, {
      siteUrl: 'https://blog.example.com',
      name: 'Blog </script><script>alert(2)</script>',
    });
    await importArticles(ctx.db, owner.project, [
      articleInput({
        slug: 'hostile',
        title: hostileTitle,
        excerpt: 'An excerpt </script> \u2028 <!-- \u2029 here',
        coverImage: 'data:image/svg+xml,<svg onload=alert(4)>',
        author: { name: 'Eve </script>', image: hostileUrl },
        seo: {
          metaTitle: null,
          metaDescription: null,
          ogImage: hostileUrl,
          canonicalUrl: hostileUrl,
          keywords: ['</script>'],
        },
      }),
      articleInput({
        slug: 'relative',
        coverImage: '/img/cover.png',
        seo: {
          metaTitle: null,
          metaDescription: null,
          ogImage: hostileUrl,
          canonicalUrl: '/canonical/relative',
          keywords: [],
        },
      }),
    ]);
    return owner;
  }

  test('article SEO: no raw < > & in the JSON, javascript: URLs dropped, the canonical falls back to the article URL', async () => {
    const { headers } = await hostileBlog();
    const response = await ctx.app.inject({ method: 'GET', url: '/v1/seo/article/hostile', headers });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(response.headers['content-type'] as string, /^application\/json/);
    assert.doesNotMatch(response.body, /[<>&\u2028\u2029]/);
    assert.doesNotMatch(response.body, /javascript:|data:/i);
    const { seo } = response.json().data;
    assert.equal(seo.metaTitle, hostileTitle, 'the value is unchanged once parsed');
    assert.equal(seo.metaDescription, 'An excerpt </script> \u2028 <!-- \u2029 here');
    assert.equal(seo.structuredData.headline, hostileTitle);
    assert.equal(seo.canonicalUrl, 'https://blog.example.com/hostile');
    assert.equal(seo.structuredData.mainEntityOfPage['@id'], 'https://blog.example.com/hostile');
    assert.equal(seo.ogImage, undefined, 'a javascript: ogImage and a data: cover image leave no image');
    assert.equal(seo.twitterCard, 'summary');
    assert.equal(seo.structuredData.image, undefined);
    assert.equal(seo.structuredData.author.image, undefined);
    assert.equal(seo.structuredData.publisher.logo, undefined, 'a project without a logo has none');
  });

  test('article SEO: a rejected ogImage falls back to the cover image, a site-relative canonical is made absolute', async () => {
    const { headers } = await hostileBlog();
    const response = await ctx.app.inject({ method: 'GET', url: '/v1/seo/article/relative', headers });
    const { seo } = response.json().data;
    assert.equal(seo.ogImage, 'https://blog.example.com/img/cover.png');
    assert.equal(seo.canonicalUrl, 'https://blog.example.com/canonical/relative');
  });

  test('structured data, streamed and paged: script-safe, with no javascript: URL', async () => {
    const { headers } = await hostileBlog();
    for (const url of ['/v1/seo/structured-data', '/v1/seo/structured-data?page=1&limit=10']) {
      const response = await ctx.app.inject({ method: 'GET', url, headers });
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
      assert.doesNotMatch(response.body, /[<>&\u2028\u2029]/, url);
      assert.doesNotMatch(response.body, /javascript:|data:/i, url);
      const body = response.json();
      assert.equal(body.data.project.name, 'Blog </script><script>alert(2)</script>');
      const hostile = body.data.articles.find((article: { slug: string }) => article.slug === 'hostile');
      assert.equal(hostile.structuredData.headline, hostileTitle);
      assert.equal(hostile.structuredData.mainEntityOfPage['@id'], 'https://blog.example.com/hostile');
    }
  });

  test('sitemap and feeds: links are the article URLs, never a javascript: URL', async () => {
    const { headers } = await hostileBlog();
    for (const url of [
      '/v1/seo/sitemap',
      '/v1/seo/sitemap?format=json',
      '/v1/seo/rss',
      '/v1/seo/atom',
      '/v1/seo/feed.json',
    ]) {
      const response = await ctx.app.inject({ method: 'GET', url, headers });
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
      assert.doesNotMatch(response.body, /javascript:|data:image/i, url);
      assert.match(response.body, /https:\/\/blog\.example\.com\/hostile/, url);
      assert.doesNotMatch(response.body, /<script>/, url);
    }
  });
});

describe('import: URLs that SEO output leaves out are warned about', () => {
  test('each javascript:/data: URL field is named in a warning with its file and line', () => {
    const text = [
      '---',
      'title: Hostile',
      'coverImage: "data:image/png;base64,AAAA"',
      'author:',
      '  name: Eve',
      '  image: "javascript:alert(1)"',
      'seo:',
      '  ogImage: "javascript:alert(1)"',
      '  canonicalUrl: "JavaScript:alert(1)"',
      '---',
      'Body.',
      '',
    ].join('\n');
    const result = parseArticleFile('posts/hostile.md', text);
    assert.deepEqual(result.problems, []);
    const mine = result.warnings.filter((warning) => /not an http\(s\) URL/.test(warning.message));
    assert.deepEqual(
      mine.map((warning) => [warning.file, warning.line, warning.message.split(' ')[0]]),
      [
        ['posts/hostile.md', 3, 'coverImage'],
        ['posts/hostile.md', 6, 'author.image'],
        ['posts/hostile.md', 8, 'seo.ogImage'],
        ['posts/hostile.md', 9, 'seo.canonicalUrl'],
      ],
    );
    // The values are kept as written; only SEO output leaves them out.
    assert.equal(result.article!.seo!.canonicalUrl, 'JavaScript:alert(1)');
  });

  test('http(s) URLs and site paths give no such warning', () => {
    const text = [
      '---',
      'title: Fine',
      'coverImage: /img/a.png',
      'seo:',
      '  ogImage: https://cdn.example/a.png',
      '  canonicalUrl: /fine',
      '---',
      'Body.',
      '',
    ].join('\n');
    const result = parseArticleFile('fine.md', text);
    assert.deepEqual(
      result.warnings.filter((warning) => /not an http\(s\) URL/.test(warning.message)),
      [],
    );
  });
});
