import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseIsoDate } from '../../../src/content/import/dates.ts';
import { parseJsonSource } from '../../../src/content/import/json-file.ts';
import { parseTagsYaml } from '../../../src/content/import/markdown-folder.ts';
import { parseArticleFile as parseWithWarnings } from '../../../src/content/import/markdown-file.ts';
import { readContentSource } from '../../../src/content/import/read-source.ts';
import type { ArticleInput, ImportProblem } from '../../../src/content/import/records.ts';
import { ImportValidationError } from '../../../src/content/import/records.ts';
import { makeContentFolder, removeContentFolders } from '../../helpers.ts';

after(removeContentFolders);

/** The article or problems of one file, without its warnings (tested on their own). */
function parseArticleFile(file: string, text: string, options: { strict?: boolean } = {}) {
  const { warnings: _warnings, ...result } = parseWithWarnings(file, text, options);
  return result;
}

async function importError(path: string, options: { strict?: boolean } = {}): Promise<ImportValidationError> {
  try {
    await readContentSource(path, options);
  } catch (error) {
    assert.ok(error instanceof ImportValidationError, `expected ImportValidationError, got ${error}`);
    return error;
  }
  assert.fail('expected readContentSource to throw');
}

function article(overrides: Partial<ArticleInput>): ArticleInput {
  return {
    file: 'x.md',
    slug: 'x',
    title: 'X',
    excerpt: null,
    coverImage: null,
    status: 'draft',
    publishedAt: null,
    createdAt: null,
    updatedAt: null,
    author: null,
    lastUpdatedBy: null,
    tags: [],
    seo: null,
    variants: [],
    content: '',
    ...overrides,
  };
}

function problem(file: string, line: number, message: string): ImportProblem {
  return { file, line, message };
}

const FULL_POST = `---
title: "  Full post  "
slug: full-post
excerpt: A short summary
coverImage: /images/cover.png
status: archived
publishedAt: 2024-03-01T10:15:00+02:00
createdAt: 2024-02-28
updatedAt: 2024-03-02T08:00:00.5Z
author:
  name: Ada Lovelace
  image: /people/ada.png
lastUpdatedBy:
  name: Grace Hopper
tags:
  - " Engineering "
  - engineering
  - Notes
seo:
  metaTitle: Full post | Folio
  metaDescription: Everything at once
  ogImage: /og/full.png
  canonicalUrl: https://example.com/full-post
  keywords: [folio, import]
variants:
  - key: short
    title: Shorter
    excerpt: Tiny
    content: Just the gist.
  - key: b_2
---

# Heading

Body text.
`;

