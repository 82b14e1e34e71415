// Pure pieces of the SEO feature: reading stored overrides, base URLs and their resolution, RFC 822
// dates, and the JSON-LD of a row.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ValidationError } from '../../src/errors.ts';
import {
  absoluteUrl,
  articleUrl,
  baseUrlProblem,
  resolveBaseUrl,
  urlSettingsOf,
} from '../../src/seo/base-url.ts';
import { articleJsonLd, parseSeoOverrides, seoMetadata, seoSite } from '../../src/seo/metadata.ts';
import type { MetadataRow } from '../../src/seo/queries.ts';
import { rfc822 } from '../../src/seo/rss.ts';

describe('parseSeoOverrides', () => {
  const none = { metaTitle: null, metaDescription: null, ogImage: null, canonicalUrl: null, keywords: [] };
  test('reads the stored front matter, trimming texts and keywords', () => {
    assert.deepEqual(
      parseSeoOverrides(
        JSON.stringify({
          metaTitle: ' T ',
          metaDescription: 'D',
          ogImage: '/og.png',
          canonicalUrl: 'https://c.example',
          keywords: [' a ', 'b'],
        }),
      ),
      {
        metaTitle: 'T',
        metaDescription: 'D',
        ogImage: '/og.png',
        canonicalUrl: 'https://c.example',
        keywords: ['a', 'b'],
      },
    );
  });
  test('treats null, blank and malformed values as absent instead of failing', () => {
    for (const stored of [
      null,
      '',
      'not json',
      '[]',
      '42',
      'null',
      '"text"',
      '{"metaTitle": 5, "keywords": "a,b"}',
    ]) {
      assert.deepEqual(parseSeoOverrides(stored), none, String(stored));
    }
    assert.deepEqual(parseSeoOverrides('{"metaTitle":"  ","keywords":["", " ", 3, "k"]}'), {
      ...none,
      keywords: ['k'],
    });
  });
  test('never throws, whatever is stored', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.json()), (stored) => void parseSeoOverrides(stored)));
  });
});

describe('base URLs', () => {
  test('resolveBaseUrl: the parameter wins, else the siteUrl; both normalised without trailing slash', () => {
    assert.equal(
      resolveBaseUrl('https://A.example.com/blog/', { site_url: 'https://b.example.com' }),
      'https://a.example.com/blog',
    );
    assert.equal(resolveBaseUrl(undefined, { site_url: 'https://b.example.com/' }), 'https://b.example.com');
    assert.equal(
      resolveBaseUrl('http://xn--bcher-kva.example:8080', { site_url: null }),
      'http://xn--bcher-kva.example:8080',
    );
    assert.equal(
      resolveBaseUrl('https://bücher.example/ä', { site_url: null }),
      'https://xn--bcher-kva.example/%C3%A4',
    );
    assert.equal(
      resolveBaseUrl(' https://blog.example.com ', { site_url: null }),
      'https://blog.example.com',
    );
  });
  test('resolveBaseUrl: a 400 on baseUrl when neither exists or the siteUrl is unusable', () => {
    for (const siteUrl of [null, '', 'ftp://x.example']) {
      assert.throws(
        () => resolveBaseUrl(undefined, { site_url: siteUrl }),
        (error: unknown) => {
          assert.ok(error instanceof ValidationError);
          const issues = error.details?.issues as Array<{ field: string }>;
          assert.deepEqual(
            issues.map((issue) => issue.field),
            ['baseUrl'],
          );
          return true;
        },
      );
    }
  });
  test('baseUrlProblem accepts exactly absolute http(s) URLs without query, fragment or credentials', () => {
    for (const good of ['http://localhost', 'https://blog.example.com/a/b/', 'https://[::1]:3000']) {
      assert.equal(baseUrlProblem(good), null, good);
    }
    for (const bad of [
      '',
      'blog.example.com',
      'mailto:a@b.c',
      'data:text/plain,x',
      'https://a.example?',
      'https://a.example#',
      'https://u@a.example',
    ]) {
      assert.notEqual(baseUrlProblem(bad), null, bad);
    }
  });
  const urlArticle = {
    slug: 'hello-world',
    path: null,
    section: 'posts',
    published_at: '2026-03-31T23:30:00.000Z',
    created_at: '2026-01-01T00:00:00.000Z',
  };
  test('articleUrl is the base URL and /slug under the default pattern', () => {
    const settings = { url_pattern: '/:slug', time_zone: 'UTC' };
    assert.equal(
      articleUrl('https://blog.example.com/posts', settings, urlArticle),
      'https://blog.example.com/posts/hello-world',
    );
  });
  test("articleUrl is the base URL and the article's own path when it has one, percent-encoded", () => {
    const settings = { url_pattern: '/:year/:slug/', time_zone: 'UTC' };
    assert.equal(
      articleUrl('https://blog.example.com/b', settings, { ...urlArticle, path: '/guides/set up/é/' }),
      'https://blog.example.com/b/guides/set%20up/%C3%A9/',
    );
  });
  test("articleUrl fills the project's pattern with dates in its time zone, and reads an unknown time zone as UTC", () => {
    const tokyo = { url_pattern: '/:section/:year/:month/:day/:slug/', time_zone: 'Asia/Tokyo' };
    assert.equal(
      articleUrl('https://blog.example.com', tokyo, urlArticle),
      'https://blog.example.com/posts/2026/04/01/hello-world/',
    );
    const broken = urlSettingsOf({ url_pattern: '/:year/:month/:slug', time_zone: 'Mars/Olympus' });
    assert.equal(broken.time_zone, 'UTC');
    assert.equal(
      articleUrl('https://blog.example.com', broken, urlArticle),
      'https://blog.example.com/2026/03/hello-world',
    );
  });
  test('absoluteUrl resolves relative references and keeps absolute ones', () => {
    const base = 'https://blog.example.com/posts/';
    const cases: Array<[string, string]> = [
      ['/img/a.png', 'https://blog.example.com/img/a.png'],
      ['img/a.png', 'https://blog.example.com/posts/img/a.png'],
      ['../a.png', 'https://blog.example.com/a.png'],
      ['//cdn.example.com/a.png', 'https://cdn.example.com/a.png'],
      ['a b.png', 'https://blog.example.com/posts/a%20b.png'],
      ['https://cdn.example.com/a.png', 'https://cdn.example.com/a.png'],
      ['HTTP://CDN.example.com/A.png', 'HTTP://CDN.example.com/A.png'],
      ['mailto:a@example.com', 'mailto:a@example.com'],
    ];
    for (const [value, expected] of cases) assert.equal(absoluteUrl(value, base), expected, value);
  });
  test('absoluteUrl gives an http(s) URL for every resolvable relative reference, and leaves the rest alone', () => {
    const base = 'https://blog.example.com/posts/';
    fc.assert(
      fc.property(fc.oneof(fc.webPath(), fc.webSegment(), fc.string()), (reference) => {
        const resolved = absoluteUrl(reference, base);
        if (URL.canParse(reference)) assert.equal(resolved, reference);
        else if (URL.canParse(reference, base))
          assert.match(resolved, /^https:\/\/[^/]/, `${reference} → ${resolved}`);
        else assert.equal(resolved, reference, 'unresolvable (such as `//`): unchanged');
      }),
      { numRuns: 500 },
    );
  });
});

