// GET /v1/articles and GET /v1/articles/:slug through the HTTP surface: default fields, pagination,
// sorting with ties, status and published filters, search, tag filters, select, text statistics and
// the API's 400 and 404 answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ArticleInput, TagInput } from '../../src/content/import/records.ts';
import { textStats } from '../../src/content/text-stats.ts';
import {
  articleInput,
  createTestProject,
  type DialectContext,
  describeEachDialect,
  getJson,
  importArticles,
  type TestProject,
  setViewCount,
} from '../helpers.ts';

type Params = Record<string, string | number | boolean | Array<string | number>>;

/** Builds a path with a percent-encoded query; arrays repeat the parameter. */
function url(path: string, params: Params = {}): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(item))}`);
    }
  }
  return parts.length === 0 ? path : `${path}?${parts.join('&')}`;
}

const listKeys = [
  'coverImage',
  'createdAt',
  'excerpt',
  'id',
  'publishedAt',
  'published',
  'readTimeMinutes',
  'slug',
  'title',
  'viewCount',
].sort();
const singleKeys = [...listKeys, 'author', 'content', 'wordCount'].sort();

const specSelectableFields = [
  'content',
  'excerpt',
  'coverImage',
  'title',
  'slug',
  'published',
  'status',
  'viewCount',
  'author',
  'lastUpdatedBy',
  'tags',
  'variants',
  'project',
  'tagColor',
  'tagIcon',
  'wordCount',
  'characterCount',
  'readTimeMinutes',
  'createdAt',
  'updatedAt',
  'publishedAt',
];

const sortedKeys = (value: object) => Object.keys(value).sort();
const sortedSlugs = (body: any): string[] => body.data.map((article: any) => article.slug).sort();

/** A timestamp `days` after 2026-01-01, as stored (ISO 8601 with milliseconds). */
const day = (days: number) => new Date(Date.UTC(2026, 0, 1 + days)).toISOString();
const future = '2999-01-01T00:00:00.000Z';

describeEachDialect('articles', (ctx: DialectContext) => {
  async function setup(articles: ArticleInput[], tags: TagInput[] = []) {
    const project = await createTestProject(ctx.db);
    await importArticles(ctx.db, project.project, articles, tags);
    const rows = await ctx.db.kysely
      .selectFrom('articles')
      .select(['id', 'slug'])
      .where('project_id', '=', project.project.id)
      .execute();
    const ids = new Map(rows.map((row) => [row.slug, row.id]));
    return { ...project, ids };
  }

  async function setViews(id: string, views: number) {
    const { project_id: projectId, slug } = await ctx.db.kysely
      .selectFrom('articles')
      .select(['project_id', 'slug'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await setViewCount(ctx.db, projectId, slug, views);
  }

  const get = (project: TestProject, path: string, params: Params = {}) =>
    getJson(ctx.app, url(path, params), project.headers);

  /** Slugs (sorted) and total of a list request, after checking it succeeded. */
  async function slugsFor(project: TestProject, params: Params) {
    const response = await get(project, '/v1/articles', { limit: 100, ...params });
    assert.equal(response.status, 200, `${JSON.stringify(params)}: ${JSON.stringify(response.body)}`);
    assert.equal(response.body.meta.total, response.body.data.length, JSON.stringify(params));
    return sortedSlugs(response.body);
  }

  async function expectBadRequest(project: TestProject, path: string, params: Params) {
    const response = await get(project, path, params);
    assert.equal(response.status, 400, `${JSON.stringify(params)}: ${JSON.stringify(response.body)}`);
    assert.equal(response.body.error, 'Bad Request');
    assert.equal(response.body.statusCode, 400);
    assert.ok(Array.isArray(response.body.details?.issues), JSON.stringify(response.body));
    return response.body;
  }

  // ---- fields by default -------------------------------------------------------------------------

  test('list: items carry exactly the default fields, with the stored values', async () => {
    const content = 'Hello world, this is the first post.';
    const p = await setup([
      articleInput({
        slug: 'first-post',
        title: 'First post',
        excerpt: 'Short summary',
        coverImage: 'https://cdn.example.com/c.png',
        createdAt: '2026-02-03T04:05:06.789Z',
        publishedAt: '2026-02-04T00:00:00.000Z',
        updatedAt: '2026-02-05T00:00:00.000Z',
        author: { name: 'Grace Hopper', image: 'https://cdn.example.com/g.png' },
        content,
      }),
    ]);
    await setViews(p.ids.get('first-post')!, 42);
    const response = await get(p, '/v1/articles');
    assert.equal(response.status, 200);
    assert.deepEqual(sortedKeys(response.body), ['data', 'meta']);
    assert.equal(response.body.data.length, 1);
    const item = response.body.data[0];
    assert.deepEqual(sortedKeys(item), listKeys);
    assert.deepEqual(item, {
      id: p.ids.get('first-post'),
      title: 'First post',
      slug: 'first-post',
      excerpt: 'Short summary',
      coverImage: 'https://cdn.example.com/c.png',
      published: true,
      viewCount: 42,
      readTimeMinutes: 1,
      createdAt: '2026-02-03T04:05:06.789Z',
      publishedAt: '2026-02-04T00:00:00.000Z',
    });
  });

  test('list: null excerpt, coverImage and publishedAt are present as null', async () => {
    const p = await setup([articleInput({ slug: 'bare', status: 'draft', publishedAt: null })]);
    const response = await get(p, '/v1/articles');
    const item = response.body.data[0];
    assert.deepEqual(sortedKeys(item), listKeys);
    assert.equal(item.excerpt, null);
    assert.equal(item.coverImage, null);
    assert.equal(item.publishedAt, null);
    assert.equal(item.published, false);
  });

  test('single: the article carries the list fields plus content, wordCount and author', async () => {
    const content = 'Hello world, this is the first post.';
    const p = await setup([
      articleInput({
        slug: 'first-post',
        title: 'First post',
        excerpt: null,
        coverImage: 'https://cdn.example.com/c.png',
        createdAt: '2026-02-03T04:05:06.789Z',
        publishedAt: '2026-02-04T00:00:00.000Z',
        author: { name: 'Grace Hopper', image: null },
        content,
      }),
    ]);
    await setViews(p.ids.get('first-post')!, 7);
    const response = await get(p, '/v1/articles/first-post');
    assert.equal(response.status, 200);
    assert.deepEqual(sortedKeys(response.body), ['data']);
    assert.deepEqual(sortedKeys(response.body.data), singleKeys);
    assert.deepEqual(response.body.data, {
      id: p.ids.get('first-post'),
      title: 'First post',
      slug: 'first-post',
      excerpt: null,
      coverImage: 'https://cdn.example.com/c.png',
      published: true,
      viewCount: 7,
      readTimeMinutes: 1,
      createdAt: '2026-02-03T04:05:06.789Z',
      publishedAt: '2026-02-04T00:00:00.000Z',
      content,
      wordCount: 7,
      author: { name: 'Grace Hopper', image: null },
    });
  });

  test('single: an unknown slug is a 404 with exactly the contract body', async () => {
    const p = await setup([articleInput({ slug: 'exists' })]);
    const response = await get(p, '/v1/articles/nope');
    assert.equal(response.status, 404);
    assert.deepEqual(response.body, {
      error: 'Not Found',
      message: "Article 'nope' not found",
      statusCode: 404,
    });
    const withSelect = await get(p, '/v1/articles/nope', { select: '{"tags":true}' });
    assert.equal(withSelect.status, 404);
    assert.deepEqual(withSelect.body, {
      error: 'Not Found',
      message: "Article 'nope' not found",
      statusCode: 404,
    });
  });

  test('single: a slug is looked up after URL-decoding and named decoded in the 404', async () => {
    const p = await setup([articleInput({ slug: 'exists' })]);
    const response = await getJson(ctx.app, '/v1/articles/caf%C3%A9', p.headers);
    assert.equal(response.status, 404);
    assert.deepEqual(response.body, {
      error: 'Not Found',
      message: "Article 'café' not found",
      statusCode: 404,
    });
  });

  test('single: a slug holding a NUL is a 404, never a 500', async () => {
    const p = await setup([articleInput({ slug: 'exists' })]);
    for (const [path, slug] of [
      ['/v1/articles/%00', '\u0000'],
      ['/v1/articles/exists%00', 'exists\u0000'],
    ]) {
      const response = await getJson(ctx.app, path, p.headers);
      assert.equal(response.status, 404, JSON.stringify(response.body));
      assert.deepEqual(response.body, {
        error: 'Not Found',
        message: `Article '${slug}' not found`,
        statusCode: 404,
      });
    }
  });

  test('single: any status can be fetched by slug', async () => {
    const p = await setup([
      articleInput({ slug: 'd', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'a', status: 'archived' }),
      articleInput({ slug: 's', status: 'published', publishedAt: future }),
    ]);
    for (const [slug, status] of [
      ['d', 'draft'],
      ['a', 'archived'],
      ['s', 'scheduled'],
    ]) {
      const response = await get(p, `/v1/articles/${slug}`, { select: '{"status":true}' });
      assert.equal(response.status, 200);
      assert.equal(response.body.data.status, status);
      assert.equal(response.body.data.published, false);
    }
  });

  // ---- pagination --------------------------------------------------------------------------------

  test('meta: page, limit, total and totalPages = ceil(total / limit)', async () => {
    const p = await setup(
      Array.from({ length: 7 }, (_, i) => articleInput({ slug: `a${i}`, createdAt: day(i) })),
    );
    const cases: Array<[Params, { page: number; limit: number; total: number; totalPages: number }, number]> =
      [
        [{}, { page: 1, limit: 10, total: 7, totalPages: 1 }, 7],
        [{ limit: 3 }, { page: 1, limit: 3, total: 7, totalPages: 3 }, 3],
        [{ limit: 3, page: 2 }, { page: 2, limit: 3, total: 7, totalPages: 3 }, 3],
        [{ limit: 3, page: 3 }, { page: 3, limit: 3, total: 7, totalPages: 3 }, 1],
        [{ limit: 7 }, { page: 1, limit: 7, total: 7, totalPages: 1 }, 7],
        [{ limit: 6 }, { page: 1, limit: 6, total: 7, totalPages: 2 }, 6],
        [{ limit: 1, page: 7 }, { page: 7, limit: 1, total: 7, totalPages: 7 }, 1],
        [{ limit: 100 }, { page: 1, limit: 100, total: 7, totalPages: 1 }, 7],
      ];
    for (const [params, meta, count] of cases) {
      const response = await get(p, '/v1/articles', params);
      assert.equal(response.status, 200);
      assert.deepEqual(response.body.meta, meta, JSON.stringify(params));
      assert.equal(response.body.data.length, count, JSON.stringify(params));
    }
    // Default order is createdAt descending: page 3 of 3 holds the oldest article.
    const last = await get(p, '/v1/articles', { limit: 3, page: 3 });
    assert.deepEqual(
      last.body.data.map((a: any) => a.slug),
      ['a0'],
    );
  });

  test('list: a page past the end returns no items and the right meta', async () => {
    const p = await setup(Array.from({ length: 7 }, (_, i) => articleInput({ slug: `a${i}` })));
    const past = await get(p, '/v1/articles', { limit: 3, page: 4 });
    assert.equal(past.status, 200);
    assert.deepEqual(past.body, { data: [], meta: { page: 4, limit: 3, total: 7, totalPages: 3 } });
    const far = await get(p, '/v1/articles', { page: 1000 });
    assert.deepEqual(far.body, { data: [], meta: { page: 1000, limit: 10, total: 7, totalPages: 1 } });
  });

  test('list: a project without articles has total 0 and totalPages 0', async () => {
    const p = await setup([]);
    const response = await get(p, '/v1/articles');
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { data: [], meta: { page: 1, limit: 10, total: 0, totalPages: 0 } });
    const filtered = await get(p, '/v1/articles', { search: 'anything', limit: 5, page: 2 });
    assert.deepEqual(filtered.body, { data: [], meta: { page: 2, limit: 5, total: 0, totalPages: 0 } });
  });

  // ---- sorting -----------------------------------------------------------------------------------

  /**
   * Seven articles whose sort values repeat, for one sort field. `value` is what the expected
   * order compares (null for a null publishedAt); `input` and `after` store it.
   */
  interface SortCase {
    value: string | number | null;
    input: Partial<ArticleInput>;
    views?: number;
  }

  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

  const sortCases: Record<string, SortCase[]> = {
    createdAt: [3, 1, 3, 2, 1, 3, 0].map((d) => ({ value: day(d), input: { createdAt: day(d) } })),
    updatedAt: [5, 5, 2, 9, 2, 5, 1].map((d) => ({ value: day(d), input: { updatedAt: day(d) } })),
    publishedAt: [
      { value: day(2), input: { publishedAt: day(2) } },
      { value: null, input: { status: 'draft', publishedAt: null } },
      { value: day(1), input: { publishedAt: day(1) } },
      { value: day(2), input: { publishedAt: day(2) } },
      { value: null, input: { status: 'archived', publishedAt: null } },
      { value: day(3), input: { publishedAt: day(3) } },
      { value: day(2), input: { status: 'archived', publishedAt: day(2) } },
    ],
    // Titles sort case-insensitively, so `Apple` and `apple` tie and are ordered by id.
    title: ['Banana', 'apple', 'banana', 'Cherry', 'Apple', 'apple', 'Éclair'].map((title) => ({
      value: title.toLowerCase(),
      input: { title },
    })),
    viewCount: [5, 0, 5, 12, 0, 5, 1].map((views) => ({ value: views, input: {}, views })),
    readTimeMinutes: [10, 300, 600, 800, 550, 0, 10].map((n) => ({
      value: textStats(words(n)).readTimeMinutes,
      input: { content: words(n) },
    })),
    wordCount: [3, 1, 3, 7, 1, 0, 3].map((n) => ({ value: n, input: { content: words(n) } })),
  };

  // Guard: the read times above really repeat and differ (1, 1, 2, 3, 2, 0, 1).
  assert.deepEqual(
    sortCases.readTimeMinutes.map((c) => c.value),
    [1, 1, 2, 3, 2, 0, 1],
  );

  function expectedOrder(
    cases: Array<SortCase & { id: string; slug: string }>,
    order: 'asc' | 'desc',
  ): string[] {
    const direction = order === 'asc' ? 1 : -1;
    return [...cases]
      .sort((a, b) => {
        if (a.value === null || b.value === null) {
          if (a.value === b.value) return direction * (a.id < b.id ? -1 : 1);
          return a.value === null ? 1 : -1;
        }
        if (a.value !== b.value) return direction * (a.value < b.value ? -1 : 1);
        return direction * (a.id < b.id ? -1 : 1);
      })
      .map((c) => c.slug);
  }

  for (const [sort, cases] of Object.entries(sortCases)) {
    for (const order of ['asc', 'desc'] as const) {
      test(`sort=${sort}&order=${order}: pages of 2 yield every article once, ties by id ${order}`, async () => {
        const p = await setup(cases.map((c, i) => articleInput({ slug: `s${i}`, ...c.input })));
        for (const [i, c] of cases.entries()) {
          if (c.views !== undefined) await setViews(p.ids.get(`s${i}`)!, c.views);
        }
        const expected = expectedOrder(
          cases.map((c, i) => ({ ...c, slug: `s${i}`, id: p.ids.get(`s${i}`)! })),
          order,
        );
        const walked: string[] = [];
        for (let page = 1; page <= 4; page++) {
          const response = await get(p, '/v1/articles', { sort, order, limit: 2, page });
          assert.equal(response.status, 200, JSON.stringify(response.body));
          assert.deepEqual(response.body.meta, { page, limit: 2, total: 7, totalPages: 4 });
          assert.equal(response.body.data.length, page < 4 ? 2 : 1);
          walked.push(...response.body.data.map((a: any) => a.slug));
        }
        const past = await get(p, '/v1/articles', { sort, order, limit: 2, page: 5 });
        assert.deepEqual(past.body.data, []);
        assert.deepEqual(walked, expected);
        assert.equal(new Set(walked).size, 7);
        const whole = await get(p, '/v1/articles', { sort, order, limit: 100 });
        assert.deepEqual(
          whole.body.data.map((a: any) => a.slug),
          expected,
        );
        if (sort === 'publishedAt') {
          // The two articles without publishedAt come last in both orders.
          assert.deepEqual(
            whole.body.data.slice(5).map((a: any) => a.publishedAt),
            [null, null],
          );
        }
      });
    }
  }

  test('sort: without sort and order, the newest createdAt comes first, ties by id descending', async () => {
    const cases = sortCases.createdAt;
    const p = await setup(cases.map((c, i) => articleInput({ slug: `s${i}`, ...c.input })));
    const expected = expectedOrder(
      cases.map((c, i) => ({ ...c, slug: `s${i}`, id: p.ids.get(`s${i}`)! })),
      'desc',
    );
    const response = await get(p, '/v1/articles');
    assert.deepEqual(
      response.body.data.map((a: any) => a.slug),
      expected,
    );
    const ascending = await get(p, '/v1/articles', { order: 'asc' });
    assert.deepEqual(
      ascending.body.data.map((a: any) => a.slug),
      [...expected].reverse(),
    );
  });

  // ---- status and published ----------------------------------------------------------------------

  async function statusProject() {
    return setup([
      articleInput({ slug: 'draft-undated', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'draft-dated', status: 'draft', publishedAt: day(1) }),
      articleInput({ slug: 'live', status: 'published', publishedAt: day(2) }),
      articleInput({ slug: 'live-old', status: 'published', publishedAt: '2020-05-01T10:00:00.000Z' }),
      articleInput({ slug: 'future', status: 'published', publishedAt: future }),
      articleInput({ slug: 'gone', status: 'archived', publishedAt: day(3) }),
      articleInput({ slug: 'gone-undated', status: 'archived', publishedAt: null }),
    ]);
  }

  test('status: the reported status is derived, a future publishedAt being scheduled', async () => {
    const p = await statusProject();
    const response = await get(p, '/v1/articles', { select: '{"status":true}', limit: 100 });
    const bySlug = Object.fromEntries(
      response.body.data.map((a: any) => [a.slug, { status: a.status, published: a.published }]),
    );
    assert.deepEqual(bySlug, {
      'draft-undated': { status: 'draft', published: false },
      'draft-dated': { status: 'draft', published: false },
      live: { status: 'published', published: true },
      'live-old': { status: 'published', published: true },
      future: { status: 'scheduled', published: false },
      gone: { status: 'archived', published: false },
      'gone-undated': { status: 'archived', published: false },
    });
  });

  test('status: each value filters on the reported status', async () => {
    const p = await statusProject();
    assert.deepEqual(await slugsFor(p, { status: 'draft' }), ['draft-dated', 'draft-undated']);
    assert.deepEqual(await slugsFor(p, { status: 'scheduled' }), ['future']);
    assert.deepEqual(await slugsFor(p, { status: 'published' }), ['live', 'live-old']);
    assert.deepEqual(await slugsFor(p, { status: 'archived' }), ['gone', 'gone-undated']);
  });

  test('published: true lists the reported-published articles, false all the others', async () => {
    const p = await statusProject();
    assert.deepEqual(await slugsFor(p, { published: 'true' }), ['live', 'live-old']);
    assert.deepEqual(await slugsFor(p, { published: 'false' }), [
      'draft-dated',
      'draft-undated',
      'future',
      'gone',
      'gone-undated',
    ]);
    assert.deepEqual(await slugsFor(p, { published: 'false', status: 'scheduled' }), ['future']);
    assert.deepEqual(await slugsFor(p, { published: 'true', status: 'scheduled' }), []);
    assert.deepEqual(await slugsFor(p, { published: 'true', status: 'published' }), ['live', 'live-old']);
  });

  test('status: a scheduled article becomes published by itself once its publishedAt passes', async () => {
    const at = new Date(Date.now() + 1500).toISOString();
    const p = await setup([articleInput({ slug: 'soon', status: 'published', publishedAt: at })]);
    const before = await get(p, '/v1/articles/soon', { select: '{"status":true}' });
    assert.equal(before.body.data.status, 'scheduled');
    assert.equal(before.body.data.published, false);
    assert.deepEqual(await slugsFor(p, { status: 'scheduled' }), ['soon']);
    assert.deepEqual(await slugsFor(p, { published: 'true' }), []);
    await sleep(Math.max(0, Date.parse(at) - Date.now()) + 50);
    const after = await get(p, '/v1/articles/soon', { select: '{"status":true}' });
    assert.equal(after.body.data.status, 'published');
    assert.equal(after.body.data.published, true);
    assert.deepEqual(await slugsFor(p, { status: 'published' }), ['soon']);
    assert.deepEqual(await slugsFor(p, { published: 'true' }), ['soon']);
    assert.deepEqual(await slugsFor(p, { status: 'scheduled' }), []);
  });

  // ---- search ------------------------------------------------------------------------------------

  async function searchProject() {
    return setup([
      articleInput({ slug: 'fr', title: 'École de Paris', content: 'Bonjour tout le monde' }),
      articleInput({ slug: 'de', title: 'Straße und Weg', content: 'Deutsch' }),
      articleInput({ slug: 'ru', title: 'Привет мир', content: 'Русский ТЕКСТ' }),
      articleInput({ slug: 'ja', title: '日本語の記事', content: '東京で書いた文章です' }),
      articleInput({
        slug: 'sym',
        title: 'Symbols',
        content: 'Growth of 100% in Q1, snake_case_name, say "hello", path C:\\temp\\file',
      }),
      articleInput({
        slug: 'plain',
        title: 'Plain words',
        content: 'A quick brown fox jumps over the lazy dog: 100 percent, snakeXcase',
      }),
    ]);
  }

  test('search: terms match title or content case-insensitively, as substrings', async () => {
    const p = await searchProject();
    const cases: Array<[string, string[]]> = [
      ['fox', ['plain']],
      ['FOX', ['plain']],
      ['qUiCk BrOwN', ['plain']],
      ['plain', ['plain']],
      ['WORDS', ['plain']],
      ['uick', ['plain']],
      ['ymbo', ['sym']],
      // One term in the title, the other in the content of the same article.
      ['paris bonjour', ['fr']],
      // Every term must match: two terms found only in different articles match nothing.
      ['paris deutsch', []],
      ['fox nowhere', []],
      ['nowhere', []],
      // Whitespace of any kind separates terms; surrounding whitespace is ignored.
      ['  fox   dog  ', ['plain']],
      ['fox\tdog\nlazy', ['plain']],
    ];
    for (const [search, expected] of cases) {
      assert.deepEqual(await slugsFor(p, { search }), expected, search);
    }
  });

  test('search: non-ASCII terms match case-insensitively (É/é, ß/ẞ, Cyrillic, CJK)', async () => {
    const p = await searchProject();
    const cases: Array<[string, string[]]> = [
      ['école', ['fr']],
      ['ÉCOLE', ['fr']],
      ['É', ['fr']],
      ['é', ['fr']],
      ['Éc', ['fr']],
      // Accents are significant: `e` is not `é`.
      ['ecole', []],
      ['straße', ['de']],
      ['STRAẞE', ['de']],
      ['ß', ['de']],
      ['ẞ', ['de']],
      ['aße', ['de']],
      ['ПРИВЕТ', ['ru']],
      ['привет', ['ru']],
      ['МИР', ['ru']],
      ['ми', ['ru']],
      ['П', ['ru']],
      ['текст', ['ru']],
      ['日本', ['ja']],
      ['日', ['ja']],
      ['日本語', ['ja']],
      ['書いた文章', ['ja']],
      ['東京', ['ja']],
      ['日 京', ['ja']],
      ['日本語\u3000東京', ['ja']],
      ['中国', []],
      ['中', []],
    ];
    for (const [search, expected] of cases) {
      assert.deepEqual(await slugsFor(p, { search }), expected, search);
    }
  });

  test('search: %, _, quotes and backslash are literal characters', async () => {
    const p = await searchProject();
    const cases: Array<[string, string[]]> = [
      ['%', ['sym']],
      ['0%', ['sym']],
      ['100%', ['sym']],
      ['100% growth', ['sym']],
      ['%%', []],
      ['_', ['sym']],
      ['e_c', ['sym']],
      ['snake_case', ['sym']],
      ['__', []],
      ['"', ['sym']],
      ['"hello"', ['sym']],
      ['"h', ['sym']],
      ['"nope"', []],
      ["'", []],
      ['\\', ['sym']],
      ['\\t', ['sym']],
      ['C:\\temp\\file', ['sym']],
      ['\\\\', []],
      ['\\%', []],
      ['*', []],
      ['fo*', []],
    ];
    for (const [search, expected] of cases) {
      assert.deepEqual(await slugsFor(p, { search }), expected, search);
    }
  });

  test('search: terms of one and two characters match like longer ones', async () => {
    const p = await searchProject();
    const cases: Array<[string, string[]]> = [
      ['q', ['plain', 'sym']],
      ['Q1', ['sym']],
      ['x', ['plain']],
      ['X', ['plain']],
      ['xc', ['plain']],
      ['zz', []],
      ['q x', ['plain']],
      ['de', ['de', 'fr']],
      ['DE', ['de', 'fr']],
      ['ym', ['sym']],
    ];
    for (const [search, expected] of cases) {
      assert.deepEqual(await slugsFor(p, { search }), expected, search);
    }
  });

  test('search: the Greek sigma forms Σ, σ and final ς match each other', async () => {
    const p = await setup([
      articleInput({ slug: 'greek', title: 'ΟΔΟΣ', content: 'Λόγος και Σίσυφος' }),
      articleInput({ slug: 'plain', title: 'Plain', content: 'No Greek here' }),
    ]);
    for (const search of [
      'σ',
      'ς',
      'Σ',
      'οσ',
      'ος',
      'ΟΣ',
      'ςί',
      'οδος',
      'οδοσ',
      'ΟΔΟΣ',
      'λόγοσ',
      'λόγος',
      'ΛΌΓΟΣ',
      'σίσυφοσ',
      'ΣΊΣΥΦΟΣ',
      'σ λόγοσ',
    ]) {
      assert.deepEqual(await slugsFor(p, { search }), ['greek'], search);
    }
    assert.deepEqual(await slugsFor(p, { search: 'ξ' }), []);
    assert.deepEqual(await slugsFor(p, { search: 'σξ' }), []);
    assert.deepEqual(await slugsFor(p, { search: 'λόγοσξ' }), []);
  });

  test('search: a NUL character matches nothing and is never a 500', async () => {
    const p = await setup([articleInput({ slug: 'one', title: 'ab cd', content: 'a b' })]);
    for (const search of ['\u0000', 'a\u0000', 'ab\u0000cd', 'ab \u0000']) {
      const response = await get(p, '/v1/articles', { search });
      assert.equal(response.status, 200, `${JSON.stringify(search)}: ${JSON.stringify(response.body)}`);
      assert.deepEqual(response.body, { data: [], meta: { page: 1, limit: 10, total: 0, totalPages: 0 } });
    }
  });

  test('search: whitespace only means no search; the excerpt is searched, the slug is not', async () => {
    const p = await setup([
      articleInput({ slug: 'hidden-word', title: 'T', excerpt: 'secretExcerpt', content: 'Body' }),
      articleInput({ slug: 'other', title: 'U', content: 'Body' }),
    ]);
    assert.deepEqual(await slugsFor(p, { search: '   ' }), ['hidden-word', 'other']);
    assert.deepEqual(await slugsFor(p, { search: '' }), ['hidden-word', 'other']);
    assert.deepEqual(await slugsFor(p, { search: 'hidden' }), []);
    assert.deepEqual(await slugsFor(p, { search: 'SECRETEXCERPT' }), ['hidden-word']);
    assert.deepEqual(await slugsFor(p, { search: 'tEx' }), ['hidden-word']);
    assert.deepEqual(await slugsFor(p, { search: 'cretex body' }), ['hidden-word']);
    assert.deepEqual(await slugsFor(p, { search: 'body' }), ['hidden-word', 'other']);
  });

  test('search: the plain text is searched, not the Markdown syntax, link URLs or image paths', async () => {
    const p = await setup([
      articleInput({
        slug: 'md',
        title: 'Markdown',
        content: [
          'Some **bold** words and _slanted_ ones, see [the guide](https://example.org/linkurl).',
          '![alt picture](images/photo.png)',
          '# Heading text',
          '<span class="htmlattr">inline html</span>',
          '`code_inline` and <https://auto.example/autolinkurl>',
        ].join('\n\n'),
      }),
      articleInput({ slug: 'other', title: 'Other', content: 'Nothing' }),
    ]);
    const cases: Array<[string, string[]]> = [
      ['bold', ['md']],
      ['some bold words', ['md']],
      ['slanted', ['md']],
      ['the guide', ['md']],
      ['heading', ['md']],
      ['code_inline', ['md']],
      ['inline html', ['md']],
      // Markdown syntax, URLs, image alt text and paths, and HTML tags are not text.
      ['**', []],
      ['**bold**', []],
      ['_slanted_', []],
      ['linkurl', []],
      ['example.org', []],
      ['](', []],
      ['photo', []],
      ['picture', []],
      ['#', []],
      ['htmlattr', []],
      ['span', []],
      ['autolinkurl', []],
      // Fields are separate: a term never spans the end of the title and the start of the text.
      ['markdownsome', []],
    ];
    for (const [search, expected] of cases) {
      assert.deepEqual(await slugsFor(p, { search }), expected, search);
    }
  });

  test('search: a changed excerpt or content is searched at once, the old text no longer', async () => {
    const project = await createTestProject(ctx.db);
    await importArticles(ctx.db, project.project, [
      articleInput({ slug: 'a', title: 'A', excerpt: 'oldexcerpt', content: 'oldbody' }),
    ]);
    assert.deepEqual(await slugsFor(project, { search: 'oldexcerpt' }), ['a']);
    await importArticles(ctx.db, project.project, [
      articleInput({ slug: 'a', title: 'A', excerpt: 'newexcerpt', content: 'newbody' }),
    ]);
    assert.deepEqual(await slugsFor(project, { search: 'oldexcerpt' }), []);
    assert.deepEqual(await slugsFor(project, { search: 'oldbody' }), []);
    assert.deepEqual(await slugsFor(project, { search: 'newexcerpt newbody' }), ['a']);
    assert.deepEqual(await slugsFor(project, { search: 'ne' }), ['a']);
  });

  test('search: 200 characters are accepted, 201 are a 400 naming search', async () => {
    const p = await searchProject();
    const ok = await get(p, '/v1/articles', { search: 'a'.repeat(200) });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.meta.total, 0);
    const emoji = await get(p, '/v1/articles', { search: '😀'.repeat(200) });
    assert.equal(emoji.status, 200, 'the limit counts characters, not UTF-16 units');
    const body = await expectBadRequest(p, '/v1/articles', { search: 'a'.repeat(201) });
    assert.equal(body.details.issues.length, 1);
    assert.equal(body.details.issues[0].field, 'search');
    assert.match(body.details.issues[0].message, /200/);
    assert.match(body.message, /search/);
  });

  test('search: combines with status, published, tags and pagination', async () => {
    const p = await setup([
      articleInput({ slug: 'a', title: 'Rust guide', tags: ['Code'] }),
      articleInput({ slug: 'b', title: 'Rust draft', status: 'draft', publishedAt: null, tags: ['Code'] }),
      articleInput({ slug: 'c', title: 'Rust news', tags: ['News'] }),
      articleInput({ slug: 'd', title: 'Go guide', tags: ['Code'] }),
    ]);
    assert.deepEqual(await slugsFor(p, { search: 'rust' }), ['a', 'b', 'c']);
    assert.deepEqual(await slugsFor(p, { search: 'rust', published: 'true' }), ['a', 'c']);
    assert.deepEqual(await slugsFor(p, { search: 'rust', status: 'draft' }), ['b']);
    assert.deepEqual(await slugsFor(p, { search: 'rust', tags: 'code' }), ['a', 'b']);
    assert.deepEqual(await slugsFor(p, { search: 'guide', excludeTags: 'news' }), ['a', 'd']);
    assert.deepEqual(await slugsFor(p, { search: 'rust', tagsAll: 'code', published: 'true' }), ['a']);
    const paged = await get(p, '/v1/articles', {
      search: 'rust',
      limit: 2,
      page: 2,
      sort: 'title',
      order: 'asc',
    });
    assert.deepEqual(paged.body.meta, { page: 2, limit: 2, total: 3, totalPages: 2 });
    assert.deepEqual(
      paged.body.data.map((a: any) => a.slug),
      ['c'],
    );
  });

  // ---- tag filters -------------------------------------------------------------------------------

  async function tagProject() {
    return setup(
      [
        articleInput({ slug: 't1', tags: ['News', 'Tech'] }),
        articleInput({ slug: 't2', tags: ['News'] }),
        articleInput({ slug: 't3', tags: ['Tech', 'Life'] }),
        articleInput({ slug: 't4', tags: ['Life', 'Machine Learning'] }),
        articleInput({ slug: 't5', tags: [] }),
        articleInput({ slug: 't6', status: 'draft', publishedAt: null, tags: ['News', 'Life', 'Économie'] }),
      ],
      [{ name: 'Unused', color: null, icon: null }],
    );
  }
  const allTagged = ['t1', 't2', 't3', 't4', 't5', 't6'];

  test('tags: articles having any of the names, comma-separated or repeated', async () => {
    const p = await tagProject();
    const cases: Array<[Params, string[]]> = [
      [{ tags: 'News' }, ['t1', 't2', 't6']],
      [{ tags: 'news,life' }, ['t1', 't2', 't3', 't4', 't6']],
      [{ tags: ['news', 'life'] }, ['t1', 't2', 't3', 't4', 't6']],
      [{ tags: ['news,tech', 'life'] }, ['t1', 't2', 't3', 't4', 't6']],
      [{ tags: 'news,news' }, ['t1', 't2', 't6']],
      [{ tags: 'unused' }, []],
    ];
    for (const [params, expected] of cases) {
      assert.deepEqual(await slugsFor(p, params), expected, JSON.stringify(params));
    }
  });

  test('tags: names match case-insensitively after trimming', async () => {
    const p = await tagProject();
    const cases: Array<[Params, string[]]> = [
      [{ tags: 'NEWS' }, ['t1', 't2', 't6']],
      [{ tags: '  News  ' }, ['t1', 't2', 't6']],
      [{ tags: ' tECh , LIFE ' }, ['t1', 't3', 't4', 't6']],
      [{ tags: 'machine learning' }, ['t4']],
      [{ tags: ' MACHINE LEARNING' }, ['t4']],
      [{ tags: 'ÉCONOMIE' }, ['t6']],
      [{ tags: 'économie' }, ['t6']],
      [{ tagsAll: ' NEWS,tech ' }, ['t1']],
      [{ excludeTags: ' LIFE ' }, ['t1', 't2', 't5']],
    ];
    for (const [params, expected] of cases) {
      assert.deepEqual(await slugsFor(p, params), expected, JSON.stringify(params));
    }
  });

  test('tagsAll: articles having every one of the names', async () => {
    const p = await tagProject();
    const cases: Array<[Params, string[]]> = [
      [{ tagsAll: 'news' }, ['t1', 't2', 't6']],
      [{ tagsAll: 'news,tech' }, ['t1']],
      [{ tagsAll: ['news', 'tech'] }, ['t1']],
      [{ tagsAll: 'news,life' }, ['t6']],
      [{ tagsAll: 'news,tech,life' }, []],
      [{ tagsAll: 'news,news' }, ['t1', 't2', 't6']],
    ];
    for (const [params, expected] of cases) {
      assert.deepEqual(await slugsFor(p, params), expected, JSON.stringify(params));
    }
  });

  test('excludeTags: articles having none of the names', async () => {
    const p = await tagProject();
    const cases: Array<[Params, string[]]> = [
      [{ excludeTags: 'news' }, ['t3', 't4', 't5']],
      [{ excludeTags: 'news,life' }, ['t5']],
      [{ excludeTags: ['news', 'life'] }, ['t5']],
      [{ excludeTags: 'unused' }, allTagged],
    ];
    for (const [params, expected] of cases) {
      assert.deepEqual(await slugsFor(p, params), expected, JSON.stringify(params));
    }
  });

  test('tag filters: names matching no tag match no article, but exclude nothing', async () => {
    const p = await tagProject();
    const cases: Array<[Params, string[]]> = [
      [{ tags: 'unknown' }, []],
      [{ tags: 'unknown,other' }, []],
      [{ tags: 'unknown,tech' }, ['t1', 't3']],
      [{ tagsAll: 'unknown' }, []],
      [{ tagsAll: 'news,unknown' }, []],
      [{ tagsAll: ['news', 'unknown'] }, []],
      [{ excludeTags: 'unknown' }, allTagged],
      [{ excludeTags: 'unknown,news' }, ['t3', 't4', 't5']],
    ];
    for (const [params, expected] of cases) {
      assert.deepEqual(await slugsFor(p, params), expected, JSON.stringify(params));
    }
  });

  test('tag filters: combine with each other and with the other filters (AND)', async () => {
    const p = await tagProject();
    const cases: Array<[Params, string[]]> = [
      [{ tags: 'tech', excludeTags: 'life' }, ['t1']],
      [{ tags: 'news', tagsAll: 'life' }, ['t6']],
      [{ tags: 'news,tech', tagsAll: 'life', excludeTags: 'économie' }, ['t3']],
      [{ tags: 'life', published: 'true' }, ['t3', 't4']],
      [{ tagsAll: 'news,life', status: 'draft' }, ['t6']],
      [{ excludeTags: 'news', status: 'published' }, ['t3', 't4', 't5']],
      [{ excludeTags: 'news', published: 'false' }, []],
      [{ tags: 'unknown', excludeTags: 'news' }, []],
      [{ tags: 'news', excludeTags: 'unknown', published: 'true' }, ['t1', 't2']],
    ];
    for (const [params, expected] of cases) {
      assert.deepEqual(await slugsFor(p, params), expected, JSON.stringify(params));
    }
  });

  test('tag filters: a name holding a NUL matches no tag and is never a 500', async () => {
    const p = await tagProject();
    const cases: Array<[Params, string[]]> = [
      [{ tags: '\u0000' }, []],
      [{ tags: 'news\u0000' }, []],
      [{ tags: 'news\u0000,tech' }, ['t1', 't3']],
      [{ tagsAll: 'news,\u0000' }, []],
      [{ excludeTags: '\u0000' }, allTagged],
      [{ excludeTags: 'life,\u0000' }, ['t1', 't2', 't5']],
    ];
    for (const [params, expected] of cases) {
      assert.deepEqual(await slugsFor(p, params), expected, JSON.stringify(params));
    }
  });

  test('tag filters: meta counts only the matching articles', async () => {
    const p = await tagProject();
    const response = await get(p, '/v1/articles', { tags: 'news,life', limit: 2, page: 3 });
    assert.deepEqual(response.body.meta, { page: 3, limit: 2, total: 5, totalPages: 3 });
    assert.equal(response.body.data.length, 1);
  });

  // ---- select ------------------------------------------------------------------------------------

  test('select: true adds a field and false removes one; id is always present', async () => {
    const p = await setup([articleInput({ slug: 'one', content: 'Some body text', excerpt: 'Ex' })]);
    const added = await get(p, '/v1/articles', { select: '{"content":true,"wordCount":true}' });
    assert.deepEqual(sortedKeys(added.body.data[0]), [...listKeys, 'content', 'wordCount'].sort());
    assert.equal(added.body.data[0].content, 'Some body text');
    assert.equal(added.body.data[0].wordCount, 3);

    const removed = await get(p, '/v1/articles', { select: '{"title":false,"excerpt":false}' });
    assert.deepEqual(
      sortedKeys(removed.body.data[0]),
      listKeys.filter((k) => k !== 'title' && k !== 'excerpt'),
    );

    const single = await get(p, '/v1/articles/one', {
      select: '{"content":false,"author":false,"status":true}',
    });
    assert.deepEqual(
      sortedKeys(single.body.data),
      [...singleKeys.filter((k) => k !== 'content' && k !== 'author'), 'status'].sort(),
    );

    const removeAll = Object.fromEntries(specSelectableFields.map((field) => [field, false]));
    const onlyId = await get(p, '/v1/articles', { select: JSON.stringify(removeAll) });
    assert.deepEqual(onlyId.body.data, [{ id: p.ids.get('one') }]);
    const onlyIdSingle = await get(p, '/v1/articles/one', { select: JSON.stringify(removeAll) });
    assert.deepEqual(onlyIdSingle.body.data, { id: p.ids.get('one') });

    const empty = await get(p, '/v1/articles', { select: '{}' });
    assert.deepEqual(sortedKeys(empty.body.data[0]), listKeys);
    const redundant = await get(p, '/v1/articles', { select: '{"title":true,"content":false}' });
    assert.deepEqual(sortedKeys(redundant.body.data[0]), listKeys);
  });

  test('select: every selectable field can be added, with its documented shape', async () => {
    const content = '# Heading\n\nSome *emphasis* with [a link](https://example.com) and `code`.';
    const p = await setup(
      [
        articleInput({
          slug: 'full',
          title: 'Full',
          excerpt: 'Ex',
          coverImage: 'https://cdn.example.com/c.png',
          createdAt: day(1),
          updatedAt: '2026-03-04T05:06:07.890Z',
          publishedAt: day(2),
          author: { name: 'Ada', image: 'https://cdn.example.com/ada.png' },
          lastUpdatedBy: { name: 'Linus', image: null },
          tags: ['beta', 'Alpha', 'gamma'],
          variants: [
            { key: 'newsletter', title: 'NL', excerpt: null, content: 'Short' },
            { key: 'fr', title: 'Complet', excerpt: 'Ex FR', content: 'Contenu' },
            { key: 'de', title: null, excerpt: null, content: null },
          ],
          content,
        }),
      ],
      [
        { name: 'Alpha', color: '#112233', icon: 'star' },
        { name: 'beta', color: null, icon: 'bolt' },
        { name: 'gamma', color: '#AABBCC', icon: null },
      ],
    );
    const tagRows = await ctx.db.kysely
      .selectFrom('tags')
      .select(['id', 'name'])
      .where('project_id', '=', p.project.id)
      .execute();
    const tagId = new Map(tagRows.map((row) => [row.name, row.id]));
    const stats = textStats(content, { hasCoverImage: true });
    const all = Object.fromEntries(specSelectableFields.map((field) => [field, true]));
    const response = await get(p, '/v1/articles', { select: JSON.stringify(all) });
    assert.equal(response.status, 200);
    const article = response.body.data[0];
    const variants = article.variants.map(({ id, ...rest }: any) => {
      assert.equal(typeof id, 'string');
      return rest;
    });
    assert.equal(new Set(article.variants.map((v: any) => v.id)).size, 3);
    assert.deepEqual(variants, [
      { key: 'de', title: null, excerpt: null, content: null },
      { key: 'fr', title: 'Complet', excerpt: 'Ex FR', content: 'Contenu' },
      { key: 'newsletter', title: 'NL', excerpt: null, content: 'Short' },
    ]);
    const { variants: _variants, ...rest } = article;
    assert.deepEqual(rest, {
      id: p.ids.get('full'),
      title: 'Full',
      slug: 'full',
      content,
      excerpt: 'Ex',
      coverImage: 'https://cdn.example.com/c.png',
      published: true,
      status: 'published',
      viewCount: 0,
      author: { name: 'Ada', image: 'https://cdn.example.com/ada.png' },
      lastUpdatedBy: { name: 'Linus', image: null },
      tags: [
        { id: tagId.get('Alpha'), name: 'Alpha', color: '#112233', icon: 'star' },
        { id: tagId.get('beta'), name: 'beta', color: null, icon: 'bolt' },
        { id: tagId.get('gamma'), name: 'gamma', color: '#AABBCC', icon: null },
      ],
      project: { id: p.project.id, name: p.project.name, slug: p.project.slug },
      wordCount: stats.wordCount,
      characterCount: stats.characterCount,
      readTimeMinutes: stats.readTimeMinutes,
      createdAt: day(1),
      updatedAt: '2026-03-04T05:06:07.890Z',
      publishedAt: day(2),
    });
    // The same article fetched singly has the same shape.
    const single = await get(p, '/v1/articles/full', { select: JSON.stringify(all) });
    assert.deepEqual(single.body.data, article);
  });

  test('select: tags are {id, name} ordered by name; tagColor and tagIcon add color and icon', async () => {
    const p = await setup(
      [articleInput({ slug: 'x', tags: ['zeta', 'Beta', 'alpha'] }), articleInput({ slug: 'y', tags: [] })],
      [
        { name: 'alpha', color: '#000001', icon: 'a-icon' },
        { name: 'Beta', color: null, icon: null },
        { name: 'zeta', color: '#0000FF', icon: 'z-icon' },
      ],
    );
    const rows = await ctx.db.kysely
      .selectFrom('tags')
      .select(['id', 'name'])
      .where('project_id', '=', p.project.id)
      .execute();
    const id = (name: string) => rows.find((row) => row.name === name)!.id;
    const bySlug = async (select: string) => {
      const response = await get(p, '/v1/articles', { select, sort: 'title', order: 'asc' });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return Object.fromEntries(response.body.data.map((a: any) => [a.slug, a]));
    };

    const plain = await bySlug('{"tags":true}');
    assert.deepEqual(plain.x.tags, [
      { id: id('alpha'), name: 'alpha' },
      { id: id('Beta'), name: 'Beta' },
      { id: id('zeta'), name: 'zeta' },
    ]);
    assert.deepEqual(plain.y.tags, []);

    const color = await bySlug('{"tagColor":true}');
    assert.deepEqual(color.x.tags, [
      { id: id('alpha'), name: 'alpha', color: '#000001' },
      { id: id('Beta'), name: 'Beta', color: null },
      { id: id('zeta'), name: 'zeta', color: '#0000FF' },
    ]);
    assert.deepEqual(sortedKeys(color.x), [...listKeys, 'tags'].sort(), 'tagColor implies tags');

    const icon = await bySlug('{"tagIcon":true}');
    assert.deepEqual(icon.x.tags, [
      { id: id('alpha'), name: 'alpha', icon: 'a-icon' },
      { id: id('Beta'), name: 'Beta', icon: null },
      { id: id('zeta'), name: 'zeta', icon: 'z-icon' },
    ]);
    assert.deepEqual(sortedKeys(icon.x), [...listKeys, 'tags'].sort(), 'tagIcon implies tags');

    const both = await bySlug('{"tagColor":true,"tagIcon":true}');
    assert.deepEqual(both.x.tags, [
      { id: id('alpha'), name: 'alpha', color: '#000001', icon: 'a-icon' },
      { id: id('Beta'), name: 'Beta', color: null, icon: null },
      { id: id('zeta'), name: 'zeta', color: '#0000FF', icon: 'z-icon' },
    ]);
    assert.deepEqual(both.y.tags, []);

    const single = await get(p, '/v1/articles/x', { select: '{"tagIcon":true}' });
    assert.deepEqual(single.body.data.tags, icon.x.tags);
  });

  test('select: lastUpdatedBy is null or {name, image}; author is {name, image}', async () => {
    const p = await setup([
      articleInput({ slug: 'never', lastUpdatedBy: null, author: { name: 'Ada', image: null } }),
      articleInput({
        slug: 'edited',
        lastUpdatedBy: { name: 'Bob', image: 'https://cdn.example.com/bob.png' },
        author: { name: 'Cy', image: 'https://cdn.example.com/cy.png' },
      }),
    ]);
    const response = await get(p, '/v1/articles', { select: '{"lastUpdatedBy":true,"author":true}' });
    const bySlug = Object.fromEntries(response.body.data.map((a: any) => [a.slug, a]));
    assert.equal(bySlug.never.lastUpdatedBy, null);
    assert.deepEqual(bySlug.never.author, { name: 'Ada', image: null });
    assert.deepEqual(bySlug.edited.lastUpdatedBy, { name: 'Bob', image: 'https://cdn.example.com/bob.png' });
    assert.deepEqual(bySlug.edited.author, { name: 'Cy', image: 'https://cdn.example.com/cy.png' });
  });

  test('select: variants are ordered by key and an article without any has []', async () => {
    const p = await setup([
      articleInput({
        slug: 'v',
        variants: [
          { key: 'b', title: 'B', excerpt: null, content: 'b' },
          { key: 'a_b', title: 'A_B', excerpt: null, content: 'a_b' },
          { key: 'a-c', title: 'A-C', excerpt: null, content: 'a-c' },
          { key: 'ab', title: 'AB', excerpt: null, content: 'ab' },
          { key: 'a1', title: 'A1', excerpt: null, content: 'a1' },
        ],
      }),
      articleInput({ slug: 'w' }),
    ]);
    const single = await get(p, '/v1/articles/v', { select: '{"variants":true}' });
    // Byte order of the keys: `-` < digits < `_` < letters.
    assert.deepEqual(
      single.body.data.variants.map((variant: any) => variant.key),
      ['a-c', 'a1', 'a_b', 'ab', 'b'],
    );
    const none = await get(p, '/v1/articles/w', { select: '{"variants":true}' });
    assert.deepEqual(none.body.data.variants, []);
  });

  test('select: invalid JSON, non-objects, unknown keys and non-booleans are a 400 on select', async () => {
    const p = await setup([articleInput({ slug: 'one' })]);
    const bad = [
      '{content:true}',
      '{"content":true',
      'content',
      '',
      'null',
      '[]',
      '["content"]',
      '1',
      '"content"',
      'true',
      '{"nope":true}',
      '{"id":false,"content":true,"nope":false}',
      '{"content":1}',
      '{"content":"true"}',
      '{"content":null}',
      '{"tags":{"color":true}}',
    ];
    for (const path of ['/v1/articles', '/v1/articles/one']) {
      for (const select of bad) {
        const body = await expectBadRequest(p, path, { select });
        assert.equal(body.details.issues.length, 1, `${path} ${select}`);
        assert.equal(body.details.issues[0].field, 'select', `${path} ${select}`);
        for (const field of specSelectableFields) {
          assert.ok(
            body.details.issues[0].message.includes(field),
            `${select}: message lists ${field}: ${body.details.issues[0].message}`,
          );
        }
        assert.match(body.message, /^select: /);
      }
    }
    const unknown = await expectBadRequest(p, '/v1/articles', { select: '{"nope":true}' });
    assert.match(unknown.details.issues[0].message, /nope/);
  });

  // ---- validation of list parameters --------------------------------------------------------------

  const badValues: Array<[string, string, (message: string) => void]> = [
    ['page', '0', (m) => assert.match(m, /integer (from 1 to \d+|≥ 1)/)],
    ['page', '-1', (m) => assert.match(m, /integer (from 1 to \d+|≥ 1)/)],
    ['page', '1.5', (m) => assert.match(m, /integer (from 1 to \d+|≥ 1)/)],
    ['page', 'abc', (m) => assert.match(m, /integer (from 1 to \d+|≥ 1)/)],
    ['page', '', (m) => assert.match(m, /integer (from 1 to \d+|≥ 1)/)],
    ['limit', '0', (m) => assert.match(m, /integer from 1 to 100$/)],
    ['limit', '101', (m) => assert.match(m, /integer from 1 to 100$/)],
    ['limit', 'abc', (m) => assert.match(m, /integer from 1 to 100$/)],
    ['limit', '-5', (m) => assert.match(m, /integer from 1 to 100$/)],
    ['limit', '2.5', (m) => assert.match(m, /integer from 1 to 100$/)],
    ['limit', '', (m) => assert.match(m, /integer from 1 to 100$/)],
    [
      'sort',
      'popularity',
      (m) => {
        for (const value of [
          'createdAt',
          'updatedAt',
          'publishedAt',
          'title',
          'viewCount',
          'readTimeMinutes',
          'wordCount',
        ])
          assert.ok(m.includes(value), m);
      },
    ],
    ['sort', 'CREATEDAT', (m) => assert.ok(m.includes('createdAt'), m)],
    ['order', 'up', (m) => assert.ok(m.includes('asc') && m.includes('desc'), m)],
    ['order', 'ASC', (m) => assert.ok(m.includes('asc') && m.includes('desc'), m)],
    ['published', 'yes', (m) => assert.ok(m.includes('true') && m.includes('false'), m)],
    ['published', '1', (m) => assert.ok(m.includes('true') && m.includes('false'), m)],
    [
      'status',
      'live',
      (m) => {
        for (const value of ['draft', 'scheduled', 'published', 'archived']) assert.ok(m.includes(value), m);
      },
    ],
  ];

  for (const [field, value, checkMessage] of badValues) {
    test(`validation: ${field}=${JSON.stringify(value)} is a 400 naming ${field} and what it allows`, async () => {
      const p = await setup([articleInput({ slug: 'one' })]);
      const body = await expectBadRequest(p, '/v1/articles', { [field]: value });
      assert.equal(body.details.issues.length, 1, JSON.stringify(body));
      assert.equal(body.details.issues[0].field, field);
      checkMessage(body.details.issues[0].message);
      assert.ok(body.message.includes(field), body.message);
    });
  }

  test('validation: page 1 and limits 1 and 100 are accepted', async () => {
    const p = await setup([articleInput({ slug: 'one' })]);
    for (const params of [{ page: 1 }, { limit: 1 }, { limit: 100 }] as Params[]) {
      const response = await get(p, '/v1/articles', params);
      assert.equal(response.status, 200, JSON.stringify(params));
    }
  });

  test('validation: several bad parameters give one issue each', async () => {
    const p = await setup([articleInput({ slug: 'one' })]);
    const body = await expectBadRequest(p, '/v1/articles', {
      page: '0',
      limit: '101',
      sort: 'nope',
      order: 'up',
      published: 'yes',
      status: 'live',
      search: 'x'.repeat(201),
    });
    const fields = body.details.issues.map((issue: any) => issue.field).sort();
    assert.deepEqual(fields, ['limit', 'order', 'page', 'published', 'search', 'sort', 'status']);
    for (const field of fields) assert.ok(body.message.includes(field), body.message);
  });

  test('validation: a bad select is reported together with the other bad parameters', async () => {
    const p = await setup([articleInput({ slug: 'one' })]);
    const body = await expectBadRequest(p, '/v1/articles', {
      page: '0',
      sort: 'nope',
      select: '{"nope":true}',
    });
    const byField = Object.fromEntries(body.details.issues.map((issue: any) => [issue.field, issue.message]));
    assert.deepEqual(Object.keys(byField).sort(), ['page', 'select', 'sort']);
    assert.match(byField.select, /nope/);
    for (const field of specSelectableFields) assert.ok(byField.select.includes(field), byField.select);
    assert.ok(body.message.includes('select: '), body.message);

    const tooLong = await expectBadRequest(p, '/v1/articles', {
      limit: '0',
      select: `{${' '.repeat(2001)}}`,
    });
    assert.deepEqual(tooLong.details.issues.map((issue: any) => issue.field).sort(), ['limit', 'select']);
  });

  test('validation: unknown query parameters are a 400 naming each of them', async () => {
    const p = await setup([articleInput({ slug: 'one' }), articleInput({ slug: 'two' })]);
    const response = await get(p, '/v1/articles', {
      foo: 'bar',
      Page: '0',
      filter: 'tag:news',
      include: 'tags',
      'select[content]': 'true',
      limit: '5',
    });
    assert.equal(response.status, 400, JSON.stringify(response.body));
    assert.deepEqual(response.body.details.issues.map((issue: { field: string }) => issue.field).sort(), [
      'Page',
      'filter',
      'foo',
      'include',
      'select[content]',
    ]);
    assert.match(response.body.details.issues[0].message, /not a known parameter.*page, limit, sort/);
    const single = await get(p, '/v1/articles/one', { include: 'tags' });
    assert.equal(single.status, 400);
    assert.deepEqual(single.body.details.issues, [
      { field: 'include', message: 'is not a known parameter; known parameters: select, preview' },
    ]);
  });

  // ---- text statistics ---------------------------------------------------------------------------

  test('stats: wordCount, characterCount and readTimeMinutes are those of text-stats', async () => {
    const contents: Array<[string, string, boolean, { words: number; minutes: number } | null]> = [
      ['empty', '', false, { words: 0, minutes: 0 }],
      ['image-only', '![only](a.png)', false, { words: 0, minutes: 1 }],
      ['cover-only', '', true, { words: 0, minutes: 1 }],
      ['w412', words(412), false, { words: 412, minutes: 1 }],
      ['w413', words(413), false, { words: 413, minutes: 2 }],
      ['w550', words(550), false, { words: 550, minutes: 2 }],
      ['w550-cover', words(550), true, { words: 550, minutes: 2 }],
      ['cjk', '日本語の文章です。', false, { words: 8, minutes: 1 }],
      [
        'markdown',
        '---\n\n# Title here\n\nSome **bold** text with [a link](https://example.com/x) and `code`.\n\n```js\nconst x = 1;\n```\n\n<div>html</div>\n\n> quoted words\n\n- item one\n- item two\n\n| a | b |\n| - | - |\n| c | d |\n\n![alt text](https://example.com/i.png) ![second](j.png)',
        true,
        null,
      ],
      ['mixed', "Don't stop: well-known 42 Привет 東京 ok", false, null],
    ];
    const p = await setup(
      contents.map(([slug, content, cover]) =>
        articleInput({ slug, content, coverImage: cover ? 'https://cdn.example.com/cover.png' : null }),
      ),
    );
    for (const [slug, content, cover, known] of contents) {
      const stats = textStats(content, { hasCoverImage: cover });
      if (known) {
        assert.equal(stats.wordCount, known.words, `${slug}: test oracle`);
        assert.equal(stats.readTimeMinutes, known.minutes, `${slug}: test oracle`);
      }
      const response = await get(p, `/v1/articles/${slug}`, { select: '{"characterCount":true}' });
      assert.equal(response.status, 200);
      assert.equal(response.body.data.wordCount, stats.wordCount, slug);
      assert.equal(response.body.data.characterCount, stats.characterCount, slug);
      assert.equal(response.body.data.readTimeMinutes, stats.readTimeMinutes, slug);
      assert.equal(response.body.data.content, content, slug);
    }
    const list = await get(p, '/v1/articles', { limit: 100, select: '{"wordCount":true}' });
    for (const item of list.body.data) {
      const [, content, cover] = contents.find(([slug]) => slug === item.slug)!;
      const stats = textStats(content, { hasCoverImage: cover });
      assert.equal(item.wordCount, stats.wordCount, item.slug);
      assert.equal(item.readTimeMinutes, stats.readTimeMinutes, item.slug);
    }
  });
  test('tag filters: a list that names no tag (`tags=,`) is a 400 naming the parameter, never ignored', async () => {
    const p = await setup([articleInput({ slug: 'one', tags: ['a'] })]);
    for (const field of ['tags', 'tagsAll', 'excludeTags']) {
      const body = await expectBadRequest(p, '/v1/articles', { [field]: ', ,' });
      assert.deepEqual(body.details.issues, [{ field, message: 'must name at least one tag' }]);
    }
  });
});
