// The site pipeline's rules one at a time, on small sites written for each test: detection and
// --format, dates in the site's zone, fields used or warned, paths, slugs, drafts and exclusions,
// excerpts and images, beyond what the real-blog fixtures exercise.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { parseDate } from '../../../../src/content/import/dates.ts';
import { readContentSource } from '../../../../src/content/import/read-source.ts';
import { ImportValidationError } from '../../../../src/content/import/records.ts';
import { makeContentFolder, removeContentFolders } from '../../../helpers.ts';
import { article, post, site, warningsOf } from './small-sites.ts';

after(removeContentFolders);

const HUGO_CONFIG = "baseURL = 'https://h.example/'\ntimeZone = 'Europe/Lisbon'\n";

describe('detection and --format', () => {
  test('hugo.toml with content/ is Hugo, _config.yml is Jekyll, anything else is Folio’s folder', async () => {
    const hugo = await site({
      'hugo.toml': HUGO_CONFIG,
      'content/posts/a.md': post(['title: A', 'date: 2024-01-01']),
    });
    assert.equal(hugo.generator, 'hugo');
    const jekyll = await site({ '_config.yml': 'title: J\n', '_posts/2024-01-01-a.md': post(['title: A']) });
    assert.equal(jekyll.generator, 'jekyll');
    const folio = await site({ 'posts/a.md': post(['title: A', 'publishedAt: 2024-01-01']) });
    assert.equal(folio.generator, undefined);
    assert.equal(folio.files, undefined);
  });

  test('--format folio reads a Hugo site as Folio’s folder; --format jekyll reads a site without _config.yml', async () => {
    const files = { 'hugo.toml': HUGO_CONFIG, 'content/posts/a.md': post(['title: A', 'date: 2024-01-01']) };
    const asFolio = await site(files, { format: 'folio' });
    assert.equal(asFolio.generator, undefined);
    assert.equal(asFolio.articles[0].path ?? null, null);
    const jekyll = await site({ 'notes/_posts/2024-03-02-b.md': post(['title: B']) }, { format: 'jekyll' });
    assert.equal(jekyll.generator, 'jekyll');
    assert.equal(article(jekyll, 'notes/_posts/2024-03-02-b.md').path, '/notes/2024/03/02/b.html');
  });

  test('an unknown --format is refused with the list of format names', async () => {
    const root = await makeContentFolder({ 'a.md': post(['title: A']) });
    await assert.rejects(readContentSource(root, { format: 'wordpress' }), (error: unknown) => {
      assert.ok(error instanceof ImportValidationError);
      assert.match(error.message, /unknown format "wordpress": use one of folio, /);
      for (const name of ['eleventy', 'hugo', 'jekyll'])
        assert.match(error.message, new RegExp(`\\b${name}\\b`));
      return true;
    });
  });
});

describe('dates in the site’s time zone', () => {
  test('a wall time is read in the zone on either side of a change of offset; an offset in the value wins', () => {
    assert.equal(parseDate('2024-11-02 12:00:00', 'America/Chicago'), '2024-11-02T17:00:00.000Z');
    assert.equal(parseDate('2024-11-04 12:00:00', 'America/Chicago'), '2024-11-04T18:00:00.000Z');
    assert.equal(parseDate('2024-07-01T09:00:00+02:00', 'America/Chicago'), '2024-07-01T07:00:00.000Z');
    assert.equal(parseDate('2024-07-01T09:00:00'), '2024-07-01T09:00:00.000Z');
  });

  test('Hugo: a TOML local date-time is read in timeZone, and the path’s month is Lisbon’s', async () => {
    const source = await site({
      'hugo.toml': `${HUGO_CONFIG}[permalinks]\n  posts = '/:year/:month/:slug/'\n`,
      'content/posts/a.md': "+++\ntitle = 'New year'\ndate = 2025-01-01T00:30:00\n+++\nBody.\n",
    });
    const a = article(source, 'content/posts/a.md');
    assert.equal(a.publishedAt, '2025-01-01T00:30:00.000Z');
    assert.equal(a.path, '/2025/01/new-year/');
  });

  test('a time zone the config names wrongly is a site warning, and dates are read in UTC', async () => {
    const source = await site({
      'hugo.toml': "baseURL = 'https://h.example/'\ntimeZone = 'Mars/Olympus'\n",
      'content/posts/a.md': post(['title: A', 'date: 2024-01-01T10:00:00']),
    });
    assert.deepEqual(warningsOf(source, 'hugo.toml'), ['invalid-time-zone 2']);
    assert.equal(source.settings?.timeZone, null);
    assert.equal(article(source, 'content/posts/a.md').publishedAt, '2024-01-01T10:00:00.000Z');
  });
});

