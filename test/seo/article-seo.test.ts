// GET /v1/seo/article/:slug and GET /v1/seo/structured-data through the HTTP surface: every
// fallbacks (title, description, image, dates), front-matter overrides, absolute URLs, JSON-LD, and the 400/404 answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { articleInput, createTestProject, describeEachDialect, getJson, importArticles } from '../helpers.ts';

const longContent =
  '# Why feeds matter\n\nFeeds let readers follow a blog without an account. They are plain files that any reader understands, and they **never** track anyone. Publishing one costs nothing.\n';
const longSummary =
  'Why feeds matter Feeds let readers follow a blog without an account. They are plain files that any reader understands, and they never track anyone. Publishing…';

const badBaseUrls: Array<[string, string]> = [
  ['not a url', 'must be an absolute http or https URL such as https://blog.example.com'],
  ['', 'must be an absolute http or https URL such as https://blog.example.com'],
  ['ftp://files.example.com', 'must be an absolute http or https URL such as https://blog.example.com'],
  ['javascript:alert(1)', 'must be an absolute http or https URL such as https://blog.example.com'],
  ['/relative/path', 'must be an absolute http or https URL such as https://blog.example.com'],
  ['https://', 'must be an absolute http or https URL such as https://blog.example.com'],
  [
    'https://blog.example.com/?a=1',
    "must not have a query string or a fragment: article URLs are built by appending each article's path",
  ],
  [
    'https://blog.example.com/#top',
    "must not have a query string or a fragment: article URLs are built by appending each article's path",
  ],
  ['https://user:secret@blog.example.com', 'must not hold a user name or password'],
  [`https://blog.example.com/${'a'.repeat(1100)}`, 'must be at most 1024 characters'],
  [`https://blog.example.com/${'a'.repeat(2100)}`, 'must be at most 2048 characters'],
];

const seoEndpoints = [
  '/v1/seo/article/post',
  '/v1/seo/structured-data',
  '/v1/seo/sitemap',
  '/v1/seo/rss',
  '/v1/seo/atom',
  '/v1/seo/feed.json',
];

