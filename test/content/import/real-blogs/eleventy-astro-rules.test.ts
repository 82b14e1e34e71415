// The Eleventy and Astro profiles' rules one at a time, on small sites written for each test, beyond
// what the two real-blog fixtures exercise: configuration read without running it (and warned where
// a value is computed), Eleventy's date keywords and permalink forms, Astro's older collections, feed
// links and ids, and the shared flow's future-date and exclusion rules these generators need.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { readContentSource } from '../../../../src/content/import/read-source.ts';
import type { ContentSource } from '../../../../src/content/import/records.ts';
import { parseJsModule } from '../../../../src/content/import/sites/js-static.ts';
import { makeContentFolder, removeContentFolders } from '../../../helpers.ts';
import { article, post, site, warningsOf } from './small-sites.ts';

after(removeContentFolders);

const run = promisify(execFile);
const ELEVENTY_CONFIG = `export const config = { dir: { input: 'src' } };\n`;
const BLOG_DATA = `export default { tags: ['posts'] };\n`;

const fileReason = (source: ContentSource, file: string) =>
  source.files?.find((f) => f.file === file)?.reason ?? '';
const fileKind = (source: ContentSource, file: string) =>
  source.files?.find((f) => f.file === file)?.kind ?? '(not reported)';

describe('configuration read as data, never run', () => {
  test('a computed value is warned config-not-read at its line, and the rest of the file is still read', async () => {
    const source = await site({
      'astro.config.mjs': `import { defineConfig } from 'astro/config';\nexport default defineConfig({\n  site: process.env.SITE_URL,\n});\n`,
      'src/content.config.ts': `import { defineCollection, z } from 'astro:content';\nimport { glob } from 'astro/loaders';\nconst blog = defineCollection({ loader: glob({ base: './src/content/blog', pattern: '**/*.md' }) });\nexport const collections = { blog };\n`,
      'src/content/blog/a.md': post(['title: A', 'pubDate: 2024-01-02']),
    });
    assert.equal(source.generator, 'astro');
    assert.deepEqual(warningsOf(source, 'astro.config.mjs'), ['config-not-read 3']);
    assert.equal(source.settings?.siteUrl, null);
    assert.equal(article(source, 'src/content/blog/a.md').path, '/blog/a/');
  });

  test('the config is never executed: code in it does not run', async () => {
    const root = await makeContentFolder({
      'eleventy.config.js': `import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('./ran.txt', import.meta.url), 'ran');\n${ELEVENTY_CONFIG}`,
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/a.md': post(['title: A', 'date: 2024-01-02']),
    });
    const source = await readContentSource(root);
    assert.equal(article(source, 'src/blog/a.md').path, '/blog/a/');
    await assert.rejects(run('cat', [join(root, 'ran.txt')]));
  });

  test('TypeScript with types is read after Node strips them; JavaScript that cannot be parsed is warned', () => {
    const typed = parseJsModule(
      'src/content.config.ts',
      `import type { Loader } from 'astro/loaders';\nconst base: string = 'x';\nexport const collections = {} satisfies Record<string, unknown>;\n`,
    );
    assert.ok('module' in typed);
    const broken = parseJsModule('eleventy.config.js', 'export default {\n  dir: {\n');
    assert.ok('problem' in broken);
    assert.equal(broken.problem.kind, 'config-not-read');
    assert.equal(broken.problem.line, 3);
  });

  test('an older .eleventy.js returning its dir from the config function is read', async () => {
    const source = await site({
      '.eleventy.js': `module.exports = function (eleventyConfig) {\n  return { dir: { input: 'site', output: 'dist' } };\n};\n`,
      'site/posts/posts.json': '{ "tags": "posts" }',
      'site/posts/a.md': post(['title: A', 'date: 2024-01-02']),
    });
    assert.equal(source.generator, 'eleventy');
    assert.equal(article(source, 'site/posts/a.md').path, '/posts/a/');
  });
});