describe('front-matter fields', () => {
  test('a field no rule uses, or a theme’s, is warned as ignored-field on its line; --strict refuses both', async () => {
    const files = {
      'hugo.toml': HUGO_CONFIG,
      'content/posts/a.md': post(['title: A', 'date: 2024-01-01', 'mood: sunny', 'weight: 3', 'author: Ann']),
    };
    const source = await site(files);
    assert.deepEqual(warningsOf(source, 'content/posts/a.md'), ['ignored-field 4', 'ignored-field 5']);
    await assert.rejects(site(files, { strict: true }), (error: unknown) => {
      assert.ok(error instanceof ImportValidationError);
      assert.deepEqual(
        error.problems.map((p) => `${p.file}:${p.line}`),
        ['content/posts/a.md:4', 'content/posts/a.md:5'],
      );
      return true;
    });
  });

  test('--strict refuses a site whose only findings are warnings (a default author, an unknown shortcode)', async () => {
    const files = {
      'hugo.toml': `${HUGO_CONFIG}[params]\n  author = 'Site Owner'\n`,
      'content/posts/a.md': post(['title: A', 'date: 2024-01-01'], '{{< tideclock >}}'),
    };
    assert.equal((await site(files)).articles.length, 1);
    await assert.rejects(site(files, { strict: true }), (error: unknown) => {
      assert.ok(error instanceof ImportValidationError);
      assert.deepEqual(
        error.problems.map((p) => `${p.kind} ${p.line}`),
        ['default-author 1', 'unknown-shortcode 6'],
      );
      return true;
    });
  });

  test('Hugo keys are case-insensitive; a second name of one field is warned as ignored', async () => {
    const source = await site({
      'hugo.toml': HUGO_CONFIG,
      'content/posts/a.md': post([
        'Title: A',
        'Date: 2024-01-01T10:00:00Z',
        'publishDate: 2024-02-01',
        'author: Ann',
      ]),
    });
    const a = article(source, 'content/posts/a.md');
    assert.equal(a.title, 'A');
    assert.equal(a.publishedAt, '2024-01-01T10:00:00.000Z');
    assert.deepEqual(warningsOf(source, 'content/posts/a.md'), ['ignored-field 4']);
  });

  test('authors: a list of names and objects with their pictures, in order; author-file keys in Jekyll', async () => {
    const hugo = await site({
      'hugo.toml': HUGO_CONFIG,
      'content/posts/a.md': post([
        'title: A',
        'date: 2024-01-01',
        'authors:',
        '  - Ann Lee',
        '  - { name: Bo, avatar: /img/bo.png }',
      ]),
    });
    assert.deepEqual(article(hugo, 'content/posts/a.md').authors, [
      { name: 'Ann Lee', slug: 'ann-lee', image: null, title: null, url: null },
      { name: 'Bo', slug: 'bo', image: 'https://h.example/img/bo.png', title: null, url: null },
    ]);
    const jekyll = await site({
      '_config.yml': 'url: https://j.example\n',
      '_data/authors.yml': 'ann:\n  name: Ann Lee\n  avatar: https://i.example/ann.png\n',
      '_posts/2024-01-01-a.md': post(['title: A', 'author: ann']),
    });
    const a = article(jekyll, '_posts/2024-01-01-a.md');
    assert.deepEqual(a.author, { name: 'Ann Lee', image: 'https://i.example/ann.png' });
    assert.deepEqual(warningsOf(jekyll, '_posts/2024-01-01-a.md'), []);
  });

  test('without an author and without a site author, no author is invented and nothing is warned at reading', async () => {
    const source = await site({
      'hugo.toml': HUGO_CONFIG,
      'content/posts/a.md': post(['title: A', 'date: 2024-01-01']),
    });
    assert.deepEqual(article(source, 'content/posts/a.md').authors, []);
    assert.deepEqual(warningsOf(source, 'content/posts/a.md'), []);
  });
});

