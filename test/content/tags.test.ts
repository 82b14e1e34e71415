import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ArticleInput, TagInput } from '../../src/content/import/records.ts';
import {
  articleInput,
  createTestProject,
  type DialectContext,
  describeEachDialect,
  getJson,
  importArticles,
  type TestProject,
} from '../helpers.ts';

const future = '2099-01-01T00:00:00.000Z';
const firstImport = new Date('2026-02-01T10:00:00.000Z');

const tagFields = ['articleCount', 'color', 'createdAt', 'icon', 'id', 'name', 'slug', 'updatedAt'];

/** Tags as tags.yaml would declare them; the articles below also use names missing from here. */
const declaredTags: TagInput[] = [
  { name: 'JavaScript', color: '#F7DF1E', icon: 'square-js' },
  { name: 'C++', color: '#00599C', icon: null },
  { name: 'Machine Learning', color: null, icon: 'brain' },
  { name: 'Café', color: '#6F4E37', icon: 'mug' },
  { name: 'apple', color: null, icon: null },
  { name: 'Banana', color: '#FFE135', icon: null },
  { name: 'cherry', color: null, icon: null },
  { name: '日本語', color: null, icon: null },
  { name: 'Русский', color: '#D52B1E', icon: null },
  { name: 'C#', color: null, icon: null },
  { name: '100%', color: null, icon: null },
  { name: 'Node.js', color: null, icon: 'node' },
  { name: 'CI/CD', color: null, icon: null },
  { name: 'Q&A?', color: null, icon: null },
];

/** One article in each reported status, and more published ones; tags referenced in any case. */
const articles: ArticleInput[] = [
  articleInput({ slug: 'pub-one', tags: ['JavaScript', 'C++', '日本語', 'РУССКИЙ'] }),
  articleInput({ slug: 'pub-two', tags: ['javascript', 'Machine Learning', 'C#', '100%'] }),
  articleInput({ slug: 'pub-undated', publishedAt: null, tags: ['banana', 'Node.js', 'CI/CD', 'Q&A?'] }),
  articleInput({ slug: 'draft', status: 'draft', publishedAt: null, tags: ['JAVASCRIPT', 'Café', 'C#'] }),
  articleInput({ slug: 'scheduled', publishedAt: future, tags: ['C++', 'JavaScript', 'Café', 'Rust'] }),
  articleInput({ slug: 'archived', status: 'archived', tags: ['Machine Learning', 'Rust', 'Q&A?'] }),
  articleInput({ slug: 'untagged' }),
];

/** Whether the API reports the article as published now (scheduled, draft and archived are not). */
function isPublished(article: ArticleInput): boolean {
  if (article.status !== 'published') return false;
  return article.publishedAt === null || article.publishedAt <= new Date().toISOString();
}

function expectedCount(name: string, published?: boolean): number {
  return articles.filter(
    (article) =>
      article.tags.some((tag) => tag.toLowerCase() === name.toLowerCase()) &&
      (published === undefined || isPublished(article) === published),
  ).length;
}

/** Every tag name of the data set, as first declared (tags.yaml) or first used. */
const allTagNames = [
  ...declaredTags.map((tag) => tag.name),
  ...new Set(
    articles
      .flatMap((article) => article.tags)
      .filter((name) => !declaredTags.some((tag) => tag.name.toLowerCase() === name.toLowerCase())),
  ),
];

function byNameKey(a: string, b: string): number {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : 0;
}

async function seed(ctx: DialectContext): Promise<TestProject> {
  const project = await createTestProject(ctx.db);
  await importArticles(ctx.db, project.project, articles, declaredTags, { now: firstImport });
  return project;
}

function names(body: { data: { name: string }[] }): string[] {
  return body.data.map((tag) => tag.name);
}

function queryFor(published: boolean | undefined): string {
  return published === undefined ? '' : `published=${published}`;
}

