import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { ghostSource, htmlToMarkdown } from '../../../src/content/import/ghost.ts';
import { readContentSource } from '../../../src/content/import/read-source.ts';
import { ImportValidationError } from '../../../src/content/import/records.ts';
import { importContent } from '../../../src/content/import.ts';
import {
  createTestProject,
  describeEachDialect,
  getJson,
  makeContentFolder,
  removeContentFolders,
} from '../../helpers.ts';

after(removeContentFolders);

const fixture = fileURLToPath(new URL('../fixtures/ghost-export.json', import.meta.url));
const realBlog = fileURLToPath(new URL('../fixtures/real-blogs/ghost/', import.meta.url));

async function problemsOf(json: string) {
  const root = await makeContentFolder({ 'ghost.json': json });
  try {
    await readContentSource(join(root, 'ghost.json'));
  } catch (error) {
    assert.ok(error instanceof ImportValidationError, `expected ImportValidationError, got ${error}`);
    return error.problems;
  }
  assert.fail('expected the import to be refused');
}

function exportOf(data: Record<string, unknown>): string {
  return JSON.stringify({ db: [{ meta: { exported_on: 1, version: '5.80.0' }, data }] }, null, 2);
}

const post = (overrides: Record<string, unknown> = {}) => ({
  id: 'p1',
  title: 'T',
  slug: 't',
  html: '<p>x</p>',
  status: 'published',
  type: 'post',
  created_at: '2024-01-01T00:00:00.000Z',
  updated_at: '2024-01-01T00:00:00.000Z',
  published_at: '2024-01-01T00:00:00.000Z',
  ...overrides,
});