describe('Eleventy', () => {
  test('a computed dir.input is warned and the root is read instead', async () => {
    const source = await site({
      'eleventy.config.js': `export const config = {\n  dir: { input: process.env.INPUT },\n};\n`,
      'blog/blog.11tydata.js': BLOG_DATA,
      'blog/a.md': post(['title: A', 'date: 2024-01-02']),
    });
    assert.deepEqual(warningsOf(source, 'eleventy.config.js'), ['config-not-read 2']);
    assert.equal(article(source, 'blog/a.md').path, '/blog/a/');
  });

  test('Last Modified is the file time, a missing date the creation time, a dated file name the date; each unstable one warned', async () => {
    const root = await makeContentFolder({
      'eleventy.config.js': ELEVENTY_CONFIG,
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/modified.md': post(['title: M', 'date: Last Modified']),
      'src/blog/undated.md': post(['title: U']),
      'src/blog/2023-05-06-named.md': post(['title: N']),
    });
    const time = new Date('2024-04-05T10:00:00Z');
    await utimes(join(root, 'src/blog/modified.md'), time, time);
    const source = await readContentSource(root);
    assert.equal(article(source, 'src/blog/modified.md').publishedAt, '2024-04-05T10:00:00.000Z');
    assert.deepEqual(warningsOf(source, 'src/blog/modified.md'), ['unstable-date 3']);
    assert.ok(article(source, 'src/blog/undated.md').publishedAt);
    assert.deepEqual(warningsOf(source, 'src/blog/undated.md'), ['unstable-date 1']);
    const named = article(source, 'src/blog/2023-05-06-named.md');
    assert.equal(named.publishedAt, '2023-05-06T00:00:00.000Z');
    assert.equal(named.path, '/blog/2023-05-06-named/');
    assert.deepEqual(warningsOf(source, 'src/blog/2023-05-06-named.md'), []);
  });

  test('git Created and git Last Modified are the commits that added and last changed the file', async () => {
    const root = await makeContentFolder({
      'eleventy.config.js': ELEVENTY_CONFIG,
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/a.md': post(['title: A', 'date: git Created']),
      'src/blog/b.md': post(['title: B', 'date: git Last Modified']),
    });
    const git = (args: string[], date: string) =>
      run('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.org', ...args], {
        cwd: root,
        env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      });
    await git(['init', '-q'], '2020-01-01T00:00:00Z');
    await git(['add', '.'], '2020-01-01T00:00:00Z');
    await git(['commit', '-qm', 'first'], '2021-02-03T04:05:06Z');
    await run('sh', ['-c', 'echo More. >> src/blog/b.md'], { cwd: root });
    await git(['commit', '-qam', 'second'], '2022-03-04T05:06:07Z');
    const source = await readContentSource(root);
    assert.equal(article(source, 'src/blog/a.md').publishedAt, '2021-02-03T04:05:06.000Z');
    assert.equal(article(source, 'src/blog/b.md').publishedAt, '2022-03-04T05:06:07.000Z');
    assert.deepEqual(warningsOf(source, 'src/blog/a.md'), ['unstable-date 3']);
  });

  test('permalink templates with page.fileSlug are filled; another value is warned and the default path kept', async () => {
    const source = await site({
      'eleventy.config.js': ELEVENTY_CONFIG,
      'src/blog/blog.11tydata.js': `export default { tags: 'posts', permalink: '/p/{{ page.fileSlug }}/' };\n`,
      'src/blog/a.md': post(['title: A', 'date: 2024-01-02']),
      'src/blog/b.md': post(['title: B', 'date: 2024-01-02', 'permalink: "/{{ page.date | date }}/b/"']),
      'src/blog/c/index.md': post(['title: C', 'date: 2024-01-02', 'permalink: /c/index.html']),
    });
    assert.equal(article(source, 'src/blog/a.md').path, '/p/a/');
    assert.equal(article(source, 'src/blog/b.md').path, '/blog/b/');
    assert.deepEqual(warningsOf(source, 'src/blog/b.md'), ['permalink-template 4']);
    assert.equal(article(source, 'src/blog/c/index.md').path, '/c/');
  });

  test('tags: a string is one tag, and the collection’s name is not kept as a tag', async () => {
    const source = await site({
      'eleventy.config.js': ELEVENTY_CONFIG,
      'src/a.md': post(['title: A', 'date: 2024-01-02', 'tags: [posts, Seed Saving]']),
      'src/b.md': post(['title: B', 'date: 2024-01-02', 'tags: posts']),
      'src/c.md': post(['title: C', 'date: 2024-01-02', 'tags: Seed Saving']),
    });
    assert.deepEqual(article(source, 'src/a.md').tags, ['Seed Saving']);
    assert.deepEqual(article(source, 'src/b.md').tags, []);
    assert.equal(fileKind(source, 'src/c.md'), 'page');
    assert.equal(source.settings?.urlPattern, null);
  });

  test('without a drafts preprocessor `draft: true` means nothing to Eleventy: published, and the field warned', async () => {
    const source = await site({
      'eleventy.config.js': ELEVENTY_CONFIG,
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/a.md': post(['title: A', 'date: 2024-01-02', 'draft: true']),
    });
    assert.equal(article(source, 'src/blog/a.md').status, 'published');
    assert.deepEqual(warningsOf(source, 'src/blog/a.md'), ['ignored-field 4']);
  });

  test('excluded from the posts collection by name: imported as a draft, warned on its line, no author given', async () => {
    const source = await site({
      'eleventy.config.js': ELEVENTY_CONFIG,
      'src/_data/metadata.json': '{ "url": "https://e.example/", "author": { "name": "Jun" } }',
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/a.md': post(['title: A', 'date: 2024-01-02', 'eleventyExcludeFromCollections: [posts]']),
    });
    assert.equal(fileKind(source, 'src/blog/a.md'), 'excluded');
    const a = article(source, 'src/blog/a.md');
    assert.equal(a.status, 'draft');
    assert.deepEqual(a.authors, []);
    assert.deepEqual(warningsOf(source, 'src/blog/a.md'), ['unlisted 4']);
    assert.equal(source.settings?.siteUrl, 'https://e.example');
  });

  test('a template listed in .eleventyignore is reported as left out, not imported', async () => {
    const source = await site({
      'eleventy.config.js': ELEVENTY_CONFIG,
      '.eleventyignore': '# notes\nsrc/blog/notes/\n./src/blog/*.draft.md\n',
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/notes/a.md': post(['title: A', 'date: 2024-01-02']),
      'src/blog/b.draft.md': post(['title: B', 'date: 2024-01-02']),
      'src/blog/c.md': post(['title: C', 'date: 2024-01-02']),
    });
    assert.deepEqual(
      source.articles.map((a) => a.file),
      ['src/blog/c.md'],
    );
    assert.match(
      fileReason(source, 'src/blog/notes/a.md'),
      /^listed in \.eleventyignore \(src\/blog\/notes\)/,
    );
    assert.equal(fileKind(source, 'src/blog/b.draft.md'), 'skipped');
  });

  test('a future date is published by Eleventy at once: Folio schedules it and warns on the date’s line', async () => {
    const source = await site({
      'eleventy.config.js': ELEVENTY_CONFIG,
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/a.md': post(['title: A', 'date: 2099-01-02']),
    });
    assert.equal(fileKind(source, 'src/blog/a.md'), 'post');
    assert.deepEqual(warningsOf(source, 'src/blog/a.md'), ['future-date 3']);
  });

  test('---js front matter: its declarations are the data (a draft of the base blog), a function left out', async () => {
    const source = await site({
      'eleventy.config.js': `${ELEVENTY_CONFIG}export default function (c) {\n  c.addPreprocessor('drafts', '*', (data) => { if (data.draft) return false; });\n}\n`,
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/a.md':
        '---js\nconst title = "A";\nconst date = "2023-01-23";\nconst draft = true;\nconst helper = () => 1;\n---\nBody.\n',
      'src/blog/b.md': '---js\n{ title: "B", date: "2023-01-24", tags: ["x"] }\n---\nBody.\n',
    });
    const a = article(source, 'src/blog/a.md');
    assert.equal(a.title, 'A');
    assert.equal(a.status, 'draft');
    assert.equal(a.publishedAt, '2023-01-23T00:00:00.000Z');
    assert.equal(article(source, 'src/blog/b.md').title, 'B');
    assert.deepEqual(article(source, 'src/blog/b.md').tags, ['x']);
  });

  test('a folder’s data file makes its templates drafts, or excludes them, as front matter would', async () => {
    const source = await site({
      'eleventy.config.js': `export default function (c) {\n  c.addPreprocessor('drafts', '*', (data) => { if (data.draft) return false; });\n}\n${ELEVENTY_CONFIG}`,
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/drafts/drafts.11tydata.json': '{ "draft": true, "layout": "post.njk" }',
      'src/blog/drafts/a.md': post(['title: A', 'date: 2024-01-02']),
      'src/blog/hidden/hidden.json': '{ "eleventyExcludeFromCollections": true }',
      'src/blog/hidden/b.md': post(['title: B', 'date: 2024-01-02']),
    });
    assert.equal(fileKind(source, 'src/blog/drafts/a.md'), 'draft');
    assert.equal(fileKind(source, 'src/blog/hidden/b.md'), 'excluded');
    // Values the data files give are not the file's own fields: nothing to warn about on its lines.
    assert.deepEqual(warningsOf(source, 'src/blog/drafts/a.md'), []);
  });

  test('templates without front matter and paginated ones are pages, each with its reason', async () => {
    const source = await site({
      'eleventy.config.js': ELEVENTY_CONFIG,
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/untitled.md': 'No front matter.\n',
      'src/tags.njk': '<h1>Tags</h1>\n',
      'src/tag-pages.njk':
        '---\npagination:\n  data: collections\n  size: 1\npermalink: /tags/{{ tag | slugify }}/\n---\nx\n',
    });
    const reason = (file: string) => source.files?.find((f) => f.file === file)?.reason ?? '';
    assert.match(
      reason('src/blog/untitled.md'),
      /^tagged posts by its folder's data but without front matter/,
    );
    assert.equal(reason('src/tags.njk'), 'outside src/blog: not tagged posts');
    assert.match(reason('src/tag-pages.njk'), /^a paginated template/);
    assert.deepEqual(source.warnings, []);
  });

  test('with the image transform, a relative image is reported as published under another name, not as missing', async () => {
    const source = await site({
      'eleventy.config.js': `import { eleventyImageTransformPlugin } from '@11ty/eleventy-img';\nexport default function (c) { c.addPlugin(eleventyImageTransformPlugin); }\n${ELEVENTY_CONFIG}`,
      'src/blog/blog.11tydata.js': BLOG_DATA,
      'src/blog/a/a.md': post(['title: A', 'date: 2024-01-02'], '![A possum](./possum.png)'),
      'src/blog/a/possum.png': 'png',
    });
    assert.deepEqual(warningsOf(source, 'src/blog/a/a.md'), ['asset-not-public 6']);
    assert.match(fileReason(source, 'src/blog/a/possum.png'), /^an image for the image transform/);
  });

  test('an Eleventy site holding a _posts folder is still read as Eleventy', async () => {
    const source = await site({
      'eleventy.config.js': 'export default function () {}\n',
      'package.json': '{}',
      '_posts/_posts.11tydata.js': BLOG_DATA,
      '_posts/a.md': post(['title: A', 'date: 2024-01-02']),
    });
    assert.equal(source.generator, 'eleventy');
    assert.equal(article(source, '_posts/a.md').path, '/_posts/a/');
    // The config and the package file are the site's code, not its content.
    assert.deepEqual(
      source.files?.map((f) => f.file),
      ['_posts/_posts.11tydata.js', '_posts/a.md'],
    );
  });
});