describe('paths and slugs', () => {
  test('Hugo without permalinks: the section and file name; `slug` replaces only the last segment', async () => {
    const source = await site({
      'hugo.toml': HUGO_CONFIG,
      'content/posts/first.md': post(['title: First', 'date: 2024-01-01', 'author: A']),
      'content/posts/second.md': post(['title: Second', 'slug: my-second', 'date: 2024-01-02', 'author: A']),
    });
    assert.equal(article(source, 'content/posts/first.md').path, '/posts/first/');
    const second = article(source, 'content/posts/second.md');
    assert.equal(second.path, '/posts/my-second/');
    assert.equal(second.slug, 'my-second');
    assert.equal(second.guid, 'https://h.example/posts/my-second/');
    assert.equal(source.settings?.urlPattern, null);
  });

  test('two articles whose paths end alike are refused, naming both files', async () => {
    const root = await makeContentFolder({
      'hugo.toml': `${HUGO_CONFIG}[permalinks]\n  posts = '/:slug/'\n`,
      'content/posts/a.md': post(['title: Same name', 'date: 2024-01-01', 'author: A']),
      'content/posts/b.md': post(['title: Same Name', 'date: 2024-01-02', 'author: A']),
    });
    await assert.rejects(readContentSource(root), (error: unknown) => {
      assert.ok(error instanceof ImportValidationError);
      assert.match(
        error.message,
        /content\/posts\/a\.md:2: duplicate slug "same-name": also used by content\/posts\/b\.md/,
      );
      assert.match(
        error.message,
        /content\/posts\/b\.md:2: duplicate slug "same-name": also used by content\/posts\/a\.md/,
      );
      return true;
    });
  });

  test('Jekyll pretty permalinks: paths end in /, categories from folders and front matter, pattern approximated', async () => {
    const source = await site({
      '_config.yml': 'url: https://j.example\npermalink: pretty\n',
      'food/_posts/2024-05-06-soup.md': post(['title: Soup', 'categories: [Winter]']),
    });
    const soup = article(source, 'food/_posts/2024-05-06-soup.md');
    assert.equal(soup.path, '/food/winter/2024/05/06/soup/');
    assert.equal(soup.guid, 'https://j.example/food/winter/2024/05/06/soup');
    assert.deepEqual(soup.tags, ['Winter']);
    assert.equal(source.settings?.urlPattern, '/:year/:month/:day/:slug/');
    assert.deepEqual(warningsOf(source, '_config.yml'), ['url-pattern-approximated 2']);
  });

  test('Jekyll: a Markdown file without front matter is a static file, and a _posts file without a date is skipped', async () => {
    const source = await site({
      '_config.yml': 'title: J\n',
      'README.md': '# Notes for me\n',
      '_posts/no-date.md': post(['title: X']),
      '_posts/2024-01-01-a.md': post(['title: A']),
    });
    const report = Object.fromEntries((source.files ?? []).map((f) => [f.file, f.kind]));
    assert.deepEqual(report, {
      'README.md': 'skipped',
      '_posts/no-date.md': 'skipped',
      '_posts/2024-01-01-a.md': 'post',
    });
  });
});