describe('rfc822', () => {
  test('writes RFC 822 dates with a four-digit year in GMT', () => {
    assert.equal(rfc822('2026-01-02T03:04:05.678Z'), 'Fri, 02 Jan 2026 03:04:05 GMT');
    assert.equal(rfc822('1999-12-31T23:59:59.999Z'), 'Fri, 31 Dec 1999 23:59:59 GMT');
  });
});

describe('JSON-LD', () => {
  const row: MetadataRow = {
    id: 'id-1',
    slug: 'post',
    title: 'Post',
    excerpt: null,
    cover_image: null,
    published_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-02T00:00:00.000Z',
    author_name: 'Ada',
    author_image: null,
    summary: 'Summary',
    seo: null,
    created_at: '2026-01-01T00:00:00.000Z',
    path: null,
    section: null,
    guid: 'id-1',
    visibility: 'public',
    authors: '[]',
  };
  const urls = { url_pattern: '/:slug', time_zone: 'UTC' };
  const site = seoSite('https://blog.example.com', { name: 'Blog', logo_url: null, ...urls });

  test('articleJsonLd is exactly the structuredData of seoMetadata', () => {
    const rows: MetadataRow[] = [
      row,
      { ...row, cover_image: 'c.png', author_image: '/a.png', excerpt: 'E' },
      {
        ...row,
        seo: JSON.stringify({ ogImage: 'og.png', canonicalUrl: '/c', keywords: ['k'], metaDescription: 'M' }),
      },
      { ...row, published_at: null, summary: '' },
    ];
    for (const candidate of rows) {
      assert.deepEqual(
        articleJsonLd(candidate, ['t'], site),
        seoMetadata(candidate, ['t'], site).structuredData,
      );
    }
  });

  test('the minimal article has only the required members', () => {
    assert.deepEqual(articleJsonLd({ ...row, summary: '', published_at: null }, [], site), {
      '@context': 'https://schema.org',
      '@type': 'Article',
      headline: 'Post',
      author: { '@type': 'Person', name: 'Ada' },
      dateModified: '2026-01-02T00:00:00.000Z',
      url: 'https://blog.example.com/post',
      mainEntityOfPage: { '@type': 'WebPage', '@id': 'https://blog.example.com/post' },
      publisher: { '@type': 'Organization', name: 'Blog' },
    });
  });

  test("the publisher's logo is the project's logo URL, made absolute, and absent without one", () => {
    const minimal = { ...row, summary: '', published_at: null };
    const publisherWith = (logo_url: string | null) =>
      articleJsonLd(minimal, [], seoSite('https://blog.example.com/b', { name: 'Blog', logo_url, ...urls }))
        .publisher;
    assert.deepEqual(publisherWith('https://cdn.example.com/l.svg').logo, {
      '@type': 'ImageObject',
      url: 'https://cdn.example.com/l.svg',
    });
    assert.deepEqual(publisherWith('img/logo.png').logo, {
      '@type': 'ImageObject',
      url: 'https://blog.example.com/b/img/logo.png',
    });
    for (const none of [null, '', '   ', 'javascript:alert(1)']) {
      assert.deepEqual(publisherWith(none), { '@type': 'Organization', name: 'Blog' }, String(none));
    }
  });
});