describeEachDialect('GET /v1/tags', (ctx) => {
  test('lists every tag of the project with its fields, and meta.total counts them', async () => {
    const { headers } = await seed(ctx);
    const { status, body } = await getJson(ctx.app, '/v1/tags', headers);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body).sort(), ['data', 'meta']);
    assert.deepEqual(body.meta, { total: allTagNames.length });
    assert.equal(body.data.length, allTagNames.length);
    assert.deepEqual([...names(body)].sort(), [...allTagNames].sort());
    const ids = new Set<string>();
    for (const tag of body.data) {
      assert.deepEqual(Object.keys(tag).sort(), tagFields);
      assert.equal(typeof tag.id, 'string');
      ids.add(tag.id);
      const declared = declaredTags.find((t) => t.name === tag.name);
      assert.equal(tag.color, declared?.color ?? null, tag.name);
      assert.equal(tag.icon, declared?.icon ?? null, tag.name);
      assert.equal(tag.articleCount, expectedCount(tag.name), tag.name);
      assert.equal(tag.createdAt, firstImport.toISOString());
      assert.equal(tag.updatedAt, firstImport.toISOString());
    }
    assert.equal(ids.size, allTagNames.length);
  });

  test('a tag only used in front matter keeps the spelling of its first use', async () => {
    const { headers } = await seed(ctx);
    const { body } = await getJson(ctx.app, '/v1/tags', headers);
    const rust = body.data.find((tag: { name: string }) => tag.name.toLowerCase() === 'rust');
    assert.deepEqual(
      { name: rust.name, color: rust.color, icon: rust.icon, articleCount: rust.articleCount },
      { name: 'Rust', color: null, icon: null, articleCount: 2 },
    );
  });

  test('a project without tags lists none, with meta.total 0', async () => {
    const { headers } = await createTestProject(ctx.db);
    const { status, body } = await getJson(ctx.app, '/v1/tags', headers);
    assert.equal(status, 200);
    assert.deepEqual(body, { data: [], meta: { total: 0 } });
  });

  test('the default order is by name, ascending and case-insensitive', async () => {
    const { headers } = await seed(ctx);
    const expected = [...allTagNames].sort(byNameKey);
    assert.deepEqual(names((await getJson(ctx.app, '/v1/tags', headers)).body), expected);
    assert.deepEqual(names((await getJson(ctx.app, '/v1/tags?sort=name', headers)).body), expected);
    assert.deepEqual(names((await getJson(ctx.app, '/v1/tags?sort=name&order=asc', headers)).body), expected);
    // Spot check of the case-insensitivity: a plain code-unit sort would put Banana before apple.
    const fruit = expected.filter((name) => ['apple', 'Banana', 'cherry'].includes(name));
    assert.deepEqual(fruit, ['apple', 'Banana', 'cherry']);
  });

  test('order=desc with sort=name is the exact reverse of the case-insensitive name order', async () => {
    const { headers } = await seed(ctx);
    const { body } = await getJson(ctx.app, '/v1/tags?sort=name&order=desc', headers);
    assert.deepEqual(names(body), [...allTagNames].sort(byNameKey).reverse());
  });

  test('sort=createdAt orders by creation time in both orders, ties broken by name ascending', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const t1 = new Date('2026-03-01T00:00:00.000Z');
    const t2 = new Date('2026-03-02T00:00:00.000Z');
    const t3 = new Date('2026-03-03T00:00:00.000Z');
    await importArticles(ctx.db, project, [articleInput({ slug: 'one', tags: ['delta', 'Alpha'] })], [], {
      now: t1,
    });
    await importArticles(
      ctx.db,
      project,
      [
        articleInput({ slug: 'one', tags: ['delta', 'Alpha'] }),
        articleInput({ slug: 'two', tags: ['echo'] }),
      ],
      [{ name: 'Bravo', color: null, icon: null }],
      { now: t2 },
    );
    await importArticles(
      ctx.db,
      project,
      [articleInput({ slug: 'three', tags: ['charlie'] })],
      [{ name: 'Zulu', color: null, icon: null }],
      { now: t3 },
    );
    const asc = await getJson(ctx.app, '/v1/tags?sort=createdAt', headers);
    assert.deepEqual(names(asc.body), ['Alpha', 'delta', 'Bravo', 'echo', 'charlie', 'Zulu']);
    assert.deepEqual(
      asc.body.data.map((tag: { createdAt: string }) => tag.createdAt),
      [t1, t1, t2, t2, t3, t3].map((t) => t.toISOString()),
    );
    const desc = await getJson(ctx.app, '/v1/tags?sort=createdAt&order=desc', headers);
    assert.deepEqual(names(desc.body), ['charlie', 'Zulu', 'Bravo', 'echo', 'Alpha', 'delta']);
    assert.deepEqual(desc.body.meta, { total: 6 });
  });

  test('sort=articleCount orders by count in both orders, ties broken by name ascending', async () => {
    const { headers } = await seed(ctx);
    const counted = allTagNames.map((name) => ({ name, count: expectedCount(name) }));
    const ascending = [...counted].sort((a, b) => a.count - b.count || byNameKey(a.name, b.name));
    const descending = [...counted].sort((a, b) => b.count - a.count || byNameKey(a.name, b.name));
    const asc = await getJson(ctx.app, '/v1/tags?sort=articleCount', headers);
    assert.deepEqual(
      asc.body.data.map((tag: { name: string; articleCount: number }) => [tag.name, tag.articleCount]),
      ascending.map((tag) => [tag.name, tag.count]),
    );
    const desc = await getJson(ctx.app, '/v1/tags?sort=articleCount&order=desc', headers);
    assert.deepEqual(
      desc.body.data.map((tag: { name: string; articleCount: number }) => [tag.name, tag.articleCount]),
      descending.map((tag) => [tag.name, tag.count]),
    );
    // The data set has real ties to break: the zero-count tags and JavaScript alone at the top.
    assert.deepEqual(
      ascending.slice(0, 2).map((tag) => tag.name),
      ['apple', 'cherry'],
    );
    assert.deepEqual(descending[0], { name: 'JavaScript', count: 4 });
  });

  test('sort=articleCount with published counts and orders by the published count', async () => {
    const { headers } = await seed(ctx);
    for (const published of [true, false]) {
      const expected = allTagNames
        .map((name) => ({ name, count: expectedCount(name, published) }))
        .sort((a, b) => b.count - a.count || byNameKey(a.name, b.name))
        .map((tag) => [tag.name, tag.count]);
      const { body } = await getJson(
        ctx.app,
        `/v1/tags?sort=articleCount&order=desc&published=${published}`,
        headers,
      );
      assert.deepEqual(
        body.data.map((tag: { name: string; articleCount: number }) => [tag.name, tag.articleCount]),
        expected,
      );
      assert.deepEqual(body.meta, { total: allTagNames.length });
    }
  });

  test('limit returns the first tags of the order while meta.total still counts every tag', async () => {
    const { headers } = await seed(ctx);
    const ordered = [...allTagNames].sort(byNameKey);
    for (const limit of [1, 3, ordered.length - 1, ordered.length, ordered.length + 1, 1000]) {
      const { status, body } = await getJson(ctx.app, `/v1/tags?limit=${limit}`, headers);
      assert.equal(status, 200);
      assert.deepEqual(names(body), ordered.slice(0, limit), `limit=${limit}`);
      assert.deepEqual(body.meta, { total: ordered.length });
    }
    const desc = await getJson(ctx.app, '/v1/tags?limit=2&order=desc', headers);
    assert.deepEqual(names(desc.body), [...ordered].reverse().slice(0, 2));
    const byCount = await getJson(ctx.app, '/v1/tags?limit=1&sort=articleCount&order=desc', headers);
    assert.deepEqual(names(byCount.body), ['JavaScript']);
  });

  for (const value of ['0', '1001', 'abc', '-1', '1.5', '', '1e9', '10abc']) {
    test(`limit=${value} is a 400 that names limit and its range`, async () => {
      const { headers } = await seed(ctx);
      const { status, body } = await getJson(ctx.app, `/v1/tags?limit=${value}`, headers);
      assert.equal(status, 400);
      assert.equal(body.error, 'Bad Request');
      assert.equal(body.statusCode, 400);
      assert.deepEqual(body.details.issues, [
        { field: 'limit', message: 'must be an integer from 1 to 1000' },
      ]);
      assert.match(body.message, /limit/);
    });
  }

  for (const [query, field] of [
    ['sort=title', 'sort'],
    ['sort=updatedAt', 'sort'],
    ['sort=Name', 'sort'],
    ['sort=', 'sort'],
    ['order=up', 'order'],
    ['order=DESC', 'order'],
    ['order=', 'order'],
  ] as const) {
    test(`${query} is a 400 that names ${field} and its allowed values`, async () => {
      const { headers } = await seed(ctx);
      const { status, body } = await getJson(ctx.app, `/v1/tags?${query}`, headers);
      assert.equal(status, 400);
      assert.equal(body.error, 'Bad Request');
      const allowed = field === 'sort' ? 'name, createdAt, articleCount' : 'asc, desc';
      assert.deepEqual(body.details.issues, [{ field, message: `must be one of: ${allowed}` }]);
    });
  }

  test('a bad sort, order and limit together are reported as one issue each', async () => {
    const { headers } = await seed(ctx);
    const { status, body } = await getJson(ctx.app, '/v1/tags?sort=size&order=sideways&limit=0', headers);
    assert.equal(status, 400);
    assert.deepEqual(body.details.issues.map((issue: { field: string }) => issue.field).sort(), [
      'limit',
      'order',
      'sort',
    ]);
  });

  test('published must be true or false', async () => {
    const { headers } = await seed(ctx);
    for (const value of ['yes', '1', '']) {
      const { status, body } = await getJson(ctx.app, `/v1/tags?published=${value}`, headers);
      assert.equal(status, 400, value);
      assert.deepEqual(body.details.issues, [{ field: 'published', message: 'must be true or false' }]);
    }
  });

  test('unknown query parameters are a 400 naming each of them', async () => {
    const { headers } = await seed(ctx);
    const extra = await getJson(ctx.app, '/v1/tags?foo=bar&page=3&limit=2', headers);
    assert.equal(extra.status, 400);
    assert.deepEqual(
      extra.body.details.issues.map((issue: { field: string }) => issue.field),
      ['foo', 'page'],
    );
    const one = await getJson(ctx.app, '/v1/tags/rust?include=count', headers);
    assert.equal(one.status, 400);
    assert.equal(one.body.details.issues[0].field, 'include');
  });

  test('articleCount counts the articles of every status', async () => {
    const { headers } = await seed(ctx);
    const { body } = await getJson(ctx.app, '/v1/tags', headers);
    const count = (name: string) => body.data.find((tag: { name: string }) => tag.name === name).articleCount;
    // JavaScript: two published, one draft, one scheduled. Rust: one scheduled, one archived.
    assert.equal(count('JavaScript'), 4);
    assert.equal(count('Rust'), 2);
    assert.equal(count('Machine Learning'), 2);
    assert.equal(count('Café'), 2);
    assert.equal(count('apple'), 0);
  });

  test('published=true counts only published articles; scheduled, draft and archived are excluded', async () => {
    const { headers } = await seed(ctx);
    const yes = (await getJson(ctx.app, '/v1/tags?published=true', headers)).body;
    const no = (await getJson(ctx.app, '/v1/tags?published=false', headers)).body;
    const count = (body: any, name: string) =>
      body.data.find((tag: { name: string }) => tag.name === name).articleCount;
    assert.deepEqual([count(yes, 'JavaScript'), count(no, 'JavaScript')], [2, 2]);
    assert.deepEqual([count(yes, 'Rust'), count(no, 'Rust')], [0, 2]);
    assert.deepEqual([count(yes, 'Café'), count(no, 'Café')], [0, 2]);
    assert.deepEqual([count(yes, 'Banana'), count(no, 'Banana')], [1, 0]);
    for (const name of allTagNames) {
      assert.equal(count(yes, name), expectedCount(name, true), name);
      assert.equal(count(no, name), expectedCount(name, false), name);
      assert.equal(count(yes, name) + count(no, name), expectedCount(name), name);
    }
    // A filter on counts never hides a tag.
    assert.deepEqual(yes.meta, { total: allTagNames.length });
    assert.equal(yes.data.length, allTagNames.length);
  });

  for (const published of [undefined, true, false]) {
    test(`articleCount equals meta.total of /v1/articles?tags=NAME for every tag (${queryFor(published) || 'no published filter'})`, async () => {
      const { headers } = await seed(ctx);
      const filter = queryFor(published);
      const list = await getJson(ctx.app, `/v1/tags${filter ? `?${filter}` : ''}`, headers);
      assert.equal(list.body.data.length, allTagNames.length);
      for (const tag of list.body.data as { name: string; articleCount: number }[]) {
        const query = `tags=${encodeURIComponent(tag.name)}${filter ? `&${filter}` : ''}`;
        const articlesPage = await getJson(ctx.app, `/v1/articles?${query}`, headers);
        assert.equal(articlesPage.status, 200, query);
        assert.equal(articlesPage.body.meta.total, tag.articleCount, tag.name);
        const single = await getJson(
          ctx.app,
          `/v1/tags/${encodeURIComponent(tag.name)}${filter ? `?${filter}` : ''}`,
          headers,
        );
        assert.equal(single.status, 200, tag.name);
        assert.equal(single.body.data.articleCount, tag.articleCount, tag.name);
        assert.equal(tag.articleCount, expectedCount(tag.name, published), tag.name);
      }
    });
  }

  test('articleCount follows re-imports: removed tags and pruned articles stop counting', async () => {
    const { project, headers } = await seed(ctx);
    await importArticles(
      ctx.db,
      project,
      [articleInput({ slug: 'pub-one', tags: ['C++'] }), articleInput({ slug: 'draft', status: 'draft' })],
      declaredTags,
      { prune: true },
    );
    const { body } = await getJson(ctx.app, '/v1/tags', headers);
    for (const tag of body.data as { name: string; articleCount: number }[]) {
      const expected = tag.name === 'C++' ? 1 : 0;
      assert.equal(tag.articleCount, expected, tag.name);
      const articlesPage = await getJson(
        ctx.app,
        `/v1/articles?tags=${encodeURIComponent(tag.name)}`,
        headers,
      );
      assert.equal(articlesPage.body.meta.total, expected, tag.name);
    }
    // Declared tags (tags.yaml) outlive their articles; --prune removes the others left empty.
    assert.deepEqual(
      [...names(body)].sort(),
      [...new Set([...declaredTags.map((tag) => tag.name), 'C++'])].sort(),
    );
  });

  test('tags and articles of another project are neither listed nor counted', async () => {
    const mine = await seed(ctx);
    const other = await createTestProject(ctx.db);
    await importArticles(
      ctx.db,
      other.project,
      [
        articleInput({ slug: 'pub-one', tags: ['JavaScript', 'Elsewhere'] }),
        articleInput({ slug: 'pub-two', tags: ['javascript'] }),
      ],
      [{ name: 'JavaScript', color: '#000000', icon: 'other' }],
    );
    const { body } = await getJson(ctx.app, '/v1/tags', mine.headers);
    assert.deepEqual([...names(body)].sort(), [...allTagNames].sort());
    const js = body.data.find((tag: { name: string }) => tag.name === 'JavaScript');
    assert.deepEqual([js.articleCount, js.color, js.icon], [4, '#F7DF1E', 'square-js']);
    const theirs = await getJson(ctx.app, '/v1/tags', other.headers);
    assert.deepEqual(
      theirs.body.data.map((tag: { name: string; articleCount: number }) => [tag.name, tag.articleCount]),
      [
        ['Elsewhere', 1],
        ['JavaScript', 2],
      ],
    );
    assert.deepEqual(theirs.body.meta, { total: 2 });
  });
});

