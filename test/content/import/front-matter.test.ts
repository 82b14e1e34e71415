import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { parseDate } from '../../../src/content/import/dates.ts';
import { parseArticleFile } from '../../../src/content/import/markdown-file.ts';
import { readContentSource } from '../../../src/content/import/read-source.ts';
import { ImportValidationError, type ImportProblem } from '../../../src/content/import/records.ts';
import { makeContentFolder, removeContentFolders } from '../../helpers.ts';

after(removeContentFolders);

function parsed(file: string, text: string) {
  const result = parseArticleFile(file, text);
  assert.deepEqual(result.problems, [], 'expected no problems');
  return { article: result.article!, warnings: result.warnings };
}

function problems(file: string, text: string, options: { strict?: boolean } = {}): ImportProblem[] {
  const result = parseArticleFile(file, text, options);
  assert.equal(result.article, undefined);
  return result.problems;
}

const yaml = (...lines: string[]) => ['---', ...lines, '---', 'Body.', ''].join('\n');
const toml = (...lines: string[]) => ['+++', ...lines, '+++', 'Body.', ''].join('\n');

describe('front matter aliases', () => {
  test('date and pubDate give publishedAt; lastmod and updatedDate give updatedAt', () => {
    const hugo = parsed(
      'a.md',
      yaml('title: A', 'date: 2024-01-15', 'lastmod: 2024-01-20T10:00:00Z'),
    ).article;
    assert.equal(hugo.publishedAt, '2024-01-15T00:00:00.000Z');
    assert.equal(hugo.updatedAt, '2024-01-20T10:00:00.000Z');
    assert.equal(hugo.status, 'published');
    const astro = parsed(
      'b.md',
      yaml('title: B', "pubDate: 'Jul 08 2024'", "updatedDate: 'Jul 10 2024'"),
    ).article;
    assert.equal(astro.publishedAt, '2024-07-08T00:00:00.000Z');
    assert.equal(astro.updatedAt, '2024-07-10T00:00:00.000Z');
  });

  test('the Folio name wins over an alias, and the alias is reported as ignored on its line', () => {
    const { article, warnings } = parsed(
      'a.md',
      yaml('title: A', 'publishedAt: 2024-02-01', 'date: 2024-01-01', 'pubDate: 2023-01-01'),
    );
    assert.equal(article.publishedAt, '2024-02-01T00:00:00.000Z');
    assert.deepEqual(warnings, [
      { file: 'a.md', line: 4, message: '"date" ignored: "publishedAt" gives the publishedAt' },
      { file: 'a.md', line: 5, message: '"pubDate" ignored: "publishedAt" gives the publishedAt' },
    ]);
  });

  test('description and summary give the excerpt; image, heroImage and cover the cover image', () => {
    assert.equal(parsed('a.md', yaml('title: A', 'description: D')).article.excerpt, 'D');
    assert.equal(parsed('a.md', yaml('title: A', 'summary: S')).article.excerpt, 'S');
    assert.equal(parsed('a.md', yaml('title: A', 'image: /i.png')).article.coverImage, '/i.png');
    assert.equal(parsed('a.md', yaml('title: A', 'heroImage: /h.png')).article.coverImage, '/h.png');
    assert.equal(parsed('a.md', yaml('title: A', 'cover: /c.png')).article.coverImage, '/c.png');
    // Hugo themes write the cover as a table.
    assert.equal(
      parsed('a.md', toml("title = 'A'", '[cover]', "image = 'c.jpg'", "alt = 'x'")).article.coverImage,
      'c.jpg',
    );
  });

  test('draft: true is a draft, even with a date; draft: false or published: true without a date is published', () => {
    const draft = parsed('a.md', yaml('title: A', 'date: 2024-01-01', 'draft: true')).article;
    assert.equal(draft.status, 'draft');
    assert.equal(draft.publishedAt, '2024-01-01T00:00:00.000Z');
    assert.equal(
      parsed('a.md', yaml('title: A', 'published: false', 'date: 2024-01-01')).article.status,
      'draft',
    );
    const out = parsed('a.md', yaml('title: A', 'draft: false'));
    assert.equal(out.article.status, 'published');
    assert.equal(out.article.publishedAt, null);
    assert.equal(parsed('a.md', yaml('title: A', 'published: true')).article.status, 'published');
  });

  test('draft: true against an explicit other status, and a draft that is not a boolean, are problems', () => {
    assert.deepEqual(problems('a.md', yaml('title: A', 'status: published', 'draft: true')), [
      { file: 'a.md', line: 3, message: 'status "published" contradicts draft: true: keep one of them' },
    ]);
    assert.deepEqual(problems('a.md', yaml('title: A', 'draft: yes please')), [
      { file: 'a.md', line: 3, message: 'draft must be true or false, got a string' },
    ]);
  });

  test('a published article without a date gets a warning: it is dated at its first import', () => {
    const { article, warnings } = parsed('a.md', yaml('title: A', 'status: published'));
    assert.equal(article.publishedAt, null);
    assert.deepEqual(warnings, [
      {
        file: 'a.md',
        line: 3,
        message: 'published without a date: publishedAt is set to the time of its first import',
      },
    ]);
    assert.deepEqual(parsed('a.md', yaml('title: A')).warnings, [], 'a draft needs no date');
  });

  test('author as a plain name is { name }', () => {
    assert.deepEqual(parsed('a.md', yaml('title: A', 'author: Jane Doe')).article.author, {
      name: 'Jane Doe',
      image: null,
    });
  });

  test('tags as a string: comma-separated when it holds a comma, else space-separated', () => {
    assert.deepEqual(parsed('a.md', yaml('title: A', 'tags: jekyll update')).article.tags, [
      'jekyll',
      'update',
    ]);
    assert.deepEqual(parsed('a.md', yaml('title: A', 'tags: machine learning, ai')).article.tags, [
      'machine learning',
      'ai',
    ]);
  });

  test('categories join the tags, de-duplicated case-insensitively', () => {
    const { article } = parsed('a.md', yaml('title: A', 'tags: [Red, green]', 'categories: [Travel, red]'));
    assert.deepEqual(article.tags, ['Red', 'green', 'Travel']);
    assert.deepEqual(parsed('a.md', yaml('title: A', 'categories: jekyll update')).article.tags, [
      'jekyll',
      'update',
    ]);
    assert.deepEqual(problems('a.md', yaml('title: A', 'categories: 3')), [
      {
        file: 'a.md',
        line: 3,
        message: 'categories must be a list of strings or a comma- or space-separated string, got a number',
      },
    ]);
  });

  test('unknown fields are warnings with their line and are ignored; --strict refuses them', () => {
    const text = yaml('title: A', 'layout: post', 'permalink: /a/');
    const { article, warnings } = parsed('a.md', text);
    assert.equal(article.title, 'A');
    assert.deepEqual(
      warnings.map((w) => [w.line, w.message.replace(/ \(expected.*\)/, '')]),
      [
        [3, 'unknown field "layout": ignored'],
        [4, 'unknown field "permalink": ignored'],
      ],
    );
    assert.deepEqual(
      problems('a.md', text, { strict: true }).map((p) => [p.line, p.message.replace(/ \(expected.*\)/, '')]),
      [
        [3, 'unknown field "layout"'],
        [4, 'unknown field "permalink"'],
      ],
    );
  });
});