describeEachDialect('seo article metadata', (ctx) => {
  test('seo/article: without overrides every field falls back to the article fields', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'feeds',
        title: 'Feeds & <you>',
        coverImage: '/images/cover.png',
        tags: ['zeta', 'Alpha'],
        author: { name: 'Ada Lovelace', image: 'people/ada.jpg' },
        publishedAt: '2026-01-02T03:04:05.006Z',
        updatedAt: '2026-01-03T00:00:00.000Z',
        content: longContent,
      }),
    ]);
    const { status, body } = await getJson(ctx.app, '/v1/seo/article/feeds', headers);
    assert.equal(status, 200);
    const id = body.data.id;
    assert.deepEqual(body, {
      data: {
        id,
        title: 'Feeds & <you>',
        slug: 'feeds',
        content: longContent,
        seo: {
          metaTitle: 'Feeds & <you>',
          metaDescription: longSummary,
          ogTitle: 'Feeds & <you>',
          ogDescription: longSummary,
          ogUrl: 'https://blog.example.com/feeds',
          ogImage: 'https://blog.example.com/images/cover.png',
          ogType: 'article',
          twitterCard: 'summary_large_image',
          canonicalUrl: 'https://blog.example.com/feeds',
          keywords: ['Alpha', 'zeta'],
          structuredData: {
            '@context': 'https://schema.org',
            '@type': 'Article',
            headline: 'Feeds & <you>',
            description: longSummary,
            author: {
              '@type': 'Person',
              name: 'Ada Lovelace',
              image: 'https://blog.example.com/people/ada.jpg',
            },
            datePublished: '2026-01-02T03:04:05.006Z',
            dateModified: '2026-01-03T00:00:00.000Z',
            image: 'https://blog.example.com/images/cover.png',
            url: 'https://blog.example.com/feeds',
            mainEntityOfPage: { '@type': 'WebPage', '@id': 'https://blog.example.com/feeds' },
            keywords: ['Alpha', 'zeta'],
            // No logo URL: no publisher logo.
            publisher: { '@type': 'Organization', name: project.name },
          },
        },
        project: { name: project.name, slug: project.slug, description: 'A test project' },
      },
    });
    assert.ok([...longSummary].length <= 160);
  });

  test('seo/article: the seo front matter overrides title, description, image, canonical URL and keywords', async () => {
    const { project, headers } = await createTestProject(ctx.db, {
      siteUrl: 'https://blog.example.com/',
      logoUrl: 'https://cdn.example.com/logo.svg',
    });
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'over',
        excerpt: 'The excerpt',
        coverImage: 'https://cdn.example.com/cover.jpg',
        tags: ['ignored'],
        seo: {
          metaTitle: 'Meta title',
          metaDescription: 'Meta description',
          ogImage: 'og/share.png',
          canonicalUrl: 'https://other.example.org/original',
          keywords: ['one', 'two'],
        },
      }),
    ]);
    const { body } = await getJson(ctx.app, '/v1/seo/article/over', headers);
    const seo = body.data.seo;
    assert.equal(seo.metaTitle, 'Meta title');
    assert.equal(seo.ogTitle, 'Meta title');
    assert.equal(seo.metaDescription, 'Meta description');
    assert.equal(seo.ogDescription, 'Meta description');
    assert.equal(seo.ogImage, 'https://blog.example.com/og/share.png');
    assert.equal(seo.twitterCard, 'summary_large_image');
    assert.equal(seo.canonicalUrl, 'https://other.example.org/original');
    assert.deepEqual(seo.keywords, ['one', 'two']);
    const ld = seo.structuredData;
    assert.equal(ld.headline, 'Title of over', 'the headline is the title, not the meta title');
    assert.equal(ld.description, 'Meta description');
    assert.equal(ld.image, 'https://blog.example.com/og/share.png');
    assert.equal(ld.url, 'https://blog.example.com/over');
    assert.deepEqual(ld.mainEntityOfPage, {
      '@type': 'WebPage',
      '@id': 'https://other.example.org/original',
    });
    assert.deepEqual(ld.keywords, ['one', 'two']);
    assert.deepEqual(ld.publisher.logo, { '@type': 'ImageObject', url: 'https://cdn.example.com/logo.svg' });
  });

  test('seo/article: the excerpt comes before the plain text, and an empty keywords list falls back to tags', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'excerpt',
        excerpt: 'Short excerpt',
        tags: ['b-tag', 'A-tag'],
        seo: {
          metaTitle: null,
          metaDescription: null,
          ogImage: null,
          canonicalUrl: '/canonical/excerpt',
          keywords: [],
        },
      }),
    ]);
    const { body } = await getJson(ctx.app, '/v1/seo/article/excerpt', headers);
    assert.equal(body.data.seo.metaDescription, 'Short excerpt');
    assert.deepEqual(body.data.seo.keywords, ['A-tag', 'b-tag']);
    assert.equal(body.data.seo.canonicalUrl, 'https://blog.example.com/canonical/excerpt');
  });

  test('seo/article: without any image the card is `summary` and no image member is sent', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [articleInput({ slug: 'plain', content: '' })]);
    const { body } = await getJson(ctx.app, '/v1/seo/article/plain', headers);
    const seo = body.data.seo;
    assert.equal(seo.twitterCard, 'summary');
    assert.equal('ogImage' in seo, false);
    assert.equal(seo.metaDescription, '');
    assert.deepEqual(seo.keywords, []);
    assert.deepEqual(Object.keys(seo.structuredData).sort(), [
      '@context',
      '@type',
      'author',
      'dateModified',
      'datePublished',
      'headline',
      'mainEntityOfPage',
      'publisher',
      'url',
    ]);
    assert.deepEqual(seo.structuredData.author, { '@type': 'Person', name: 'Ada' });
  });

  test('seo/article: the JSON-LD headline is the title cut to 110 characters at a word boundary', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'long', title: 'A very long title '.repeat(10).trim() }),
    ]);
    const { body } = await getJson(ctx.app, '/v1/seo/article/long', headers);
    assert.equal(
      body.data.seo.structuredData.headline,
      'A very long title A very long title A very long title A very long title A very long title A very long title A…',
    );
    assert.equal([...body.data.seo.structuredData.headline].length, 110);
    assert.equal(body.data.seo.metaTitle, 'A very long title '.repeat(10).trim());
  });

  test('seo/article: works for drafts, scheduled and archived articles (previews); a draft has no datePublished', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'scheduled', publishedAt: '2999-01-01T00:00:00.000Z' }),
      articleInput({ slug: 'archived', status: 'archived' }),
    ]);
    const draft = await getJson(ctx.app, '/v1/seo/article/draft', headers);
    assert.equal(draft.status, 200);
    assert.equal('datePublished' in draft.body.data.seo.structuredData, false);
    const scheduled = await getJson(ctx.app, '/v1/seo/article/scheduled', headers);
    assert.equal(scheduled.body.data.seo.structuredData.datePublished, '2999-01-01T00:00:00.000Z');
    assert.equal((await getJson(ctx.app, '/v1/seo/article/archived', headers)).status, 200);
  });

  test('seo/article: baseUrl wins over siteUrl, is normalised, and relative URLs resolve under its path', async () => {
    const { project, headers } = await createTestProject(ctx.db, {
      siteUrl: 'https://site.example.com',
      logoUrl: null,
    });
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'based',
        coverImage: 'img/cover.png',
        author: { name: 'Ada', image: '/ada.png' },
      }),
    ]);
    const base = encodeURIComponent('HTTPS://Blog.Example.COM/my blog//');
    const { status, body } = await getJson(ctx.app, `/v1/seo/article/based?baseUrl=${base}`, headers);
    assert.equal(status, 200);
    const seo = body.data.seo;
    assert.equal(seo.canonicalUrl, 'https://blog.example.com/my%20blog/based');
    assert.equal(seo.ogImage, 'https://blog.example.com/my%20blog/img/cover.png');
    assert.equal(seo.structuredData.author.image, 'https://blog.example.com/ada.png');
    // Without a logo URL the publisher has none: no invented siteUrl/logo.png.
    assert.deepEqual(seo.structuredData.publisher, { '@type': 'Organization', name: project.name });
  });

  test("seo/article: unknown slug, another project's slug and a slug with a NUL are 404 with the contract message", async () => {
    const owner = await createTestProject(ctx.db, { siteUrl: 'https://a.example.com' });
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'mine' })]);
    const other = await createTestProject(ctx.db, { siteUrl: 'https://b.example.com' });
    for (const [slug, shown] of [
      ['nope', 'nope'],
      ['mine', 'mine'],
      ['a%00b', 'a\u0000b'],
    ]) {
      const { status, body } = await getJson(ctx.app, `/v1/seo/article/${slug}`, other.headers);
      assert.equal(status, 404);
      assert.deepEqual(body, {
        error: 'Not Found',
        message: `Article '${shown}' not found`,
        statusCode: 404,
      });
    }
  });

  test('every SEO endpoint: no baseUrl and no siteUrl is a 400 naming baseUrl', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [articleInput({ slug: 'post' })]);
    for (const path of seoEndpoints) {
      const { status, body } = await getJson(ctx.app, path, headers);
      assert.equal(status, 400, path);
      const message =
        'is required because the project has no siteUrl: give an absolute http(s) URL such as https://blog.example.com';
      assert.deepEqual(body, {
        error: 'Bad Request',
        message: `baseUrl: ${message}`,
        statusCode: 400,
        details: { issues: [{ field: 'baseUrl', message }] },
      });
    }
  });

  test('every SEO endpoint: a malformed baseUrl is a 400 naming baseUrl, even when the project has a siteUrl', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [articleInput({ slug: 'post' })]);
    for (const path of seoEndpoints) {
      for (const [value, message] of badBaseUrls) {
        const { status, body } = await getJson(
          ctx.app,
          `${path}?baseUrl=${encodeURIComponent(value)}`,
          headers,
        );
        assert.equal(status, 400, `${path} ${value}`);
        assert.deepEqual(body.details, { issues: [{ field: 'baseUrl', message }] }, `${path} ${value}`);
        assert.equal(body.error, 'Bad Request');
      }
      const twice = await getJson(
        ctx.app,
        `${path}?baseUrl=https://a.example.com&baseUrl=https://b.example.com`,
        headers,
      );
      assert.equal(twice.status, 400);
      assert.deepEqual(twice.body.details, { issues: [{ field: 'baseUrl', message: 'must be a string' }] });
    }
  });
});

