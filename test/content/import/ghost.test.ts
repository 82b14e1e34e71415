import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { ghostSource, htmlToMarkdown } from '../../../src/content/import/ghost.ts';
import { readContentSource } from '../../../src/content/import/read-source.ts';
import { type ImportProblem, ImportValidationError } from '../../../src/content/import/records.ts';
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

/** Reads an export of these tables; fails the test when it is refused. */
function read(data: Record<string, unknown>, options: { siteUrl?: string; strict?: boolean } = {}) {
  const text = exportOf(data);
  const result = ghostSource('g.json', text, JSON.parse(text), options);
  assert.ok(result.source, `refused: ${JSON.stringify(result.problems)}`);
  return result.source;
}

/** The line of the export of these tables holding `needle`, which it holds once. */
function lineIn(data: Record<string, unknown>, needle: string): number {
  const lines = exportOf(data).split('\n');
  const found = lines.flatMap((line, i) => (line.includes(needle) ? [i + 1] : []));
  assert.equal(found.length, 1, `${needle} is on one line`);
  return found[0];
}

function warningsOf(source: { warnings?: ImportProblem[] }) {
  return (source.warnings ?? []).map((w) => [w.line, w.kind, w.message]);
}

describe('Ghost export, moved in as Ghost publishes it', () => {
  test('the site URL given replaces __GHOST_URL__ and makes site-root links absolute; without one they stay site paths', () => {
    const data = {
      posts: [
        post({
          html: '<p><a href="__GHOST_URL__/about/">a</a> <a href="/tag/x/">t</a> <img src="/content/images/a.jpg" alt="A"> <img src="//cdn.example.org/b.jpg" alt="B"></p>',
          feature_image: '__GHOST_URL__/content/images/c.jpg',
        }),
      ],
      users: [{ id: 'u1', name: 'Ann', slug: 'ann', profile_image: '/content/images/ann.png' }],
      posts_authors: [{ post_id: 'p1', author_id: 'u1', sort_order: 0 }],
      posts_meta: [{ post_id: 'p1', og_image: '__GHOST_URL__/content/images/og.jpg' }],
    };
    const absolute = read(data, { siteUrl: 'https://ex.net/' }).articles[0];
    assert.equal(
      absolute.content,
      '[a](https://ex.net/about/) [t](https://ex.net/tag/x/) ![A](https://ex.net/content/images/a.jpg) ![B](//cdn.example.org/b.jpg)',
    );
    assert.equal(absolute.coverImage, 'https://ex.net/content/images/c.jpg');
    assert.equal(absolute.seo?.ogImage, 'https://ex.net/content/images/og.jpg');
    assert.equal(absolute.authors?.[0].image, 'https://ex.net/content/images/ann.png');
    const relative = read(data).articles[0];
    assert.equal(
      relative.content,
      '[a](/about/) [t](/tag/x/) ![A](/content/images/a.jpg) ![B](//cdn.example.org/b.jpg)',
    );
    assert.equal(relative.coverImage, '/content/images/c.jpg');
  });

  test('embed cards, video cards and iframes are kept as their HTML, with site URLs resolved', () => {
    const html =
      '<p>Before</p><figure class="kg-card kg-embed-card"><iframe src="https://player.vimeo.com/video/1"></iframe><figcaption>Cap</figcaption></figure>' +
      '<figure class="kg-card kg-video-card"><video src="__GHOST_URL__/content/media/v.mp4" poster="/content/images/p.jpg"></video></figure><p>After</p>';
    const content = read({ posts: [post({ html })] }, { siteUrl: 'https://ex.net' }).articles[0].content;
    assert.equal(
      content,
      'Before\n\n<figure class="kg-card kg-embed-card"><iframe src="https://player.vimeo.com/video/1"></iframe><figcaption>Cap</figcaption></figure>\n\n' +
        '<figure class="kg-card kg-video-card"><video src="https://ex.net/content/media/v.mp4" poster="https://ex.net/content/images/p.jpg"></video></figure>\n\nAfter',
    );
  });

  test('the members-only divider stays on a line of its own where Ghost cut the public part', () => {
    const [teaser, opening] = read({
      posts: [
        post({ html: '<p>Free part</p><!-- members-only --><h2>Paid</h2>', visibility: 'members' }),
        post({ id: 'p2', slug: 'u', html: '<!--members-only--><p>All paid</p>', visibility: 'paid' }),
      ],
    }).articles;
    assert.equal(teaser.content, 'Free part\n\n<!--members-only-->\n\n## Paid');
    assert.equal(opening.content, '<!--members-only-->\n\nAll paid');
    assert.deepEqual([teaser.visibility, opening.visibility], ['members', 'paid']);
  });

  test('a tiers post is paid with its tiers’ slugs in posts_products order; an unknown visibility is refused at its line', () => {
    const data = {
      posts: [post({ visibility: 'tiers' }), post({ id: 'p2', slug: 'u', visibility: 'tiers' })],
      products: [
        { id: 'gold', name: 'Gold', slug: 'gold' },
        { id: 'silver', name: 'Silver Tier' },
      ],
      posts_products: [
        { post_id: 'p1', product_id: 'silver', sort_order: 1 },
        { post_id: 'p1', product_id: 'gold', sort_order: 0 },
        { post_id: 'p1', product_id: 'gone', sort_order: 2 },
      ],
    };
    const source = read(data);
    assert.deepEqual(
      source.articles.map((a) => [a.visibility, a.tiers]),
      [
        ['paid', ['gold', 'silver-tier']],
        ['paid', []],
      ],
    );
    assert.deepEqual(
      source.warnings?.map((w) => [w.line, w.kind, w.message]),
      [
        [
          // The second post's visibility.
          exportOf(data)
            .split('\n')
            .flatMap((line, i) => (line.includes('"visibility": "tiers"') ? [i + 1] : []))[1],
          'visibility',
          'visibility tiers names no tier in posts_products: imported as paid (every paid tier)',
        ],
        [lineIn(data, '"gone"'), 'visibility', 'tier "gone" is not among the export\'s products: left out'],
      ],
    );
    const unknown = { posts: [post({ visibility: 'filter' })] };
    const text = exportOf(unknown);
    assert.deepEqual(
      ghostSource('g.json', text, JSON.parse(text)).problems.map((p) => [p.line, p.message]),
      [[lineIn(unknown, '"filter"'), 'visibility must be one of public, members, paid, tiers, got "filter"']],
    );
  });

  test('authors come in posts_authors sort_order whatever the rows’ order; an old export’s author_id is the author', () => {
    const users = [
      { id: 'u1', name: 'Ann', slug: 'ann', website: 'https://ann.example', bio: 'Bio' },
      { id: 'u2', name: 'Bo Ek', slug: 'Not A Slug', profile_image: 'https://img.example/bo.png' },
    ];
    const data = {
      posts: [post(), post({ id: 'p2', slug: 'u', author_id: 'u1' }), post({ id: 'p3', slug: 'v' })],
      users,
      posts_authors: [
        { post_id: 'p1', author_id: 'u1', sort_order: 1 },
        { post_id: 'p1', author_id: 'u2', sort_order: 0 },
        { post_id: 'p3', author_id: 'nobody', sort_order: 0 },
      ],
    };
    const source = read(data);
    const [both, legacy, unknown] = source.articles;
    assert.deepEqual(both.authors, [
      { name: 'Bo Ek', slug: 'bo-ek', image: 'https://img.example/bo.png', title: null, url: null },
      { name: 'Ann', slug: 'ann', image: null, title: null, url: 'https://ann.example' },
    ]);
    assert.deepEqual(both.author, { name: 'Bo Ek', image: 'https://img.example/bo.png' });
    assert.deepEqual(
      legacy.authors?.map((a) => a.name),
      ['Ann'],
    );
    assert.deepEqual([unknown.authors, unknown.author], [[], null]);
    assert.deepEqual(
      source.warnings?.map((w) => [w.line, w.kind, w.message]),
      [
        [
          lineIn(data, '"nobody"'),
          'unknown-author',
          'author "nobody" is not among the export\'s users (or has no name): left out of the post\'s authors',
        ],
      ],
    );
  });

  test('fields at Ghost’s defaults say nothing; fields Folio cannot keep, and a post with only a Lexical document, are warned about at their line', () => {
    const data = {
      posts: [
        post({
          featured: 0,
          show_title_and_feature_image: 1,
          uuid: 'x',
          email_recipient_filter: 'all',
          codeinjection_head: '<style>p{}</style>',
          custom_template: null,
        }),
        post({ id: 'p2', slug: 'u', html: null, lexical: '{"root":{}}' }),
      ],
      posts_meta: [{ id: 'm1', post_id: 'p1', og_title: 'OG', email_only: 0, feature_image_caption: null }],
    };
    const source = read(data);
    assert.deepEqual(warningsOf(source), [
      [
        lineIn(data, '"codeinjection_head"'),
        'unmapped-field',
        'post "t": posts.codeinjection_head is not imported: Folio serves content, not page code',
      ],
      [
        lineIn(data, '"lexical"'),
        'unmapped-field',
        'post "u": has no html, and its lexical document is not imported: the article is empty (export again from Ghost 5, which writes html)',
      ],
      [
        lineIn(data, '"og_title"'),
        'unmapped-field',
        'post "t": posts_meta.og_title is not imported: Folio has no such field',
      ],
    ]);
  });

  test('an internal tag and a link to a missing tag are left out with a warning at their line', () => {
    const data = {
      posts: [post()],
      tags: [
        { id: 't1', name: '#hidden', slug: 'hash-hidden', visibility: 'internal' },
        { id: 't2', name: 'Shown', slug: 'shown-slug' },
      ],
      posts_tags: [
        { post_id: 'p1', tag_id: 't1', sort_order: 0 },
        { post_id: 'p1', tag_id: 't2', sort_order: 1 },
        { post_id: 'p1', tag_id: 't9', sort_order: 2 },
      ],
    };
    const source = read(data);
    assert.deepEqual(source.articles[0].tags, ['Shown']);
    assert.deepEqual(
      source.tags.map((tag) => [tag.name, tag.slug]),
      [['Shown', 'shown-slug']],
    );
    assert.deepEqual(
      source.warnings?.map((w) => [w.line, w.kind]),
      [
        [lineIn(data, '"#hidden"'), 'internal-tag'],
        [lineIn(data, '"t9"'), 'unknown-tag'],
      ],
    );
  });

  test('a post sent only by email is reported as excluded and kept archived; a numeric id is still its feed id', () => {
    const source = read({ posts: [post({ id: 17, status: 'sent' })] });
    assert.deepEqual(source.files, [
      {
        file: 'g.json#posts/t',
        kind: 'excluded',
        reason: 'status sent: sent only as an email newsletter, never on the site; imported as archived',
      },
    ]);
    assert.deepEqual([source.articles[0].status, source.articles[0].guid], ['archived', '17']);
  });

  test('the settings give the time zone and logo; a time zone that is not one is warned about and left out', () => {
    const settings = (timezone: string) => [
      { key: 'timezone', value: timezone },
      { key: 'logo', value: '__GHOST_URL__/content/images/logo.png' },
    ];
    assert.deepEqual(read({ posts: [], settings: settings('Europe/Lisbon') }).settings, {
      siteUrl: null,
      urlPattern: '/:slug/',
      timeZone: 'Europe/Lisbon',
      defaultAuthor: null,
      logoUrl: '/content/images/logo.png',
    });
    const bad = read({ posts: [], settings: settings('Mars/Olympus') }, { siteUrl: 'https://ex.net' });
    assert.equal(bad.settings?.timeZone, null);
    assert.equal(bad.settings?.logoUrl, 'https://ex.net/content/images/logo.png');
    assert.deepEqual(
      bad.warnings?.map((w) => w.kind),
      ['invalid-setting'],
    );
  });

  test('strict refuses what would only be warned about', () => {
    const data = { posts: [post({ featured: true })] };
    const text = exportOf(data);
    assert.ok(ghostSource('g.json', text, JSON.parse(text)).source, 'without strict, a warning');
    const result = ghostSource('g.json', text, JSON.parse(text), { strict: true });
    assert.equal(result.source, undefined);
    assert.deepEqual(
      result.problems.map((p) => [p.line, p.kind]),
      [[lineIn(data, '"featured"'), 'unmapped-field']],
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
