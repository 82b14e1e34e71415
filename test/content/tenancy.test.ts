// Tenancy of the content endpoints: two projects with the same slugs and
// tag names; a key of one never sees the other's articles, tags or counts, whatever it sends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
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

type Params = Record<string, string | number | string[]>;

function url(path: string, params: Params = {}): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(item))}`);
    }
  }
  return parts.length === 0 ? path : `${path}?${parts.join('&')}`;
}

const bytes = (...texts: Array<string | null>) =>
  texts.reduce((sum, text) => sum + (text === null ? 0 : Buffer.byteLength(text, 'utf8')), 0);

describeEachDialect('tenancy', (ctx: DialectContext) => {
  /**
   * Project A: `shared` (tags Common, OnlyA), `only-a` (Common), `a-draft` (draft, Common).
   * Project B: `shared` (tags common, OnlyB), `only-b` (no tags).
   * Both have a tag named Common/common, with different colors; each has a tag of its own.
   */
  async function twoProjects() {
    const a = await createTestProject(ctx.db, { name: 'Alpha blog' });
    const b = await createTestProject(ctx.db, { name: 'Beta blog' });
    const aArticles = [
      articleInput({
        slug: 'shared',
        title: 'A shared',
        content: 'alpha secret words zebra',
        excerpt: 'From A',
        tags: ['Common', 'OnlyA'],
      }),
      articleInput({ slug: 'only-a', title: 'Only in A', content: 'zebra crossing ab', tags: ['Common'] }),
      articleInput({
        slug: 'a-draft',
        title: 'A draft',
        content: 'words',
        status: 'draft',
        publishedAt: null,
        tags: ['Common'],
      }),
    ];
    const bArticles = [
      articleInput({
        slug: 'shared',
        title: 'B shared',
        content: 'beta words',
        excerpt: null,
        tags: ['common', 'OnlyB'],
      }),
      articleInput({ slug: 'only-b', title: 'Only in B', content: 'beta only' }),
    ];
    await importArticles(ctx.db, a.project, aArticles, [
      { name: 'Common', color: '#FF0000', icon: 'a-icon' },
      { name: 'OnlyA', color: null, icon: null },
    ]);
    await importArticles(ctx.db, b.project, bArticles, [
      { name: 'common', color: '#00FF00', icon: 'b-icon' },
      { name: 'OnlyB', color: null, icon: null },
    ]);
    const ids = async (project: TestProject) =>
      new Map(
        (
          await ctx.db.kysely
            .selectFrom('articles')
            .select(['id', 'slug'])
            .where('project_id', '=', project.project.id)
            .execute()
        ).map((row) => [row.slug, row.id]),
      );
    const tagIds = async (project: TestProject) =>
      new Map(
        (
          await ctx.db.kysely
            .selectFrom('tags')
            .select(['id', 'name_key'])
            .where('project_id', '=', project.project.id)
            .execute()
        ).map((row) => [row.name_key, row.id]),
      );
    const views = [
      [a, 'shared', 10],
      [a, 'only-a', 20],
      [b, 'shared', 3],
      [b, 'only-b', 4],
    ] as const;
    for (const [project, slug, count] of views) {
      await setViewCount(ctx.db, project.project.id, slug, count);
    }
    return {
      a: { ...a, ids: await ids(a), tagIds: await tagIds(a), articles: aArticles },
      b: { ...b, ids: await ids(b), tagIds: await tagIds(b), articles: bArticles },
    };
  }

  const get = (project: TestProject, path: string, params: Params = {}) =>
    getJson(ctx.app, url(path, params), project.headers);

  async function slugsFor(project: TestProject, params: Params) {
    const response = await get(project, '/v1/articles', { limit: 100, ...params });
    assert.equal(response.status, 200, `${JSON.stringify(params)}: ${JSON.stringify(response.body)}`);
    assert.equal(response.body.meta.total, response.body.data.length, JSON.stringify(params));
    return response.body.data.map((article: any) => article.slug).sort();
  }

  test('list: each key sees only its own articles, and totals count only them', async () => {
    const { a, b } = await twoProjects();
    const listA = await get(a, '/v1/articles');
    assert.deepEqual(listA.body.meta, { page: 1, limit: 10, total: 3, totalPages: 1 });
    assert.deepEqual(listA.body.data.map((x: any) => x.id).sort(), [...a.ids.values()].sort());
    const listB = await get(b, '/v1/articles');
    assert.deepEqual(listB.body.meta, { page: 1, limit: 10, total: 2, totalPages: 1 });
    assert.deepEqual(listB.body.data.map((x: any) => x.id).sort(), [...b.ids.values()].sort());
    const sharedB = listB.body.data.find((x: any) => x.slug === 'shared');
    assert.equal(sharedB.title, 'B shared');
    assert.equal(sharedB.viewCount, 3);
    const paged = await get(b, '/v1/articles', { limit: 1, page: 3 });
    assert.deepEqual(paged.body, { data: [], meta: { page: 3, limit: 1, total: 2, totalPages: 2 } });
  });

  test('list: no filter, sort or search of one key returns an article of the other project', async () => {
    const { a, b } = await twoProjects();
    const aIds = new Set(a.ids.values());
    const queries: Array<[Params, string[]]> = [
      [{}, ['only-b', 'shared']],
      [{ sort: 'title', order: 'asc' }, ['only-b', 'shared']],
      [{ sort: 'viewCount', order: 'desc' }, ['only-b', 'shared']],
      [{ sort: 'publishedAt' }, ['only-b', 'shared']],
      [{ published: 'true' }, ['only-b', 'shared']],
      [{ published: 'false' }, []],
      [{ status: 'draft' }, []],
      [{ status: 'published' }, ['only-b', 'shared']],
      [{ search: 'words' }, ['shared']],
      [{ search: 'alpha' }, []],
      [{ search: 'zebra' }, []],
      [{ search: 'secret words' }, []],
      [{ search: 'ab' }, []],
      [{ search: 'A' }, ['only-b', 'shared']],
      [{ search: 'only' }, ['only-b']],
      [{ search: 'crossing' }, []],
      [{ tags: 'common' }, ['shared']],
      [{ tags: 'COMMON' }, ['shared']],
      [{ tags: 'onlya' }, []],
      [{ tags: 'OnlyA,onlyb' }, ['shared']],
      [{ tagsAll: 'common,onlya' }, []],
      [{ tagsAll: 'common,onlyb' }, ['shared']],
      [{ tagsAll: 'onlya' }, []],
      [{ excludeTags: 'onlya' }, ['only-b', 'shared']],
      [{ excludeTags: 'common' }, ['only-b']],
      [{ excludeTags: 'onlyb' }, ['only-b']],
      [{ tags: 'common', search: 'alpha' }, []],
    ];
    for (const [params, expected] of queries) {
      assert.deepEqual(await slugsFor(b, params), expected, JSON.stringify(params));
      const response = await get(b, '/v1/articles', { limit: 100, ...params });
      for (const article of response.body.data) {
        assert.ok(!aIds.has(article.id), `${JSON.stringify(params)}: an article of A leaked`);
      }
    }
    // And the other way round.
    assert.deepEqual(await slugsFor(a, { tags: 'onlyb' }), []);
    assert.deepEqual(await slugsFor(a, { tags: 'common' }), ['a-draft', 'only-a', 'shared']);
    assert.deepEqual(await slugsFor(a, { search: 'beta' }), []);
    assert.deepEqual(await slugsFor(a, { search: 'words' }), ['a-draft', 'shared']);
    assert.deepEqual(await slugsFor(a, { excludeTags: 'onlyb' }), ['a-draft', 'only-a', 'shared']);
  });

  test("single: a shared slug returns the key's own article; the other project's slug is 404", async () => {
    const { a, b } = await twoProjects();
    const sharedB = await get(b, '/v1/articles/shared');
    assert.equal(sharedB.status, 200);
    assert.equal(sharedB.body.data.id, b.ids.get('shared'));
    assert.equal(sharedB.body.data.title, 'B shared');
    assert.equal(sharedB.body.data.content, 'beta words');
    assert.equal(sharedB.body.data.excerpt, null);
    const sharedA = await get(a, '/v1/articles/shared');
    assert.equal(sharedA.body.data.id, a.ids.get('shared'));
    assert.equal(sharedA.body.data.title, 'A shared');

    for (const slug of ['only-a', 'a-draft']) {
      const response = await get(b, `/v1/articles/${slug}`);
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, {
        error: 'Not Found',
        message: `Article '${slug}' not found`,
        statusCode: 404,
      });
    }
    const reverse = await get(a, '/v1/articles/only-b', { select: '{"tags":true}' });
    assert.equal(reverse.status, 404);
    assert.deepEqual(reverse.body, {
      error: 'Not Found',
      message: "Article 'only-b' not found",
      statusCode: 404,
    });
  });

  test("select: tags and project of an article are the key's own", async () => {
    const { a, b } = await twoProjects();
    const response = await get(b, '/v1/articles/shared', {
      select: '{"tagColor":true,"tagIcon":true,"project":true}',
    });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.data.tags, [
      { id: b.tagIds.get('common'), name: 'common', color: '#00FF00', icon: 'b-icon' },
      { id: b.tagIds.get('onlyb'), name: 'OnlyB', color: null, icon: null },
    ]);
    assert.deepEqual(response.body.data.project, {
      id: b.project.id,
      name: 'Beta blog',
      slug: b.project.slug,
    });
    const list = await get(a, '/v1/articles', { select: '{"tagColor":true,"project":true}', tags: 'common' });
    for (const article of list.body.data) {
      assert.deepEqual(article.project, { id: a.project.id, name: 'Alpha blog', slug: a.project.slug });
      for (const tag of article.tags) assert.ok([...a.tagIds.values()].includes(tag.id), JSON.stringify(tag));
    }
    const sharedA = list.body.data.find((x: any) => x.slug === 'shared');
    assert.deepEqual(sharedA.tags, [
      { id: a.tagIds.get('common'), name: 'Common', color: '#FF0000' },
      { id: a.tagIds.get('onlya'), name: 'OnlyA', color: null },
    ]);
  });

  test('tags: the list and articleCount count only the key project, equal to meta.total', async () => {
    const { a, b } = await twoProjects();
    const tagsB = await get(b, '/v1/tags');
    assert.equal(tagsB.status, 200);
    assert.deepEqual(tagsB.body.meta, { total: 2 });
    assert.deepEqual(
      tagsB.body.data.map((t: any) => [t.id, t.name, t.color, t.articleCount]),
      [
        [b.tagIds.get('common'), 'common', '#00FF00', 1],
        [b.tagIds.get('onlyb'), 'OnlyB', null, 1],
      ],
    );
    const tagsA = await get(a, '/v1/tags');
    assert.deepEqual(tagsA.body.meta, { total: 2 });
    assert.deepEqual(
      tagsA.body.data.map((t: any) => [t.id, t.name, t.articleCount]),
      [
        [a.tagIds.get('common'), 'Common', 3],
        [a.tagIds.get('onlya'), 'OnlyA', 1],
      ],
    );
    // articleCount equals meta.total of the article list filtered by the tag, per project.
    for (const [project, name, count] of [
      [a, 'Common', 3],
      [b, 'common', 1],
    ] as const) {
      const list = await get(project, '/v1/articles', { tags: name });
      assert.equal(list.body.meta.total, count);
      const published = await get(project, '/v1/articles', { tags: name, published: 'true' });
      const tag = await get(project, `/v1/tags/${name}`, { published: 'true' });
      assert.equal(tag.body.data.articleCount, published.body.meta.total);
    }
    const publishedA = await get(a, '/v1/tags/common', { published: 'true' });
    assert.equal(publishedA.body.data.articleCount, 2);
  });

  test("tags: a tag name of the other project only is 404; a shared name is the key's own tag", async () => {
    const { a, b } = await twoProjects();
    const missing = await get(b, '/v1/tags/OnlyA');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { error: 'Not Found', message: 'Tag not found', statusCode: 404 });
    const missingLower = await get(b, '/v1/tags/onlya');
    assert.equal(missingLower.status, 404);
    const own = await get(b, '/v1/tags/COMMON');
    assert.equal(own.status, 200);
    assert.equal(own.body.data.id, b.tagIds.get('common'));
    assert.equal(own.body.data.name, 'common');
    assert.equal(own.body.data.color, '#00FF00');
    assert.equal(own.body.data.articleCount, 1);
    const ownA = await get(a, '/v1/tags/common');
    assert.equal(ownA.body.data.id, a.tagIds.get('common'));
    assert.equal(ownA.body.data.articleCount, 3);
    assert.equal((await get(a, '/v1/tags/onlyb')).status, 404);
  });

  test('project: stats count only the key project (articles, published, views, storage)', async () => {
    const { a, b } = await twoProjects();
    const storage = (articles: typeof a.articles) =>
      articles.reduce((sum, x) => sum + bytes(x.title, x.slug, x.excerpt, x.content), 0);
    const infoB = await get(b, '/v1/project');
    assert.equal(infoB.status, 200);
    assert.equal(infoB.body.data.project.id, b.project.id);
    assert.equal(infoB.body.data.project.slug, b.project.slug);
    assert.deepEqual(infoB.body.data.stats, {
      totalArticles: 2,
      publishedArticles: 2,
      totalViews: 7,
      storageUsed: `${storage(b.articles)} B`,
      storageLimit: '500 MB',
    });
    const infoA = await get(a, '/v1/project');
    assert.equal(infoA.body.data.project.id, a.project.id);
    assert.deepEqual(infoA.body.data.stats, {
      totalArticles: 3,
      publishedArticles: 2,
      totalViews: 30,
      storageUsed: `${storage(a.articles)} B`,
      storageLimit: '500 MB',
    });
  });

  test("a key never reaches the other project's data after the other project changes", async () => {
    const { a, b } = await twoProjects();
    // A re-import of A with a new article of a slug B does not have changes nothing for B.
    await importArticles(ctx.db, a.project, [
      ...a.articles,
      articleInput({ slug: 'only-b', title: 'A took this slug', tags: ['OnlyB'] }),
    ]);
    const own = await get(b, '/v1/articles/only-b');
    assert.equal(own.body.data.id, b.ids.get('only-b'));
    assert.equal(own.body.data.title, 'Only in B');
    assert.deepEqual(await slugsFor(b, { tags: 'onlyb' }), ['shared']);
    assert.deepEqual(await slugsFor(a, { tags: 'onlyb' }), ['only-b']);
    const tagsB = await get(b, '/v1/tags/onlyb');
    assert.equal(tagsB.body.data.articleCount, 1);
    assert.equal((await get(b, '/v1/articles')).body.meta.total, 2);
    assert.equal((await get(a, '/v1/articles')).body.meta.total, 4);
  });
});