describe('TOML front matter', () => {
  test('Hugo front matter: strings, dates with offsets, booleans, arrays', () => {
    const { article, warnings } = parsed(
      'posts/my-first-post.md',
      toml(
        "title = 'My First Post'",
        'date = 2024-01-14T07:07:07+01:00',
        'draft = false',
        "tags = ['red', 'green']",
        "categories = ['Travel']",
      ),
    );
    assert.deepEqual(warnings, []);
    assert.equal(article.slug, 'my-first-post');
    assert.equal(article.title, 'My First Post');
    assert.equal(article.publishedAt, '2024-01-14T06:07:07.000Z');
    assert.equal(article.status, 'published');
    assert.deepEqual(article.tags, ['red', 'green', 'Travel']);
    assert.equal(article.content, 'Body.\n');
  });

  test('a TOML date or date-time without an offset is UTC', () => {
    const { article } = parsed(
      'a.md',
      toml("title = 'A'", 'date = 2024-01-14T07:07:07', 'lastmod = 2024-02-01'),
    );
    assert.equal(article.publishedAt, '2024-01-14T07:07:07.000Z');
    assert.equal(article.updatedAt, '2024-02-01T00:00:00.000Z');
  });

  test('malformed TOML is one problem on its line in the file', () => {
    assert.deepEqual(problems('a.md', toml("title = 'A'", 'tags = [unquoted]')), [
      { file: 'a.md', line: 3, message: 'invalid TOML: invalid value' },
    ]);
    assert.equal(problems('a.md', toml("title = 'A'", "title = 'B'"))[0].line, 3);
  });

  test('problems and warnings in TOML point at the key, also inside a table', () => {
    const text = toml(
      "title = 'A'",
      "date = 'last week'",
      'weight = 3',
      '[seo]',
      "metaTitle = 'M'",
      'metaTitel = 1',
    );
    assert.deepEqual(problems('a.md', text), [
      {
        file: 'a.md',
        line: 3,
        message:
          'date must be a valid date (e.g. 2024-05-01, 2024-05-01T09:30:00Z or Jul 08 2024), got "last week"',
      },
    ]);
    const fixed = text.replace("date = 'last week'", 'date = 2024-01-01');
    assert.deepEqual(
      parseArticleFile('a.md', fixed).warnings.map((w) => [w.line, w.message.replace(/ \(.*/, '')]),
      [
        [4, 'unknown field "weight"'],
        [7, 'unknown field "seo.metaTitel"'],
      ],
    );
  });

  test('an unclosed TOML fence is a problem', () => {
    assert.deepEqual(problems('a.md', "+++\ntitle = 'A'\n"), [
      { file: 'a.md', line: 1, message: 'front matter is not closed: no "+++" line after the opening one' },
    ]);
  });
});

describe('file names', () => {
  test("a Hugo page bundle's index.md takes its folder's name as slug", () => {
    assert.equal(parsed('posts/trip-to-lisbon/index.md', yaml('title: T')).article.slug, 'trip-to-lisbon');
    assert.equal(parsed('index.md', yaml('title: T')).article.slug, 'index');
  });

  test("Jekyll's 2024-01-15-title.md is the slug `title` of that date, unless the front matter says otherwise", () => {
    const { article } = parsed('_posts/2024-01-15-welcome-to-jekyll.markdown', yaml('title: W'));
    assert.equal(article.slug, 'welcome-to-jekyll');
    assert.equal(article.publishedAt, '2024-01-15T00:00:00.000Z');
    assert.equal(article.status, 'published');
    const dated = parsed(
      '2024-01-15-x.md',
      yaml('title: X', 'date: 2024-01-15 10:00:00 +0100', 'slug: other'),
    ).article;
    assert.equal(dated.publishedAt, '2024-01-15T09:00:00.000Z');
    assert.equal(dated.slug, 'other');
    assert.equal(parsed('2024-01-15-draft.md', yaml('title: D', 'published: false')).article.status, 'draft');
  });

  test('a Jekyll file name with an impossible date is a problem', () => {
    assert.deepEqual(problems('_posts/2024-02-30-x.md', yaml('title: X')), [
      {
        file: '_posts/2024-02-30-x.md',
        line: 1,
        message: 'the file name starts with 2024-02-30, which is not a date',
      },
    ]);
  });

  test('a folder reads .markdown files and skips Hugo section pages with a warning', async () => {
    const root = await makeContentFolder({
      'posts/_index.md': "+++\ntitle = 'Posts'\n+++\n",
      'posts/a.markdown': '---\ntitle: A\n---\n',
      'posts/b/index.md': '---\ntitle: B\n---\n',
      'posts/b/photo.jpg': 'JPEG',
    });
    const source = await readContentSource(root);
    assert.deepEqual(
      source.articles.map((a) => [a.file, a.slug]),
      [
        ['posts/a.markdown', 'a'],
        ['posts/b/index.md', 'b'],
      ],
    );
    assert.deepEqual(source.warnings, [
      {
        file: 'posts/_index.md',
        line: 1,
        message: 'Hugo section page (_index.md) skipped: it is not a post',
      },
    ]);
  });

  test('two bundles or a bundle and a file with the same name are a duplicate slug', async () => {
    const root = await makeContentFolder({
      'a/post/index.md': '---\ntitle: A\n---\n',
      'post.md': '---\ntitle: B\n---\n',
    });
    await assert.rejects(readContentSource(root), (error: unknown) => {
      assert.ok(error instanceof ImportValidationError);
      assert.deepEqual(
        error.problems.map((p) => p.message),
        [
          'duplicate slug "post": also used by post.md',
          'duplicate slug "post": also used by a/post/index.md',
        ],
      );
      return true;
    });
  });
});

describe('parseDate', () => {
  test('accepts the forms blogs write, all read as UTC when they carry no zone', () => {
    const cases: Array<[string, string]> = [
      ['Jul 08 2024', '2024-07-08T00:00:00.000Z'],
      ['Jul 8, 2024', '2024-07-08T00:00:00.000Z'],
      ['July 8, 2024', '2024-07-08T00:00:00.000Z'],
      ['Sept 1 2024', '2024-09-01T00:00:00.000Z'],
      ['8 July 2024', '2024-07-08T00:00:00.000Z'],
      ['Mon, 08 Jul 2024 10:00:00 +0200', '2024-07-08T08:00:00.000Z'],
      ['Mon, 08 Jul 2024 10:00:00 GMT', '2024-07-08T10:00:00.000Z'],
      ['July 8, 2024 3:30 pm', '2024-07-08T15:30:00.000Z'],
      ['July 8, 2024 12:05 am', '2024-07-08T00:05:00.000Z'],
      ['Mon Jul 08 2024 10:00:00 GMT+0000 (Coordinated Universal Time)', '2024-07-08T10:00:00.000Z'],
      ['2024/07/08', '2024-07-08T00:00:00.000Z'],
      ['2024-07-08 10:00:00 +0100', '2024-07-08T09:00:00.000Z'],
      ['2024-07-08T10:00', '2024-07-08T10:00:00.000Z'],
      ['  Jul   08   2024 ', '2024-07-08T00:00:00.000Z'],
    ];
    for (const [input, expected] of cases) assert.equal(parseDate(input), expected, input);
  });

  test('refuses impossible dates and anything else', () => {
    for (const input of [
      'Feb 30 2024',
      'Feb 29 2023',
      'Jul 32 2024',
      '13 Foo 2024',
      'July 8 2024 13:00 pm',
      'July 8 2024 25:00',
      '2024/13/01',
      'yesterday',
      '08/07/2024',
      '',
    ]) {
      assert.equal(parseDate(input), null, input);
    }
    assert.equal(parseDate('Feb 29 2024'), '2024-02-29T00:00:00.000Z');
  });
});