describe('drafts, exclusions and excerpts', () => {
  test('Hugo build.list never is excluded: a draft warned unlisted; a passed expiryDate is a draft', async () => {
    const source = await site({
      'hugo.toml': HUGO_CONFIG,
      'content/posts/hidden.md': post([
        'title: Hidden',
        'date: 2024-01-01',
        'author: A',
        'build:',
        '  list: never',
      ]),
      'content/posts/old.md': post(['title: Old', 'date: 2020-01-01', 'expiryDate: 2021-01-01', 'author: A']),
    });
    const kinds = Object.fromEntries((source.files ?? []).map((f) => [f.file, f.kind]));
    assert.equal(kinds['content/posts/hidden.md'], 'excluded');
    assert.equal(kinds['content/posts/old.md'], 'draft');
    assert.equal(article(source, 'content/posts/hidden.md').status, 'draft');
    assert.equal(article(source, 'content/posts/old.md').status, 'draft');
    assert.deepEqual(warningsOf(source, 'content/posts/hidden.md'), ['unlisted 1']);
  });

  test('Jekyll: the default divider is a blank line (the first paragraph), and a front-matter excerpt wins', async () => {
    const source = await site({
      '_config.yml': 'title: J\n',
      '_posts/2024-01-01-a.md': post(['title: A'], 'First paragraph\ngoes on.\n\nSecond one.'),
      '_posts/2024-01-02-b.md': post(['title: B', 'excerpt: Written.'], 'One.\n\nTwo.'),
    });
    const a = article(source, '_posts/2024-01-01-a.md');
    assert.equal(a.excerpt, 'First paragraph\ngoes on.');
    assert.equal(a.content, 'First paragraph\ngoes on.\n\nSecond one.\n');
    assert.equal(article(source, '_posts/2024-01-02-b.md').excerpt, 'Written.');
  });

  test('a relative image is resolved against the article’s URL outside code, and one not beside the post is reported', async () => {
    const source = await site({
      'hugo.toml': HUGO_CONFIG,
      'content/posts/walk/index.md': post(
        ['title: Walk', 'date: 2024-01-01', 'author: A'],
        '![a](here.jpg)\n\n```\n![b](code.jpg)\n```\n\n<img src="gone.png">\n',
      ),
      'content/posts/walk/here.jpg': 'x',
    });
    const walk = article(source, 'content/posts/walk/index.md');
    assert.match(walk.content, /!\[a\]\(https:\/\/h\.example\/posts\/walk\/here\.jpg\)/);
    assert.match(walk.content, /!\[b\]\(code\.jpg\)/);
    assert.match(walk.content, /<img src="https:\/\/h\.example\/posts\/walk\/gone\.png">/);
    assert.deepEqual(warningsOf(source, 'content/posts/walk/index.md'), ['missing-image 13']);
  });
});