describe('Ghost export', () => {
  test('is detected by its shape and read into posts with slugs, dates, status, images, excerpt, tags and authors', async () => {
    const source = await readContentSource(fixture);
    assert.deepEqual(source.tags, [
      { name: 'Getting Started', slug: 'getting-started', color: '#ff5733', icon: null },
      { name: 'Writing', slug: 'writing', color: null, icon: null },
    ]);
    assert.deepEqual(
      source.articles.map((a) => [a.slug, a.status, a.publishedAt, a.createdAt, a.updatedAt]),
      [
        [
          'coming-soon',
          'published',
          '2024-01-10T09:05:00.000Z',
          '2024-01-10T09:00:00.000Z',
          '2024-01-11T10:30:00.000Z',
        ],
        [
          'writing-posts-with-ghost',
          'published',
          '2024-02-02T07:30:00.000Z',
          '2024-02-01T08:00:00.000Z',
          '2024-02-03T12:00:00.000Z',
        ],
        ['unfinished-draft', 'draft', null, '2024-03-01T08:00:00.000Z', '2024-03-01T08:10:00.000Z'],
        [
          'next-year',
          'published',
          '2099-01-01T09:00:00.000Z',
          '2024-03-02T08:00:00.000Z',
          '2024-03-02T08:10:00.000Z',
        ],
      ],
    );
    const writing = source.articles[1];
    assert.equal(writing.title, 'Writing posts with Ghost ✍️');
    assert.equal(writing.excerpt, 'How to write, format and publish a post.');
    assert.equal(writing.coverImage, '/content/images/2024/02/writing.jpg');
    // Ghost's order of tags (posts_tags.sort_order), internal #tags left out.
    assert.deepEqual(writing.tags, ['Writing', 'Getting Started']);
    // The primary author is the first of posts_authors.
    assert.deepEqual(writing.author, { name: 'Grace Hopper', image: null });
    assert.deepEqual(source.articles[0].author, {
      name: 'Ada Lovelace',
      image: '/content/images/2024/01/ada.png',
    });
    assert.deepEqual(writing.seo, {
      metaTitle: 'Writing posts with Ghost | Ghost Blog',
      metaDescription: 'Everything about the Ghost editor.',
      ogImage: null,
      canonicalUrl: 'https://example.com/original-writing',
      keywords: null,
    });
    assert.match(writing.content, /^## The editor\n\nGhost has a _powerful_ editor/);
    assert.match(writing.content, /!\[The editor\]\(\/content\/images\/2024\/02\/editor\.png\)/);
    assert.match(writing.content, /```javascript\nconsole\.log\("hello"\);\n```/);
    assert.ok(!writing.content.includes('alert'), 'a script is not text');
    // The page is reported as a page, not imported; what Folio cannot keep is warned about at its line.
    assert.deepEqual(
      source.files?.map((f) => [f.file, f.kind]),
      [
        ['ghost-export.json#posts/coming-soon', 'post'],
        ['ghost-export.json#posts/writing-posts-with-ghost', 'post'],
        ['ghost-export.json#posts/unfinished-draft', 'draft'],
        ['ghost-export.json#posts/next-year', 'post'],
        ['ghost-export.json#posts/about', 'page'],
      ],
    );
    assert.deepEqual(
      source.warnings?.map((w) => [w.line, w.kind, w.message.split(' is not imported')[0]]),
      [
        [42, 'unmapped-field', 'post "writing-posts-with-ghost": posts.featured'],
        [203, 'unmapped-field', 'post "writing-posts-with-ghost": posts_meta.feature_image_alt'],
        [283, 'internal-tag', 'internal tag "#import-2024"'],
      ],
    );
  });

  test('HTML becomes Markdown: headings, emphasis, links, lists, code, images', () => {
    assert.equal(
      htmlToMarkdown(
        '<h3>H</h3><p><strong>b</strong> <em>i</em> <a href="__GHOST_URL__/x/">l</a></p><ol><li>one</li></ol>',
      ),
      '### H\n\n**b** _i_ [l](/x/)\n\n1.  one',
    );
  });

  test('an export that is not Ghost-shaped is refused with the line of the problem', async () => {
    assert.deepEqual(await problemsOf('{\n  "db": {}\n}'), [
      {
        file: 'ghost.json',
        line: 2,
        message:
          'db must be a non-empty list: a Ghost export is { "db": [ { "meta": …, "data": { "posts": […], … } } ] }',
      },
    ]);
    assert.deepEqual(
      (await problemsOf('{\n  "db": [\n    { "meta": {} }\n  ]\n}')).map((p) => [
        p.line,
        p.message.split(':')[0],
      ]),
      [[3, 'no "data" object found']],
    );
    assert.deepEqual(
      (await problemsOf(exportOf({ posts: { a: 1 } }))).map((p) => [p.line, p.message.split(':')[0]]),
      [[9, 'data.posts must be a list of posts, got an object']],
    );
    assert.deepEqual(
      (await problemsOf(exportOf({ posts: [], tags: 'x', posts_tags: [1] }))).map((p) => [p.line, p.message]),
      [
        [10, 'tags must be a list, got a string'],
        [12, 'posts_tags[0] must be an object, got a number'],
      ],
    );
  });

  test("bad posts are refused with the export's line of the Ghost field", async () => {
    const problems = await problemsOf(
      exportOf({
        posts: [
          post({ status: 'weird' }),
          post({ id: 'p2', slug: 'Not A Slug', html: 3, published_at: 'soon' }),
          post({ id: 'p3', slug: 't' }),
        ],
      }),
    );
    assert.deepEqual(
      problems.map((p) => [p.file, p.line, p.message.replace(/ \(e\.g\..*\)/, '')]),
      [
        ['ghost.json', 13, 'duplicate slug "t": also used by ghost.json#posts[2]'],
        ['ghost.json', 15, 'status must be one of published, scheduled, draft, sent, got "weird"'],
        [
          'ghost.json',
          24,
          'slug "Not A Slug" is not valid: use lowercase letters, digits and single hyphens',
        ],
        ['ghost.json', 25, 'html must be a string or null, got a number'],
        ['ghost.json', 30, 'publishedAt must be a valid date, got "soon"'],
        ['ghost.json', 35, 'duplicate slug "t": also used by ghost.json#posts[0]'],
      ],
    );
  });

  test('whatever a Ghost-shaped document holds, reading it never throws: it is records or problems', () => {
    const value = fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.boolean());
    const row = fc.dictionary(
      fc.constantFrom(
        'id',
        'title',
        'slug',
        'html',
        'status',
        'type',
        'published_at',
        'post_id',
        'tag_id',
        'author_id',
        'name',
        'sort_order',
      ),
      value,
    );
    const table = fc.oneof(value, fc.array(fc.oneof(row, value), { maxLength: 4 }));
    const data = fc.dictionary(
      fc.constantFrom('posts', 'tags', 'posts_tags', 'users', 'posts_authors', 'posts_meta'),
      table,
    );
    fc.assert(
      fc.property(data, (generated) => {
        const text = exportOf(generated);
        const result = ghostSource('g.json', text, JSON.parse(text));
        assert.ok(result.source !== undefined || result.problems.length > 0);
        for (const problem of result.problems) assert.ok(problem.line >= 1 && problem.message.length > 0);
      }),
      { numRuns: 300 },
    );
  });
});