describeEachDialect('seo structured data', (ctx) => {
  test('structured-data: covers exactly the published articles, newest first, each as seo/article gives it', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'old', publishedAt: '2025-01-01T00:00:00.000Z', tags: ['t'] }),
      articleInput({ slug: 'new', publishedAt: '2026-03-01T00:00:00.000Z' }),
      articleInput({ slug: 'tie-a', publishedAt: '2026-02-01T00:00:00.000Z' }),
      articleInput({ slug: 'tie-b', publishedAt: '2026-02-01T00:00:00.000Z' }),
      articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'scheduled', publishedAt: '2999-01-01T00:00:00.000Z' }),
      articleInput({ slug: 'archived', status: 'archived', publishedAt: '2025-06-01T00:00:00.000Z' }),
    ]);
    const other = await createTestProject(ctx.db, { siteUrl: 'https://other.example.com' });
    await importArticles(ctx.db, other.project, [articleInput({ slug: 'foreign' })]);

    const before = new Date().toISOString();
    const { status, body } = await getJson(ctx.app, '/v1/seo/structured-data', headers);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body.data).sort(), ['articles', 'generatedAt', 'project']);
    assert.deepEqual(body.data.project, {
      name: project.name,
      slug: project.slug,
      description: 'A test project',
    });
    assert.ok(body.data.generatedAt >= before && body.data.generatedAt <= new Date().toISOString());
    const slugs = body.data.articles.map((article: { slug: string }) => article.slug);
    const ties = slugs.slice(1, 3);
    assert.deepEqual([slugs[0], ...ties.sort(), slugs[3]], ['new', 'tie-a', 'tie-b', 'old']);
    assert.equal(slugs.length, 4);
    for (const article of body.data.articles) {
      const single = await getJson(ctx.app, `/v1/seo/article/${article.slug}`, headers);
      assert.deepEqual(article.structuredData, single.body.data.seo.structuredData, article.slug);
    }
    assert.deepEqual(body.data.articles[3].structuredData.keywords, ['t']);
  });

  test('structured-data: a project without published articles has an empty list', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
    ]);
    const { status, body } = await getJson(ctx.app, '/v1/seo/structured-data', headers);
    assert.equal(status, 200);
    assert.deepEqual(body.data.articles, []);
  });

  test('structured-data: carries an ETag and answers a matching If-None-Match with 304', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [articleInput({ slug: 'one' })]);
    const first = await ctx.app.inject({ url: '/v1/seo/structured-data', headers });
    const etag = first.headers.etag as string;
    assert.match(etag, /^W\/"[\w-]+"$/);
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    const again = await ctx.app.inject({
      url: '/v1/seo/structured-data',
      headers: { ...headers, 'if-none-match': etag },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });
});