describe('site configuration', () => {
  test('the site URL of the options serves a site whose config has none; the config’s own URL wins', async () => {
    const files = {
      'hugo.toml': "title = 'H'\n",
      'content/posts/a.md': post(['title: A', 'date: 2024-01-01', 'author: A']),
    };
    const given = await site(files, { siteUrl: 'https://given.example/' });
    assert.equal(given.settings?.siteUrl, 'https://given.example');
    assert.equal(article(given, 'content/posts/a.md').guid, 'https://given.example/posts/a/');
    const own = await site({ ...files, 'hugo.toml': HUGO_CONFIG }, { siteUrl: 'https://given.example/' });
    assert.equal(article(own, 'content/posts/a.md').guid, 'https://h.example/posts/a/');
  });

  test('Jekyll defaults give posts their author and layout without a warning; the file’s own field wins', async () => {
    const source = await site({
      '_config.yml': [
        'author: site-owner',
        'defaults:',
        '  - scope: { path: "", type: posts }',
        '    values: { layout: post, author: Ann }',
        '  - scope: { path: "guests/_posts" }',
        '    values: { author: Guest }',
      ].join('\n'),
      '_posts/2024-01-01-a.md': post(['title: A']),
      '_posts/2024-01-02-b.md': post(['title: B', 'author: Bo']),
      'guests/_posts/2024-01-03-c.md': post(['title: C']),
    });
    assert.equal(article(source, '_posts/2024-01-01-a.md').author?.name, 'Ann');
    assert.equal(article(source, '_posts/2024-01-02-b.md').author?.name, 'Bo');
    assert.equal(article(source, 'guests/_posts/2024-01-03-c.md').author?.name, 'Guest');
    assert.deepEqual(
      (source.warnings ?? []).filter((w) => w.file !== '_config.yml'),
      [],
    );
  });

  test('Jekyll: documents of collections are reported, other underscore folders are never read', async () => {
    const source = await site({
      '_config.yml': 'collections:\n  recipes:\n    output: true\n  notes: {}\n',
      '_recipes/soup.md': post(['title: Soup']),
      '_notes/n.md': post(['title: N']),
      '_layouts/post.html': '<html>{{ content }}</html>',
      'blog/_includes/x.html': '<p>x</p>',
      '_posts/2024-01-01-a.md': post(['title: A']),
    });
    const report = Object.fromEntries((source.files ?? []).map((f) => [f.file, f.kind]));
    assert.deepEqual(report, {
      '_notes/n.md': 'skipped',
      '_posts/2024-01-01-a.md': 'post',
      '_recipes/soup.md': 'page',
    });
  });

  test('Hugo: a post without a date has no path of its own yet and is warned missing-date', async () => {
    const source = await site({
      'hugo.toml': `${HUGO_CONFIG}[permalinks]\n  posts = '/:year/:slug/'\n`,
      'content/posts/a.md': post(['title: Undated Note', 'author: A']),
    });
    const a = article(source, 'content/posts/a.md');
    assert.equal(a.path, null);
    assert.equal(a.slug, 'undated-note');
    assert.deepEqual(warningsOf(source, 'content/posts/a.md'), ['missing-date 1']);
  });

  test('a cross-reference to a file the site does not have is reported, and no template syntax is left', async () => {
    const source = await site({
      'hugo.toml': HUGO_CONFIG,
      'content/posts/a.md': post(
        ['title: A', 'date: 2024-01-01', 'author: A'],
        'See [b]({{< ref "nowhere" >}}).',
      ),
    });
    const a = article(source, 'content/posts/a.md');
    assert.doesNotMatch(a.content, /\{\{/);
    assert.deepEqual(warningsOf(source, 'content/posts/a.md'), ['unknown-link 7']);
  });
});

test('Hugo cascade: a section’s _index.md gives its posts values under their own, unwarned', async () => {
  const source = await site({
    'hugo.toml': HUGO_CONFIG,
    'content/posts/_index.md': post(['title: Posts', 'cascade:', '  author: Ann', '  type: notes']),
    'content/posts/hidden/_index.md': post(['title: Hidden', 'cascade:', '  - build: { list: never }']),
    'content/posts/a.md': post(['title: A', 'date: 2024-01-01']),
    'content/posts/b.md': post(['title: B', 'date: 2024-01-02', 'authors: [Bo]']),
    'content/posts/hidden/c.md': post(['title: C', 'date: 2024-01-03']),
  });
  assert.equal(article(source, 'content/posts/a.md').author?.name, 'Ann');
  assert.equal(article(source, 'content/posts/b.md').author?.name, 'Bo');
  assert.equal(article(source, 'content/posts/hidden/c.md').author?.name, 'Ann');
  const kinds = Object.fromEntries((source.files ?? []).map((f) => [f.file, f.kind]));
  assert.equal(kinds['content/posts/hidden/c.md'], 'excluded');
  assert.deepEqual(warningsOf(source, 'content/posts/a.md'), []);
  assert.deepEqual(warningsOf(source, 'content/posts/b.md'), []);
});

test('a _posts/ folder without _config.yml stays Folio’s own folder, dated names and all', async () => {
  const source = await site({ '_posts/2024-01-01-hello.md': post(['title: Hello']) });
  assert.equal(source.generator, undefined);
  assert.equal(source.articles[0].publishedAt, '2024-01-01T00:00:00.000Z');
});