describeEachDialect('GET /v1/tags/:name', (ctx) => {
  test('returns the tag with exactly the fields and values of its list entry', async () => {
    const { headers } = await seed(ctx);
    const list = await getJson(ctx.app, '/v1/tags', headers);
    for (const tag of list.body.data as { name: string }[]) {
      const { status, body } = await getJson(ctx.app, `/v1/tags/${encodeURIComponent(tag.name)}`, headers);
      assert.equal(status, 200, tag.name);
      assert.deepEqual(body, { data: tag });
    }
  });

  test('returns id, name, slug, icon, color, articleCount, createdAt and updatedAt', async () => {
    const { headers } = await seed(ctx);
    const { status, body } = await getJson(ctx.app, '/v1/tags/JavaScript', headers);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body), ['data']);
    const { id, ...rest } = body.data;
    assert.equal(typeof id, 'string');
    assert.deepEqual(rest, {
      name: 'JavaScript',
      slug: 'javascript',
      icon: 'square-js',
      color: '#F7DF1E',
      articleCount: 4,
      createdAt: firstImport.toISOString(),
      updatedAt: firstImport.toISOString(),
    });
  });

  test('the name matches case-insensitively', async () => {
    const { headers } = await seed(ctx);
    const expected = (await getJson(ctx.app, '/v1/tags/JavaScript', headers)).body;
    for (const spelling of ['javascript', 'JAVASCRIPT', 'jAvAsCrIpT']) {
      const { status, body } = await getJson(ctx.app, `/v1/tags/${spelling}`, headers);
      assert.equal(status, 200, spelling);
      assert.deepEqual(body, expected, spelling);
    }
  });

  for (const [path, name] of [
    ['C%2B%2B', 'C++'],
    ['c%2b%2b', 'C++'],
    ['C++', 'C++'],
    ['Machine%20Learning', 'Machine Learning'],
    ['machine%20LEARNING', 'Machine Learning'],
    ['Caf%C3%A9', 'Café'],
    ['CAF%C3%89', 'Café'],
    [encodeURIComponent('日本語'), '日本語'],
    [encodeURIComponent('Русский'), 'Русский'],
    [encodeURIComponent('рУССКИЙ'), 'Русский'],
    ['C%23', 'C#'],
    ['100%25', '100%'],
    ['Node.js', 'Node.js'],
    ['node.JS', 'Node.js'],
    ['CI%2FCD', 'CI/CD'],
    ['q%26a%3F', 'Q&A?'],
    ['%20JavaScript%20', 'JavaScript'],
  ] as const) {
    test(`/v1/tags/${path} finds the tag ${JSON.stringify(name)}`, async () => {
      const { headers } = await seed(ctx);
      const { status, body } = await getJson(ctx.app, `/v1/tags/${path}`, headers);
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.data.name, name);
      assert.equal(body.data.articleCount, expectedCount(name));
    });
  }

  test('published=true and published=false count like the list and like the article filter', async () => {
    const { headers } = await seed(ctx);
    for (const published of [true, false]) {
      for (const name of ['JavaScript', 'Rust', 'C++', 'Machine Learning', 'apple']) {
        const { body } = await getJson(
          ctx.app,
          `/v1/tags/${encodeURIComponent(name)}?published=${published}`,
          headers,
        );
        assert.equal(body.data.articleCount, expectedCount(name, published), `${name} ${published}`);
        const articlesPage = await getJson(
          ctx.app,
          `/v1/articles?tags=${encodeURIComponent(name)}&published=${published}`,
          headers,
        );
        assert.equal(articlesPage.body.meta.total, body.data.articleCount, `${name} ${published}`);
      }
    }
    const bad = await getJson(ctx.app, '/v1/tags/JavaScript?published=maybe', headers);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.details.issues, [{ field: 'published', message: 'must be true or false' }]);
  });

  for (const path of ['Unknown', 'C', 'Java', 'Machine+Learning', 'Machine', 'JavaScript%20Tips', '%20']) {
    test(`/v1/tags/${path} is a 404 Tag not found`, async () => {
      const { headers } = await seed(ctx);
      const { status, body } = await getJson(ctx.app, `/v1/tags/${path}`, headers);
      assert.equal(status, 404);
      assert.deepEqual(body, { error: 'Not Found', message: 'Tag not found', statusCode: 404 });
    });
  }

  test('each tag has a slug derived from its name, unique in the project: a second one deriving it gets -2', async () => {
    const { headers } = await seed(ctx);
    const { body } = await getJson(ctx.app, '/v1/tags', headers);
    const slugs = new Map(body.data.map((tag: { name: string; slug: string }) => [tag.name, tag.slug]));
    // Declared tags are created in their order, then the articles' new names in theirs.
    assert.deepEqual(Object.fromEntries(slugs), {
      JavaScript: 'javascript',
      'C++': 'c',
      'Machine Learning': 'machine-learning',
      Café: 'cafe',
      apple: 'apple',
      Banana: 'banana',
      cherry: 'cherry',
      日本語: 'tag',
      Русский: 'tag-2',
      'C#': 'c-2',
      '100%': '100',
      'Node.js': 'node-js',
      'CI/CD': 'ci-cd',
      'Q&A?': 'q-a',
      Rust: 'rust',
    });
  });

  for (const [slug, name] of [
    ['machine-learning', 'Machine Learning'],
    ['cafe', 'Café'],
    ['c-2', 'C#'],
    ['node-js', 'Node.js'],
    ['tag-2', 'Русский'],
  ] as const) {
    test(`/v1/tags/${slug} finds ${JSON.stringify(name)} by its slug, with the same body as by its name`, async () => {
      const { headers } = await seed(ctx);
      const bySlug = await getJson(ctx.app, `/v1/tags/${slug}`, headers);
      assert.equal(bySlug.status, 200);
      assert.equal(bySlug.body.data.name, name);
      assert.equal(bySlug.body.data.slug, slug);
      const byName = await getJson(ctx.app, `/v1/tags/${encodeURIComponent(name)}`, headers);
      assert.deepEqual(bySlug.body, byName.body);
    });
  }

  test("a name wins over another tag's slug; a declared slug is kept; slugs match exactly", async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(
      ctx.db,
      project,
      [articleInput({ slug: 'one', tags: ['Safety Weather', 'news', 'News!'] })],
      [{ name: 'Storms', slug: 'news-2', color: null, icon: null }],
    );
    const slugOf = async (path: string) => {
      const { status, body } = await getJson(ctx.app, `/v1/tags/${path}`, headers);
      assert.equal(status, 200, path);
      return [body.data.name, body.data.slug];
    };
    assert.deepEqual(await slugOf('safety-weather'), ['Safety Weather', 'safety-weather']);
    assert.deepEqual(await slugOf('Safety%20Weather'), ['Safety Weather', 'safety-weather']);
    assert.deepEqual(await slugOf('news-2'), ['Storms', 'news-2']);
    // "News!" derives news, held by "news": it takes the next free one, news-3.
    assert.deepEqual(await slugOf('News!'), ['News!', 'news-3']);
    assert.deepEqual(await slugOf('news'), ['news', 'news']);
    assert.equal((await getJson(ctx.app, '/v1/tags/SAFETY-WEATHER', headers)).status, 404);
  });

  test('a re-import with a declared slug moves the tag to it; an unknown slug is a 404', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [articleInput({ slug: 'one', tags: ['Night Trains'] })]);
    assert.equal((await getJson(ctx.app, '/v1/tags/night-trains', headers)).status, 200);
    await importArticles(
      ctx.db,
      project,
      [articleInput({ slug: 'one', tags: ['Night Trains'] })],
      [{ name: 'Night Trains', slug: 'sleepers', color: null, icon: null }],
    );
    const { status, body } = await getJson(ctx.app, '/v1/tags/sleepers', headers);
    assert.equal(status, 200);
    assert.deepEqual([body.data.name, body.data.slug], ['Night Trains', 'sleepers']);
    assert.equal((await getJson(ctx.app, '/v1/tags/night-trains', headers)).status, 404);
  });

  test('a tag of another project is a 404, even when its articles would match', async () => {
    const mine = await createTestProject(ctx.db);
    const other = await seed(ctx);
    const { status, body } = await getJson(ctx.app, '/v1/tags/JavaScript', mine.headers);
    assert.equal(status, 404);
    assert.deepEqual(body, { error: 'Not Found', message: 'Tag not found', statusCode: 404 });
    assert.equal((await getJson(ctx.app, '/v1/tags/JavaScript', other.headers)).status, 200);
  });

  test('a malformed percent-encoding is a 400, never a 500', async () => {
    const { headers } = await seed(ctx);
    const { status, body } = await getJson(ctx.app, '/v1/tags/%E0%A4%A', headers);
    assert.equal(status, 400);
    assert.equal(body.error, 'Bad Request');
    assert.equal(body.statusCode, 400);
  });
});