describe('Astro', () => {
  const CONFIG = `export default { site: 'https://a.example' };\n`;
  const COLLECTIONS = `const blog = defineCollection({ loader: glob({ base: './src/content/blog', pattern: '**/*.md' }) });\nexport const collections = { blog };\n`;

  test('the feed title from an imported constant names the project, which an entry without authors gets', async () => {
    const source = await site({
      'astro.config.mjs': CONFIG,
      'src/content.config.ts': COLLECTIONS,
      'src/consts.ts': `export const SITE_TITLE: string = 'Orbit';\n`,
      'src/pages/rss.xml.js': `import { SITE_TITLE } from '../consts';\nexport const GET = () => rss({ title: SITE_TITLE, items: posts.map((post) => ({ link: \`/blog/\${post.id}/\` })) });\n`,
      'src/content/blog/a.md': post(['title: A', 'pubDate: 2024-01-02'], '![Dish](./dish.jpg)'),
      'src/content/blog/dish.jpg': 'jpg',
    });
    const a = article(source, 'src/content/blog/a.md');
    assert.deepEqual(
      a.authors?.map((author) => author.name),
      ['Orbit'],
    );
    assert.equal(source.settings?.defaultAuthor, null);
    // Astro publishes a relative Markdown image under a hashed name: reported, not passed as fine.
    assert.deepEqual(warningsOf(source, 'src/content/blog/a.md'), ['default-author 1', 'asset-not-public 6']);
  });

  test('older src/content/config.ts collections: entries under src/content/<name>, segments slugged, index dropped', async () => {
    const source = await site({
      'astro.config.mjs': CONFIG,
      'src/content/config.ts': `import { defineCollection, z } from 'astro:content';\nexport const collections = { posts: defineCollection({ type: 'content' }) };\n`,
      'src/content/posts/My Trip.md': post(['title: T', 'pubDate: 2024-01-02']),
      'src/content/posts/guides/index.md': post(['title: G', 'pubDate: 2024-01-02']),
      'src/content/notes/n.md': post(['title: N']),
      'src/pages/posts/[...slug].astro': '---\n---\n',
    });
    assert.equal(article(source, 'src/content/posts/My Trip.md').path, '/posts/my-trip/');
    assert.equal(article(source, 'src/content/posts/guides/index.md').path, '/posts/guides/');
    assert.equal(fileKind(source, 'src/content/notes/n.md'), 'skipped');
    assert.equal(fileKind(source, 'src/pages/posts/[...slug].astro'), 'skipped');
    // No feed: the dynamic route gives the paths, and the report says they are inferred.
    assert.deepEqual(
      (source.warnings ?? []).map((w) => `${w.kind} ${w.file}`),
      ['url-pattern-approximated src/pages/posts/[...slug].astro'],
    );
  });

  test('a feed link built with + gives the pattern, the guid is the absolute link, a glob’s negated pattern leaves files out', async () => {
    const source = await site({
      'astro.config.mjs': `export default { site: 'https://a.example', base: '/docs' };\n`,
      'src/content.config.ts': `const blog = defineCollection({ loader: glob({ base: 'content/posts', pattern: ['*.md', '!_*.md'] }) });\nexport const collections = { blog };\n`,
      'content/posts/a.md': post(['title: A', 'pubDate: 2024-01-02']),
      'content/posts/_b.md': post(['title: B', 'pubDate: 2024-01-02']),
      'src/pages/feed.xml.ts': `export const GET = async () => rss({ items: (await getCollection('blog')).map((p) => ({ link: '/writing/' + p.id })) });\n`,
    });
    assert.equal(source.settings?.siteUrl, 'https://a.example/docs');
    const a = article(source, 'content/posts/a.md');
    assert.equal(a.path, '/writing/a');
    assert.equal(a.guid, 'https://a.example/docs/writing/a');
    // A negated pattern leaves the file out of the collection.
    assert.equal(source.articles.length, 1);
    assert.match(fileReason(source, 'content/posts/_b.md'), /left out by its glob pattern/);
  });

  test('without a getCollection filter reading it, `draft: true` is published by Astro and warned', async () => {
    const source = await site({
      'astro.config.mjs': CONFIG,
      'src/content.config.ts': `const blog = defineCollection({ loader: glob({ base: './src/content/blog', pattern: '**/*.md' }) });\nexport const collections = { blog };\n`,
      'src/content/blog/a.md': post(['title: A', 'pubDate: 2024-01-02', 'draft: true']),
      'src/pages/rss.xml.js':
        'export const GET = () => rss({ items: posts.map((post) => ({ link: `/blog/${post.id}/` })) });\n',
    });
    assert.equal(article(source, 'src/content/blog/a.md').status, 'published');
    assert.deepEqual(warningsOf(source, 'src/content/blog/a.md'), ['ignored-field 4']);
  });

  test('an ISO date-time without an offset is ambiguous for Astro; one with an offset and a bare date are not', async () => {
    const source = await site({
      'astro.config.mjs': CONFIG,
      'src/content.config.ts': `const blog = defineCollection({ loader: glob({ base: './src/content/blog', pattern: '**/*.md' }) });\nexport const collections = { blog };\n`,
      'src/content/blog/a.md': post([
        'title: A',
        "pubDate: '2024-01-02T10:00:00'",
        "updatedDate: '2024-01-03T10:00:00+01:00'",
      ]),
      'src/content/blog/b.md': post(['title: B', 'pubDate: 2024-01-02']),
    });
    assert.deepEqual(warningsOf(source, 'src/content/blog/a.md'), ['ambiguous-date 3']);
    assert.equal(article(source, 'src/content/blog/a.md').publishedAt, '2024-01-02T10:00:00.000Z');
    assert.deepEqual(warningsOf(source, 'src/content/blog/b.md'), []);
  });
});