describeEachDialect('Ghost import into a project', (ctx) => {
  test('the export imports with its tags, authors and html, and the API serves it in Ghost order', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const source = await readContentSource(fixture);
    const summary = await importContent(ctx.db, project.slug, source, {
      now: new Date('2024-06-01T00:00:00Z'),
    });
    assert.deepEqual(summary.changes.created, [
      'coming-soon',
      'writing-posts-with-ghost',
      'unfinished-draft',
      'next-year',
    ]);
    const list = await getJson(ctx.app, '/v1/articles?limit=10&select={"status":true}', headers);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((a: { slug: string; status: string; createdAt: string }) => [
        a.slug,
        a.status,
        a.createdAt,
      ]),
      [
        ['next-year', 'scheduled', '2024-03-02T08:00:00.000Z'],
        ['unfinished-draft', 'draft', '2024-03-01T08:00:00.000Z'],
        ['writing-posts-with-ghost', 'published', '2024-02-01T08:00:00.000Z'],
        ['coming-soon', 'published', '2024-01-10T09:00:00.000Z'],
      ],
    );
    const one = await getJson(
      ctx.app,
      '/v1/articles/writing-posts-with-ghost?select={"html":true,"tags":true}',
      headers,
    );
    assert.equal(one.status, 200);
    assert.deepEqual(
      one.body.data.tags.map((tag: { name: string }) => tag.name),
      ['Getting Started', 'Writing'],
    );
    assert.match(one.body.data.html, /^<h2>The editor<\/h2>/);
    assert.match(
      one.body.data.html,
      /<img src="\/content\/images\/2024\/02\/editor\.png" alt="The editor" \/>/,
    );
    assert.ok(!/<script|alert/.test(one.body.data.html));
    const tags = await getJson(ctx.app, '/v1/tags', headers);
    assert.deepEqual(
      tags.body.data.map((tag: { name: string }) => tag.name),
      ['Getting Started', 'Writing'],
    );
  });
});

describeEachDialect('Ghost tags keep their slugs', (ctx) => {
  test("a tag's slug is Ghost's own, not one derived from its name, and finds the tag", async () => {
    const expected = JSON.parse(await readFile(join(realBlog, 'expected.json'), 'utf8')) as {
      files: { tags?: { name: string; slug: string }[] }[];
    };
    const expectedTags = new Map(
      expected.files.flatMap((file) => file.tags ?? []).map((tag) => [tag.name, tag.slug]),
    );
    assert.deepEqual(
      [...expectedTags],
      [
        ['Night Trains', 'sleepers'],
        ['Routes', 'routes'],
      ],
    );
    const { project, headers } = await createTestProject(ctx.db);
    await importContent(ctx.db, project.slug, await readContentSource(join(realBlog, 'export.json')));
    const list = await getJson(ctx.app, '/v1/tags', headers);
    assert.equal(list.status, 200);
    assert.deepEqual(
      new Map(list.body.data.map((tag: { name: string; slug: string }) => [tag.name, tag.slug])),
      expectedTags,
    );
    for (const [name, slug] of expectedTags) {
      const bySlug = await getJson(ctx.app, `/v1/tags/${slug}`, headers);
      assert.equal(bySlug.status, 200, slug);
      assert.equal(bySlug.body.data.name, name);
      assert.deepEqual(
        bySlug.body,
        (await getJson(ctx.app, `/v1/tags/${encodeURIComponent(name)}`, headers)).body,
      );
    }
    // The derived slug of "Night Trains" is not the tag's.
    assert.equal((await getJson(ctx.app, '/v1/tags/night-trains', headers)).status, 404);
  });
});
