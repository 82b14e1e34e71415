// The Docusaurus and Next.js profiles' rules one at a time, on small sites written for each test:
// JavaScript configs read and never run, blog routes and slugs, tags files, Contentlayer's document
// types, the blog starter's detection beside Jekyll, and the SEO fields each starter writes.
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { readContentSource } from '../../../../src/content/import/read-source.ts';

import { githubSlug } from '../../../../src/content/import/sites/nextjs.ts';
import { makeContentFolder, removeContentFolders } from '../../../helpers.ts';
import { article, post, site, warningsOf } from './small-sites.ts';

after(removeContentFolders);

describe('Docusaurus', () => {
  test('the config is read, never run: a computed url is warned config-not-read at its line and left unknown', async () => {
    const config = [
      'const config = {',
      '  url: process.env.SITE_URL,',
      "  baseUrl: '/',",
      "  presets: [['classic', { blog: { routeBasePath: '/' } }]],",
      '};',
      "throw new Error('this config was run');",
      'export default config;',
    ].join('\n');
    const source = await site({
      'docusaurus.config.js': config,
      'blog/2024-01-02-first.md': post(['title: First']),
    });
    assert.equal(source.generator, 'docusaurus');
    assert.deepEqual(warningsOf(source, 'docusaurus.config.js'), ['config-not-read 2']);
    assert.equal(source.settings?.siteUrl, null);
    const first = article(source, 'blog/2024-01-02-first.md');
    assert.equal(first.path, '/2024/01/02/first');
    assert.equal(first.guid, null);
    assert.equal(first.publishedAt, '2024-01-02T00:00:00.000Z');
  });

  test('routeBasePath, the blog path and trailingSlash give the paths; a slug with a leading / stays under the route', async () => {
    const config = [
      'module.exports = {',
      "  url: 'https://d.example',",
      "  baseUrl: '/site/',",
      '  trailingSlash: true,',
      "  presets: [['@docusaurus/preset-classic', { blog: { path: 'posts', routeBasePath: 'news' } }]],",
      '};',
    ].join('\n');
    const source = await site({
      'docusaurus.config.js': config,
      'posts/2024-01-02-a.md': post(['title: A']),
      'posts/2023/05/06/b/index.md': post(['title: B']),
      'posts/c.md': post(['title: C', 'slug: /x/y', 'date: 2024-02-02']),
      'posts/2024-4-2-d.md': post(['title: D']),
      'posts/_partial.md': post(['title: Partial']),
    });
    assert.equal(source.settings?.siteUrl, 'https://d.example/site');
    assert.equal(source.settings?.urlPattern, '/news/:year/:month/:day/:slug/');
    assert.equal(article(source, 'posts/2024-01-02-a.md').path, '/news/2024/01/02/a/');
    assert.equal(article(source, 'posts/2023/05/06/b/index.md').path, '/news/2023/05/06/b/');
    const d = article(source, 'posts/2024-4-2-d.md');
    assert.equal(d.path, '/news/2024/4/2/d/');
    assert.equal(d.publishedAt, '2024-04-02T00:00:00.000Z');
    const c = article(source, 'posts/c.md');
    assert.equal(c.path, '/news/x/y/');
    assert.equal(c.slug, 'y');
    assert.equal(c.guid, 'https://d.example/site/news/x/y/');
    assert.equal(source.files?.find((f) => f.file === 'posts/_partial.md')?.kind, 'skipped');
  });

  test('tags.yml gives names and slugs, an inline tag keeps its name; last_update gives the update date and editor', async () => {
    const source = await site({
      'docusaurus.config.js': "export default { url: 'https://d.example', baseUrl: '/' };",
      'blog/tags.yml': 'rel:\n  label: Releases\n  permalink: /all-releases\n',
      'blog/2024-03-04-a.md': post([
        'title: A',
        'tags: [rel, Ad hoc]',
        'last_update:',
        '  date: 2024-04-01',
        '  author: Rui Costa',
      ]),
    });
    const a = article(source, 'blog/2024-03-04-a.md');
    assert.deepEqual(a.tags, ['Releases', 'Ad hoc']);
    assert.deepEqual(
      source.tags.map((tag) => [tag.name, tag.slug]),
      [
        ['Releases', 'all-releases'],
        ['Ad hoc', null],
      ],
    );
    assert.equal(a.updatedAt, '2024-04-01T00:00:00.000Z');
    assert.deepEqual(a.lastUpdatedBy, { name: 'Rui Costa', image: null });
    assert.deepEqual(warningsOf(source, 'blog/2024-03-04-a.md'), []);
  });

  test('a tag written as { label, permalink } is its label with the permalink as slug; translations and older doc versions are reported, not imported', async () => {
    const source = await site({
      'docusaurus.config.js': "export default { url: 'https://d.example', baseUrl: '/' };",
      'blog/2024-03-04-a.md': post(['title: A', 'tags:', '  - label: Big News', '    permalink: /news']),
      'i18n/fr/docusaurus-plugin-content-blog/2024-03-04-a.md': post(['title: A (fr)']),
      'versioned_docs/version-1.0/intro.md': post(['title: Intro 1.0']),
    });
    // Documentation of an older version is a page, reported, not silently passed over.
    assert.deepEqual(
      source.files?.filter((f) => f.file.startsWith('versioned_docs/')).map((f) => f.kind),
      ['page'],
    );
    assert.deepEqual(article(source, 'blog/2024-03-04-a.md').tags, ['Big News']);
    assert.deepEqual(
      source.tags.map((tag) => [tag.name, tag.slug]),
      [['Big News', 'news']],
    );
    const translation = source.files?.find((f) => f.file.startsWith('i18n/'));
    assert.equal(translation?.kind, 'skipped');
    assert.match(translation?.reason ?? '', /translation/);
  });

  test('with blog: false the blog folder holds no post: its files are reported as skipped, none imported', async () => {
    const source = await site({
      'docusaurus.config.js':
        "export default { url: 'https://d.example', baseUrl: '/', presets: [['classic', { blog: false }]] };",
      'blog/2024-03-04-a.md': post(['title: A']),
      'docs/intro.md': post(['title: Intro']),
    });
    assert.deepEqual(source.articles, []);
    const report = source.files?.find((f) => f.file === 'blog/2024-03-04-a.md');
    assert.equal(report?.kind, 'skipped');
    assert.match(report?.reason ?? '', /blog: false/);
  });

  test('a post with no date field and no dated name is dated by its file (outside Git: its creation time), with a warning', async () => {
    const root = await makeContentFolder({
      'docusaurus.config.js': "export default { url: 'https://d.example', baseUrl: '/' };",
      'blog/undated.md': post(['title: Undated']),
    });
    const born = (await stat(join(root, 'blog', 'undated.md'))).birthtime.toISOString();
    const source = await readContentSource(root);
    const undated = article(source, 'blog/undated.md');
    assert.equal(undated.publishedAt, born);
    assert.equal(undated.path, '/blog/undated');
    assert.deepEqual(warningsOf(source, 'blog/undated.md'), ['date-from-file 1']);
  });

  test('a post without a title field takes its first # heading, which leaves the content', async () => {
    const source = await site({
      'docusaurus.config.js': "export default { url: 'https://d.example', baseUrl: '/' };",
      'blog/2024-03-04-a.md': post(['authors: []'], '# Heading title\n\nText.'),
    });
    const a = article(source, 'blog/2024-03-04-a.md');
    assert.equal(a.title, 'Heading title');
    assert.ok(!a.content.includes('Heading title'), a.content);
  });

  test('an author key that authors.yml lacks is warned unknown-author at its line and kept as a name', async () => {
    const source = await site({
      'docusaurus.config.js': "export default { url: 'https://d.example', baseUrl: '/' };",
      'blog/authors.yml': 'ana:\n  name: Ana Ribeiro\n',
      'blog/2024-03-04-a.md': post(['title: A', 'authors:', '  - ana', '  - bob']),
    });
    const a = article(source, 'blog/2024-03-04-a.md');
    assert.deepEqual(
      a.authors?.map((author) => author.name),
      ['Ana Ribeiro', 'bob'],
    );
    assert.deepEqual(warningsOf(source, 'blog/2024-03-04-a.md'), ['unknown-author 5']);
  });

  test('an MDX excerpt is the text before {/* truncate */}, its import lines and components rendered away', async () => {
    const body = [
      "import Tabs from '@theme/Tabs';",
      '',
      'The <strong>short</strong> version.',
      '',
      '{/* truncate */}',
      '',
      'The rest.',
    ].join('\n');
    const source = await site({
      'docusaurus.config.js': "export default { url: 'https://d.example', baseUrl: '/' };",
      'blog/2024-03-04-a.mdx': post(['title: A'], body),
    });
    const a = article(source, 'blog/2024-03-04-a.mdx');
    assert.equal(a.excerpt, 'The <strong>short</strong> version.');
    assert.ok(!a.content.includes('truncate'), a.content);
    assert.ok(a.content.includes('The rest.'));
  });
});