describe('readContentSource with a folder', () => {
  test('reads tags.yaml and every .md file in sorted order, skipping dot-folders and node_modules', async () => {
    const root = await makeContentFolder({
      'tags.yaml': '- name: Engineering\n  color: "#1a2B3c"\n  icon: wrench\n- name: Notes\n',
      'posts/2024/full-post.md': FULL_POST,
      'b-post.md': '---\ntitle: B\n---\nB body\n',
      'a-post.md': '---\ntitle: A\npublishedAt: 2024-01-05\n---\n',
      '.drafts/hidden.md': 'not even front matter',
      'node_modules/pkg/readme.md': 'not even front matter',
      'posts/notes.txt': 'ignored',
    });
    const source = await readContentSource(root);
    assert.deepEqual(source.tags, [
      { name: 'Engineering', color: '#1a2B3c', icon: 'wrench' },
      { name: 'Notes', color: null, icon: null },
    ]);
    assert.deepEqual(source.articles, [
      article({
        file: 'a-post.md',
        slug: 'a-post',
        title: 'A',
        status: 'published',
        publishedAt: '2024-01-05T00:00:00.000Z',
      }),
      article({ file: 'b-post.md', slug: 'b-post', title: 'B', content: 'B body\n' }),
      article({
        file: 'posts/2024/full-post.md',
        slug: 'full-post',
        title: 'Full post',
        excerpt: 'A short summary',
        coverImage: '/images/cover.png',
        status: 'archived',
        publishedAt: '2024-03-01T08:15:00.000Z',
        createdAt: '2024-02-28T00:00:00.000Z',
        updatedAt: '2024-03-02T08:00:00.500Z',
        author: { name: 'Ada Lovelace', image: '/people/ada.png' },
        lastUpdatedBy: { name: 'Grace Hopper', image: null },
        tags: ['Engineering', 'Notes'],
        seo: {
          metaTitle: 'Full post | Folio',
          metaDescription: 'Everything at once',
          ogImage: '/og/full.png',
          canonicalUrl: 'https://example.com/full-post',
          keywords: ['folio', 'import'],
        },
        variants: [
          { key: 'short', title: 'Shorter', excerpt: 'Tiny', content: 'Just the gist.' },
          { key: 'b_2', title: null, excerpt: null, content: null },
        ],
        content: '# Heading\n\nBody text.\n',
      }),
    ]);
  });

  test('a folder with only tags.yaml is a valid source', async () => {
    const root = await makeContentFolder({ 'tags.yaml': '- name: Solo\n' });
    assert.deepEqual(await readContentSource(root), {
      tags: [{ name: 'Solo', color: null, icon: null }],
      articles: [],
      warnings: [],
    });
  });

  test('an empty tags.yaml means no tags', async () => {
    const root = await makeContentFolder({ 'tags.yaml': '# nothing yet\n', 'a.md': '---\ntitle: A\n---\n' });
    const source = await readContentSource(root);
    assert.deepEqual(source.tags, []);
    assert.equal(source.articles.length, 1);
  });

  test('a tags.yaml in a sub-folder is not read', async () => {
    const root = await makeContentFolder({ 'sub/tags.yaml': 'not: [valid', 'a.md': '---\ntitle: A\n---\n' });
    assert.deepEqual((await readContentSource(root)).tags, []);
  });

  test('a missing path is one problem', async () => {
    const missing = join(tmpdir(), 'folio-import-does-not-exist-7f3a');
    const error = await importError(missing);
    assert.deepEqual(error.problems, [
      problem(missing, 1, 'content source not found: no such file or folder'),
    ]);
  });

  test('a folder without .md files or tags.yaml is one problem', async () => {
    const root = await makeContentFolder({ 'readme.txt': 'hi', '.hidden/a.md': '---\ntitle: A\n---\n' });
    const error = await importError(root);
    assert.deepEqual(error.problems, [problem(root, 1, 'content folder holds no .md file and no tags.yaml')]);
  });

  test('problems of several files are all collected, in file order, and formatted one per line', async () => {
    const root = await makeContentFolder({
      'tags.yaml': '- name: News\n- name: news\n  color: blue\n',
      'z-last.md': '---\ntitle: Fine\nslug: shared\n---\n',
      'a/first.md': '---\ntitle: [not, a, string]\nstatus: live\n---\n',
      'a/second.md': 'no front matter here\n',
      'm-middle.md': '---\ntitle: Middle\nslug: shared\nauthr:\n  name: X\n---\n',
    });
    const error = await importError(root, { strict: true });
    assert.deepEqual(error.problems, [
      problem('tags.yaml', 2, 'duplicate tag name "news": "News" is already defined at tags.yaml:1'),
      problem('tags.yaml', 3, 'color must be a hex colour like "#1A2B3C" or null, got "blue"'),
      problem('a/first.md', 2, 'title must be a non-empty string, got a list'),
      problem('a/first.md', 3, 'status must be one of draft, published, archived, got "live"'),
      problem(
        'a/second.md',
        1,
        'missing front matter: the file must start with a "---" (YAML) or "+++" (TOML) line',
      ),
      problem('m-middle.md', 3, 'duplicate slug "shared": also used by z-last.md'),
      problem('m-middle.md', 4, 'unknown field "authr" (did you mean "author"?)'),
      problem('z-last.md', 3, 'duplicate slug "shared": also used by m-middle.md'),
    ]);
    assert.equal(
      error.message,
      [
        'tags.yaml:2: duplicate tag name "news": "News" is already defined at tags.yaml:1',
        'tags.yaml:3: color must be a hex colour like "#1A2B3C" or null, got "blue"',
        'a/first.md:2: title must be a non-empty string, got a list',
        'a/first.md:3: status must be one of draft, published, archived, got "live"',
        'a/second.md:1: missing front matter: the file must start with a "---" (YAML) or "+++" (TOML) line',
        'm-middle.md:3: duplicate slug "shared": also used by z-last.md',
        'm-middle.md:4: unknown field "authr" (did you mean "author"?)',
        'z-last.md:3: duplicate slug "shared": also used by m-middle.md',
      ].join('\n'),
    );
    assert.equal(error.name, 'ImportValidationError');
  });

  test('a default slug from a file name collides with an explicit slug elsewhere', async () => {
    const root = await makeContentFolder({
      'hello.md': '---\ntitle: One\n---\n',
      'sub/other.md': '---\ntitle: Two\nslug: hello\n---\n',
      'sub/deeper/hello.md': '---\ntitle: Three\n---\n',
    });
    const error = await importError(root);
    assert.deepEqual(error.problems, [
      problem('hello.md', 1, 'duplicate slug "hello": also used by sub/deeper/hello.md, sub/other.md'),
      problem('sub/deeper/hello.md', 1, 'duplicate slug "hello": also used by hello.md, sub/other.md'),
      problem('sub/other.md', 3, 'duplicate slug "hello": also used by hello.md, sub/deeper/hello.md'),
    ]);
  });

  test('a duplicate slug is still reported when the file has other problems', async () => {
    const root = await makeContentFolder({
      'a.md': '---\ntitle: 5\nslug: same\n---\n',
      'b.md': '---\ntitle: B\nslug: same\n---\n',
    });
    const error = await importError(root);
    assert.deepEqual(error.problems, [
      problem('a.md', 2, 'title must be a non-empty string, got a number'),
      problem('a.md', 3, 'duplicate slug "same": also used by b.md'),
      problem('b.md', 3, 'duplicate slug "same": also used by a.md'),
    ]);
  });

  test('a file that is not valid UTF-8 is a problem', async () => {
    const root = await makeContentFolder({ 'ok.md': '---\ntitle: OK\n---\n' });
    await writeFile(join(root, 'bad.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]));
    const error = await importError(root);
    assert.deepEqual(error.problems, [problem('bad.md', 1, 'file is not valid UTF-8')]);
  });

  test('CRLF line endings and a BOM are accepted in files on disk', async () => {
    const root = await makeContentFolder({
      'tags.yaml': '\uFEFF- name: Windows\r\n  color: "#ABCDEF"\r\n',
      'win.md': '\uFEFF---\r\ntitle: From Windows\r\ntags: Windows\r\n---\r\n\r\nLine one\r\nLine two\r\n',
    });
    assert.deepEqual(await readContentSource(root), {
      tags: [{ name: 'Windows', color: '#ABCDEF', icon: null }],
      articles: [
        article({
          file: 'win.md',
          slug: 'win',
          title: 'From Windows',
          tags: ['Windows'],
          content: 'Line one\nLine two\n',
        }),
      ],
      warnings: [],
    });
  });
});

describe('parseArticleFile', () => {
  test('defaults: slug from the file name, status draft without publishedAt', () => {
    assert.deepEqual(parseArticleFile('notes/my-first-post.md', '---\ntitle: First\n---\nHello'), {
      article: article({
        file: 'notes/my-first-post.md',
        slug: 'my-first-post',
        title: 'First',
        content: 'Hello',
      }),
      problems: [],
    });
  });

  test('defaults: status published when publishedAt is given', () => {
    const { article: parsed } = parseArticleFile(
      'p.md',
      '---\ntitle: P\npublishedAt: 2024-06-01T12:00:00Z\n---\n',
    );
    assert.equal(parsed?.status, 'published');
    assert.equal(parsed?.publishedAt, '2024-06-01T12:00:00.000Z');
  });

  test('an explicit status wins over the default', () => {
    const { article: parsed } = parseArticleFile(
      'p.md',
      '---\ntitle: P\nstatus: draft\npublishedAt: 2024-06-01\n---\n',
    );
    assert.equal(parsed?.status, 'draft');
  });

  test('null means not given for optional fields', () => {
    const text =
      '---\ntitle: T\nslug:\nexcerpt:\nstatus:\nauthor:\ntags:\nseo:\nvariants:\npublishedAt:\n---\n';
    assert.deepEqual(parseArticleFile('t.md', text), {
      article: article({ file: 't.md', slug: 't', title: 'T' }),
      problems: [],
    });
  });

  test('body: exactly one blank line after the closing fence is dropped, the rest is kept verbatim', () => {
    assert.equal(
      parseArticleFile('a.md', '---\ntitle: A\n---\n\n\n  indented\n').article?.content,
      '\n  indented\n',
    );
    assert.equal(parseArticleFile('a.md', '---\ntitle: A\n---').article?.content, '');
    assert.equal(parseArticleFile('a.md', '---\ntitle: A\n---\n---\nmore').article?.content, '---\nmore');
  });

  test('a "---" inside an indented block scalar does not close the front matter', () => {
    const { article: parsed } = parseArticleFile('a.md', '---\ntitle: A\nexcerpt: |\n  ---\n  x\n---\nbody');
    assert.equal(parsed?.excerpt, '---\nx');
    assert.equal(parsed?.content, 'body');
  });

  test('tags: comma-separated string, trimmed, de-duplicated case-insensitively, first spelling wins', () => {
    const { article: parsed } = parseArticleFile(
      'a.md',
      '---\ntitle: A\ntags: " Go, rust ,GO, Rust,,zig,"\n---\n',
    );
    assert.deepEqual(parsed?.tags, ['Go', 'rust', 'zig']);
  });

  test('tags: list items must be non-empty strings of at most 100 characters', () => {
    const text = `---\ntitle: A\ntags:\n  - ok\n  - 42\n  - "  "\n  - ${'x'.repeat(101)}\n---\n`;
    assert.deepEqual(parseArticleFile('a.md', text), {
      problems: [
        problem('a.md', 5, 'tags[1] must be a non-empty string, got a number'),
        problem('a.md', 6, 'tags[2] must not be empty'),
        problem('a.md', 7, 'tags[3] must be at most 100 characters, got 101'),
      ],
    });
  });

  test('missing title is reported on the opening fence', () => {
    assert.deepEqual(parseArticleFile('a.md', '---\nexcerpt: x\n---\n'), {
      problems: [problem('a.md', 1, 'missing required field "title"')],
    });
    assert.deepEqual(parseArticleFile('a.md', '---\n---\n'), {
      problems: [problem('a.md', 1, 'missing required field "title"')],
    });
  });

  test('title: empty and too long', () => {
    assert.deepEqual(parseArticleFile('a.md', '---\ntitle: "   "\n---\n').problems, [
      problem('a.md', 2, 'title must not be empty'),
    ]);
    assert.deepEqual(parseArticleFile('a.md', `---\n\ntitle: ${'é'.repeat(301)}\n---\n`).problems, [
      problem('a.md', 3, 'title must be at most 300 characters, got 301'),
    ]);
    assert.equal(parseArticleFile('a.md', `---\ntitle: ${'é'.repeat(300)}\n---\n`).problems.length, 0);
  });

  test('unclosed front matter', () => {
    assert.deepEqual(parseArticleFile('a.md', '---\ntitle: A\n\nBody without a fence\n'), {
      problems: [problem('a.md', 1, 'front matter is not closed: no "---" line after the opening one')],
    });
  });

  test('missing front matter', () => {
    assert.deepEqual(parseArticleFile('a.md', '# Just markdown\n'), {
      problems: [
        problem(
          'a.md',
          1,
          'missing front matter: the file must start with a "---" (YAML) or "+++" (TOML) line',
        ),
      ],
    });
    assert.deepEqual(parseArticleFile('a.md', '').problems, [
      problem(
        'a.md',
        1,
        'missing front matter: the file must start with a "---" (YAML) or "+++" (TOML) line',
      ),
    ]);
  });

  test('invalid YAML is reported with the parser line, shifted past the opening fence', () => {
    assert.deepEqual(parseArticleFile('a.md', '---\ntitle: A\nexcerpt: "unterminated\n---\n'), {
      problems: [problem('a.md', 3, 'invalid YAML: Missing closing "quote')],
    });
    assert.deepEqual(parseArticleFile('a.md', '---\ntitle: A\ntitle: B\n---\n'), {
      problems: [problem('a.md', 3, 'invalid YAML: Map keys must be unique')],
    });
  });

  test('front matter that is not a mapping', () => {
    assert.deepEqual(parseArticleFile('a.md', '---\n- a\n- b\n---\n').problems, [
      problem('a.md', 1, 'front matter must be a mapping of fields, got a list'),
    ]);
  });

  test('strict: unknown keys are problems on their own line, nested ones with their path', () => {
    const text = [
      '---',
      'title: A',
      'Title: B',
      'layout: post',
      'seo:',
      '  metaTitel: x',
      'author:',
      '  name: A',
      '  avatar: a.png',
      'variants:',
      '  - key: v',
      '    body: x',
      '---',
      '',
    ].join('\n');
    assert.deepEqual(parseArticleFile('a.md', text, { strict: true }).problems, [
      problem('a.md', 3, 'unknown field "Title" (did you mean "title"?)'),
      problem(
        'a.md',
        4,
        'unknown field "layout" (expected one of: title, slug, excerpt, coverImage, status, publishedAt, createdAt, updatedAt, author, lastUpdatedBy, tags, seo, variants, path, section, aliases, guid, visibility, tiers, authors, coverImageAlt)',
      ),
      problem('a.md', 6, 'unknown field "seo.metaTitel" (did you mean "metaTitle"?)'),
      problem('a.md', 9, 'unknown field "author.avatar" (expected one of: name, image)'),
      problem('a.md', 12, 'unknown field "variants[0].body" (expected one of: key, title, excerpt, content)'),
    ]);
  });

  test('"content" is not a front-matter field: the body is the content', () => {
    assert.deepEqual(
      parseArticleFile('a.md', '---\ntitle: A\ncontent: x\n---\n', { strict: true }).problems,
      [
        problem(
          'a.md',
          3,
          'unknown field "content" (expected one of: title, slug, excerpt, coverImage, status, publishedAt, createdAt, updatedAt, author, lastUpdatedBy, tags, seo, variants, path, section, aliases, guid, visibility, tiers, authors, coverImageAlt)',
        ),
      ],
    );
  });

  test('wrong types name the field and the expected type', () => {
    const text = [
      '---', // 1
      'title: A', // 2
      'excerpt: [a]', // 3
      'coverImage: 12', // 4
      'status: 1', // 5
      'author: [Jane]', // 6
      'lastUpdatedBy:', // 7
      '  image: x.png', // 8
      'tags: {a: 1}', // 9
      'seo: yes', // 10
      'variants: x', // 11
      '---',
      '',
    ].join('\n');
    assert.deepEqual(parseArticleFile('a.md', text).problems, [
      problem('a.md', 3, 'excerpt must be a string or null, got a list'),
      problem('a.md', 4, 'coverImage must be a string or null, got a number'),
      problem('a.md', 5, 'status must be one of draft, published, archived, got a number'),
      problem('a.md', 6, 'author must be a name or an object with "name" and optional "image", got a list'),
      problem('a.md', 7, 'missing required field "lastUpdatedBy.name"'),
      problem(
        'a.md',
        9,
        'tags must be a list of strings or a comma- or space-separated string, got an object',
      ),
      problem('a.md', 10, 'seo must be an object, got a string'),
      problem('a.md', 11, 'variants must be a list of objects, got a string'),
    ]);
  });

  test('nested wrong types: seo fields and keywords, person fields', () => {
    const text = [
      '---', // 1
      'title: A', // 2
      'author:', // 3
      '  name: 7', // 4
      '  image: [x]', // 5
      'seo:', // 6
      '  metaTitle: true', // 7
      '  keywords: a, b', // 8
      '---',
      '',
    ].join('\n');
    assert.deepEqual(parseArticleFile('a.md', text).problems, [
      problem('a.md', 4, 'author.name must be a non-empty string, got a number'),
      problem('a.md', 5, 'author.image must be a string or null, got a list'),
      problem('a.md', 7, 'seo.metaTitle must be a string or null, got a boolean'),
      problem('a.md', 8, 'seo.keywords must be a list of strings, got a string'),
    ]);
  });

  test('variants: key required, pattern, unique within the article', () => {
    const text = [
      '---', // 1
      'title: A', // 2
      'variants:', // 3
      '  - key: en', // 4
      '  - key: en', // 5
      '  - key: -bad', // 6
      '  - title: no key', // 7
      '  - plain string', // 8
      '  - key: 3', // 9
      '---',
      '',
    ].join('\n');
    assert.deepEqual(parseArticleFile('a.md', text).problems, [
      problem('a.md', 5, 'variants[1].key "en" duplicates variants[0].key'),
      problem(
        'a.md',
        6,
        'variants[2].key "-bad" must match ^[a-z0-9][a-z0-9_-]*$ (lowercase letters, digits, "_" and "-")',
      ),
      problem('a.md', 7, 'missing required field "variants[3].key"'),
      problem('a.md', 8, 'variants[4] must be an object with a "key", got a string'),
      problem('a.md', 9, 'variants[5].key must be a string, got a number'),
    ]);
  });

  test('bad explicit slugs', () => {
    assert.deepEqual(parseArticleFile('a.md', '---\ntitle: A\nslug: Hello World\n---\n').problems, [
      problem(
        'a.md',
        3,
        'slug "Hello World" is not valid: use lowercase letters, digits and single hyphens (e.g. "my-first-post")',
      ),
    ]);
    assert.deepEqual(parseArticleFile('a.md', '---\ntitle: A\nslug: a--b\n---\n').problems.length, 1);
    assert.deepEqual(parseArticleFile('a.md', '---\ntitle: A\nslug: -a\n---\n').problems.length, 1);
    assert.deepEqual(parseArticleFile('a.md', '---\ntitle: A\nslug: 2024\n---\n').problems, [
      problem('a.md', 3, 'slug must be a string, got a number'),
    ]);
    assert.deepEqual(parseArticleFile('a.md', `---\ntitle: A\nslug: ${'a'.repeat(201)}\n---\n`).problems, [
      problem('a.md', 3, 'slug must be at most 200 characters, got 201'),
    ]);
    assert.equal(
      parseArticleFile('a.md', `---\ntitle: A\nslug: ${'a'.repeat(200)}\n---\n`).problems.length,
      0,
    );
  });

  test('a default slug from a file name that is not a valid slug is a problem', () => {
    assert.deepEqual(parseArticleFile('posts/My Post.md', '---\ntitle: A\n---\n'), {
      problems: [
        problem(
          'posts/My Post.md',
          1,
          'no slug given and the file name "My Post" is not a valid slug (lowercase letters, digits and single hyphens, at most 200 characters): rename the file or set "slug"',
        ),
      ],
    });
    assert.equal(
      parseArticleFile('posts/My Post.md', '---\ntitle: A\nslug: my-post\n---\n').article?.slug,
      'my-post',
    );
  });

  test('bad dates', () => {
    const text = [
      '---', // 1
      'title: A', // 2
      'publishedAt: 2024-02-30', // 3
      'createdAt: yesterday', // 4
      'updatedAt: 1717200000', // 5
      '---',
      '',
    ].join('\n');
    assert.deepEqual(parseArticleFile('a.md', text).problems, [
      problem(
        'a.md',
        3,
        'publishedAt must be a valid date (e.g. 2024-05-01, 2024-05-01T09:30:00Z or Jul 08 2024), got "2024-02-30"',
      ),
      problem(
        'a.md',
        4,
        'createdAt must be a valid date (e.g. 2024-05-01, 2024-05-01T09:30:00Z or Jul 08 2024), got "yesterday"',
      ),
      problem(
        'a.md',
        5,
        'updatedAt must be a date string (e.g. 2024-05-01, 2024-05-01T09:30:00Z or Jul 08 2024), got a number',
      ),
    ]);
  });

  test('CRLF and BOM', () => {
    const text = '\uFEFF---\r\ntitle: Win\r\nslug: 5\r\n---\r\nBody\r\n';
    assert.deepEqual(parseArticleFile('w.md', text).problems, [
      problem('w.md', 3, 'slug must be a string, got a number'),
    ]);
    assert.equal(
      parseArticleFile('w.md', '\uFEFF---\r\ntitle: Win\r\n---\r\nBody\r\n').article?.content,
      'Body\n',
    );
  });

  test('problems with lines in a file that has many of them come out sorted by line', () => {
    const text = '---\nzzz: 1\ntitle: 5\naaa: 2\n---\n';
    assert.deepEqual(
      parseArticleFile('a.md', text, { strict: true }).problems.map((p) => p.line),
      [2, 3, 4],
    );
  });
});

describe('parseIsoDate', () => {
  test('normalises to UTC with milliseconds', () => {
    assert.equal(parseIsoDate('2024-01-05'), '2024-01-05T00:00:00.000Z');
    assert.equal(parseIsoDate('2024-01-05T10:00'), '2024-01-05T10:00:00.000Z');
    assert.equal(parseIsoDate('2024-01-05T10:00:00-05:30'), '2024-01-05T15:30:00.000Z');
    assert.equal(parseIsoDate('2024-01-05 10:00:00.123456Z'), '2024-01-05T10:00:00.123Z');
    assert.equal(parseIsoDate('2024-01-05T23:30:00+0100'), '2024-01-05T22:30:00.000Z');
    assert.equal(parseIsoDate('2024-02-29'), '2024-02-29T00:00:00.000Z');
  });

  test('rejects impossible or malformed dates', () => {
    for (const bad of [
      '2023-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-04-31',
      '2024-01-05T24:00',
      '2024-1-5',
      'soon',
      '',
    ]) {
      assert.equal(parseIsoDate(bad), null, bad);
    }
  });
});

describe('parseTagsYaml', () => {
  test('valid list', () => {
    assert.deepEqual(
      parseTagsYaml('tags.yaml', '- name: " News "\n  color: "#00ff00"\n- name: Dev\n  icon: null\n'),
      {
        tags: [
          { name: 'News', color: '#00ff00', icon: null },
          { name: 'Dev', color: null, icon: null },
        ],
        problems: [],
      },
    );
  });

  test('every kind of problem, with lines', () => {
    const text = [
      '- name: News', // 1
      '  color: "#12345"', // 2
      '- name: NEWS', // 3
      '- color: "#FFFFFF"', // 4
      '- name: ""', // 5
      '- name: Icons', // 6
      `  icon: ${'i'.repeat(65)}`, // 7
      '  colour: red', // 8
      '- just a string', // 9
      `- name: ${'n'.repeat(101)}`, // 10
      '- name: Ok', // 11
      '  color: 0xFFFFFF', // 12
    ].join('\n');
    assert.deepEqual(parseTagsYaml('tags.yaml', text, [], { strict: true }), {
      tags: [],
      problems: [
        problem('tags.yaml', 2, 'color must be a hex colour like "#1A2B3C" or null, got "#12345"'),
        problem('tags.yaml', 3, 'duplicate tag name "NEWS": "News" is already defined at tags.yaml:1'),
        problem('tags.yaml', 4, 'missing required field "name"'),
        problem('tags.yaml', 5, 'name must not be empty'),
        problem('tags.yaml', 7, 'icon must be at most 64 characters, got 65'),
        problem('tags.yaml', 8, 'unknown field "colour" (did you mean "color"?)'),
        problem('tags.yaml', 9, 'tag must be an object with "name", "color" and "icon", got a string'),
        problem('tags.yaml', 10, 'name must be at most 100 characters, got 101'),
        problem('tags.yaml', 12, 'color must be a hex colour like "#1A2B3C" or null, got a number'),
      ],
    });
  });

  test('a tag may give its own slug, written as an article slug is', () => {
    assert.deepEqual(parseTagsYaml('tags.yaml', '- name: Night Trains\n  slug: sleepers\n'), {
      tags: [{ name: 'Night Trains', slug: 'sleepers', color: null, icon: null }],
      problems: [],
    });
    assert.deepEqual(parseTagsYaml('tags.yaml', '- name: Bad\n  slug: Not A Slug\n').problems, [
      problem(
        'tags.yaml',
        2,
        'slug must be lowercase letters, digits and single hyphens (at most 200 characters) or null, got "Not A Slug"',
      ),
    ]);
  });

  test('not a list', () => {
    assert.deepEqual(parseTagsYaml('tags.yaml', 'name: News\n').problems, [
      problem('tags.yaml', 1, 'tags must be a list of { name, color, icon } objects, got an object'),
    ]);
  });

  test('invalid YAML', () => {
    assert.deepEqual(parseTagsYaml('tags.yaml', '- name: News\n- name: [Dev\n').problems, [
      problem(
        'tags.yaml',
        3,
        'invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
      ),
    ]);
  });
});

const VALID_JSON = `{
  "tags": [
    { "name": "News", "color": "#FF0000", "icon": "newspaper" }
  ],
  "articles": [
    {
      "title": "First",
      "slug": "first",
      "publishedAt": "2024-05-01T09:30:00Z",
      "tags": "News, news",
      "content": "# First\\n"
    },
    {
      "title": "Second",
      "slug": "second",
      "author": { "name": "Ada" }
    }
  ]
}
`;

describe('JSON sources', () => {
  test('a valid JSON file through readContentSource', async () => {
    const root = await makeContentFolder({ 'export.json': VALID_JSON });
    assert.deepEqual(await readContentSource(join(root, 'export.json')), {
      tags: [{ name: 'News', color: '#FF0000', icon: 'newspaper' }],
      articles: [
        article({
          file: 'export.json#articles[0]',
          slug: 'first',
          title: 'First',
          status: 'published',
          publishedAt: '2024-05-01T09:30:00.000Z',
          tags: ['News'],
          content: '# First\n',
        }),
        article({
          file: 'export.json#articles[1]',
          slug: 'second',
          title: 'Second',
          author: { name: 'Ada', image: null },
        }),
      ],
      warnings: [],
    });
  });

  test('any file is read as JSON, whatever its extension', async () => {
    const root = await makeContentFolder({
      'dump.txt': '\uFEFF{ "articles": [ { "title": "T", "slug": "t" } ] }',
    });
    const source = await readContentSource(join(root, 'dump.txt'));
    assert.deepEqual(
      source.articles.map((a) => a.file),
      ['dump.txt#articles[0]'],
    );
  });

  test('invalid article fields, with the lines of the offending keys', () => {
    const text = `{
  "tags": [
    { "name": "A" },
    { "name": "a", "color": "red" }
  ],
  "articles": [
    { "title": "No slug" },
    {
      "title": "Dup",
      "slug": "dup",
      "publishedAt": "never",
      "body": "typo"
    },
    {
      "title": "Dup again",
      "slug": "dup",
      "content": 5
    },
    "not an object"
  ]
}`;
    assert.deepEqual(parseJsonSource('data.json', text, { strict: true }), {
      problems: [
        problem(
          'data.json#tags[1]',
          4,
          'duplicate tag name "a": "A" is already defined at data.json#tags[0]',
        ),
        problem('data.json#tags[1]', 4, 'color must be a hex colour like "#1A2B3C" or null, got "red"'),
        problem('data.json#articles[0]', 7, 'missing required field "slug"'),
        problem('data.json#articles[1]', 10, 'duplicate slug "dup": also used by data.json#articles[2]'),
        problem(
          'data.json#articles[1]',
          11,
          'publishedAt must be a valid date (e.g. 2024-05-01, 2024-05-01T09:30:00Z or Jul 08 2024), got "never"',
        ),
        problem(
          'data.json#articles[1]',
          12,
          'unknown field "body" (expected one of: title, slug, excerpt, coverImage, status, publishedAt, createdAt, updatedAt, author, lastUpdatedBy, tags, seo, variants, path, section, aliases, guid, visibility, tiers, authors, coverImageAlt, content)',
        ),
        problem('data.json#articles[2]', 16, 'duplicate slug "dup": also used by data.json#articles[1]'),
        problem('data.json#articles[2]', 17, 'content must be a string, got a number'),
        problem('data.json#articles[3]', 19, 'article must be an object, got a string'),
      ],
    });
  });

  test('invalid JSON syntax is one problem with its line', () => {
    assert.deepEqual(parseJsonSource('data.json', '{\n  "articles": [],\n}\n'), {
      problems: [problem('data.json', 3, 'invalid JSON: Expected double-quoted property name in JSON')],
    });
  });

  test('wrong top-level shapes', () => {
    assert.deepEqual(parseJsonSource('d.json', '[1, 2]').problems, [
      problem(
        'd.json',
        1,
        'the JSON file must hold an object with "tags" and "articles" (or be a Ghost export), got a list',
      ),
    ]);
    assert.deepEqual(parseJsonSource('d.json', '{\n  "posts": []\n}', { strict: true }).problems, [
      problem('d.json', 1, 'the JSON file has neither "tags" nor "articles"'),
      problem('d.json', 2, 'unknown field "posts" (expected one of: tags, articles)'),
    ]);
    assert.deepEqual(parseJsonSource('d.json', '{\n  "tags": {},\n  "articles": 3\n}').problems, [
      problem('d.json', 2, 'tags must be a list of { name, color, icon } objects, got an object'),
      problem('d.json', 3, 'articles must be a list of objects, got a number'),
    ]);
  });

  test('an invalid JSON file through readContentSource throws with every problem', async () => {
    const root = await makeContentFolder({
      'bad.json': '{ "articles": [ { "slug": "x" }, { "title": "T", "slug": "Bad Slug" } ] }',
    });
    const error = await importError(join(root, 'bad.json'));
    assert.equal(
      error.message,
      [
        'bad.json#articles[0]:1: missing required field "title"',
        'bad.json#articles[1]:1: slug "Bad Slug" is not valid: use lowercase letters, digits and single hyphens (e.g. "my-first-post")',
      ].join('\n'),
    );
  });
});