const CONTENTLAYER = (slugRule: string) =>
  [
    "import { defineDocumentType, makeSource } from 'contentlayer2/source-files';",
    'const computedFields = {',
    `  slug: { type: 'string', resolve: ${slugRule} },`,
    '};',
    'export const Blog = defineDocumentType(() => ({',
    "  name: 'Blog',",
    "  filePathPattern: 'posts/**/*.mdx',",
    '  computedFields,',
    '}));',
    "export default makeSource({ contentDirPath: 'content', documentTypes: [Blog] });",
  ].join('\n');

describe('Next.js', () => {
  test('Contentlayer: the Blog type’s folder under contentDirPath holds the posts; the starter’s slug rule is not warned', async () => {
    const source = await site({
      'contentlayer.config.ts': CONTENTLAYER("(doc) => doc._raw.flattenedPath.replace(/^.+?(\\/)/, '')"),
      'content/siteMetadata.js': "module.exports = { siteUrl: 'https://n.example/', siteLogo: '/logo.png' };",
      'content/posts/notes/a.mdx': post(['title: A', "date: '2024-01-02'"]),
      'content/other.md': post(['title: Other']),
    });
    assert.equal(source.generator, 'nextjs');
    assert.deepEqual(
      source.warnings?.filter((w) => w.kind === 'config-not-read'),
      [],
    );
    assert.equal(source.settings?.logoUrl, 'https://n.example/logo.png');
    const a = article(source, 'content/posts/notes/a.mdx');
    assert.equal(a.path, '/blog/notes/a');
    assert.equal(a.guid, 'https://n.example/blog/notes/a');
    assert.equal(source.files?.find((f) => f.file === 'content/other.md')?.kind, 'skipped');
  });

  test('Contentlayer: an author without a file under data/authors is warned unknown-author at its line', async () => {
    const source = await site({
      'contentlayer.config.ts': CONTENTLAYER("(doc) => doc._raw.flattenedPath.replace(/^.+?(\\/)/, '')"),
      'content/authors/ines.mdx': post(['name: Ines']),
      'content/posts/a.mdx': post(['title: A', "date: '2024-01-02'", "authors: ['ines', 'zoe']"]),
    });
    assert.deepEqual(warningsOf(source, 'content/posts/a.mdx'), ['unknown-author 4']);
  });

  test('Contentlayer: a slug computed by other code is warned config-not-read at its line', async () => {
    const source = await site({
      'contentlayer.config.ts': CONTENTLAYER('(doc) => doc.title.toLowerCase()'),
      'content/posts/a.mdx': post(['title: A', "date: '2024-01-02'"]),
    });
    assert.deepEqual(warningsOf(source, 'contentlayer.config.ts'), ['config-not-read 3']);
  });

  test('the blog starter: _posts beside src/ is Next.js, beside _config.yml Jekyll; without a site URL paths stay relative', async () => {
    const files = {
      'src/lib/api.ts': 'export const x = 1;\n',
      '_posts/hello.md': post([
        'title: Hello',
        "date: '2024-05-01T10:00:00.000Z'",
        'ogImage:',
        '  url: /og/hello.png',
      ]),
    };
    const next = await site(files);
    assert.equal(next.generator, 'nextjs');
    const hello = article(next, '_posts/hello.md');
    assert.equal(hello.path, '/posts/hello');
    assert.equal(hello.guid, null);
    assert.equal(hello.seo?.ogImage, '/og/hello.png');
    assert.deepEqual(warningsOf(next, '_posts'), ['site-url-missing 1']);
    const jekyll = await site({ ...files, '_config.yml': 'title: J\n' });
    assert.equal(jekyll.generator, 'jekyll');
  });

  test('the blog starter: ogImage { url } is the Open Graph image on the site URL; the cover stays its own field', async () => {
    const source = await site(
      {
        'next.config.js': 'module.exports = {};\n',
        '_posts/hello.md': post([
          'title: Hello',
          "date: '2024-05-01T10:00:00.000Z'",
          'coverImage: /c.jpg',
          'ogImage:',
          '  url: /og/hello.png',
        ]),
      },
      { siteUrl: 'https://m.example' },
    );
    const hello = article(source, '_posts/hello.md');
    assert.equal(hello.seo?.ogImage, 'https://m.example/og/hello.png');
    assert.equal(hello.coverImage, 'https://m.example/c.jpg');
    assert.equal(hello.guid, 'https://m.example/posts/hello');
  });

  test('tailwind starter: canonicalUrl is kept in the SEO fields; tags are slugged as github-slugger does', async () => {
    const source = await site({
      'contentlayer.config.ts': CONTENTLAYER("(doc) => doc._raw.flattenedPath.replace(/^.+?(\\/)/, '')"),
      'content/posts/a.mdx': post([
        'title: A',
        "date: '2024-01-02'",
        "tags: ['Next.js', 'C++ tips']",
        'canonicalUrl: https://elsewhere.example/a',
      ]),
    });
    assert.equal(article(source, 'content/posts/a.mdx').seo?.canonicalUrl, 'https://elsewhere.example/a');
    assert.deepEqual(
      source.tags.map((tag) => [tag.name, tag.slug]),
      [
        ['Next.js', 'nextjs'],
        ['C++ tips', 'c-tips'],
      ],
    );
    assert.equal(githubSlug('snake_case'), 'snake-case');
  });
});
