import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StorageLimitError } from '../../src/content/import.ts';
import type { ArticleInput } from '../../src/content/import/records.ts';
import type { Db } from '../../src/db/database.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  setViewCount,
} from '../helpers.ts';

/** What the helpers below need of a project. */
type ProjectRef = { id: string };

const future = '2099-06-01T00:00:00.000Z';

const utf8 = (text: string | null) => (text === null ? 0 : Buffer.byteLength(text, 'utf8'));

/** The bytes the contract counts: title, slug, excerpt, content, variants and SEO texts. */
function storedBytes(article: ArticleInput): number {
  let bytes = utf8(article.title) + utf8(article.slug) + utf8(article.excerpt) + utf8(article.content);
  for (const variant of article.variants) {
    bytes += utf8(variant.key) + utf8(variant.title) + utf8(variant.excerpt) + utf8(variant.content);
  }
  if (article.seo) {
    const { metaTitle, metaDescription, ogImage, canonicalUrl, keywords } = article.seo;
    bytes += utf8(metaTitle) + utf8(metaDescription) + utf8(ogImage) + utf8(canonicalUrl);
    for (const keyword of keywords ?? []) bytes += utf8(keyword);
  }
  return bytes;
}

/** An article of exactly `bytes` stored bytes: a one-letter title, the slug, and filler content. */
function articleOfSize(slug: string, bytes: number, overrides: Partial<ArticleInput> = {}): ArticleInput {
  const base = articleInput({ slug, title: 'T', content: '', ...overrides });
  const filler = bytes - storedBytes(base);
  assert.ok(filler >= 0, `${slug} cannot be as small as ${bytes} bytes`);
  return { ...base, content: 'x'.repeat(filler) };
}

async function setViews(db: Db, project: ProjectRef, views: Record<string, number>): Promise<void> {
  for (const [slug, count] of Object.entries(views)) {
    await setViewCount(db, project.id, slug, count);
  }
}

async function countRows(db: Db, project: ProjectRef) {
  const articles = await db.kysely
    .selectFrom('articles')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('project_id', '=', project.id)
    .executeTakeFirstOrThrow();
  const tags = await db.kysely
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('project_id', '=', project.id)
    .executeTakeFirstOrThrow();
  const links = await db.kysely
    .selectFrom('article_tags')
    .innerJoin('articles', 'articles.id', 'article_tags.article_id')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('articles.project_id', '=', project.id)
    .executeTakeFirstOrThrow();
  const variants = await db.kysely
    .selectFrom('article_variants')
    .innerJoin('articles', 'articles.id', 'article_variants.article_id')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('articles.project_id', '=', project.id)
    .executeTakeFirstOrThrow();
  return {
    articles: Number(articles.count),
    tags: Number(tags.count),
    links: Number(links.count),
    variants: Number(variants.count),
  };
}

async function refusedImport(promise: Promise<unknown>): Promise<StorageLimitError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof StorageLimitError, `expected StorageLimitError, got ${error}`);
    return error;
  }
  assert.fail('expected the import to be refused');
}

describeEachDialect('GET /v1/project', (ctx) => {
  test('returns the project of the key with its fields', async () => {
    const { project, headers } = await createTestProject(ctx.db, {
      name: 'Field Notes',
      siteUrl: 'https://blog.example.com',
      logoUrl: 'https://blog.example.com/logo.png',
    });
    const { status, body } = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body), ['data']);
    assert.deepEqual(Object.keys(body.data).sort(), ['project', 'stats']);
    assert.deepEqual(body.data.project, {
      id: project.id,
      name: 'Field Notes',
      slug: project.slug,
      description: 'A test project',
      siteUrl: 'https://blog.example.com',
      logoUrl: 'https://blog.example.com/logo.png',
      urlPattern: '/:slug',
      timeZone: 'UTC',
      defaultAuthor: null,
      createdAt: project.created_at,
      updatedAt: project.updated_at,
    });
    assert.match(body.data.project.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test('a project without site or logo URL reports them as null', async () => {
    const { headers } = await createTestProject(ctx.db);
    const { body } = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(body.data.project.siteUrl, null);
    assert.equal(body.data.project.logoUrl, null);
  });

  test('a new project has zero statistics and the default 500 MB storage limit', async () => {
    const { headers } = await createTestProject(ctx.db);
    const { status, body } = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(status, 200);
    assert.deepEqual(body.data.stats, {
      totalArticles: 0,
      publishedArticles: 0,
      totalViews: 0,
      storageUsed: '0 B',
      storageLimit: '500 MB',
    });
  });

  for (const [limit, shown] of [
    ['500 MB', '500 MB'],
    ['1.5 GB', '1.5 GB'],
    ['2500 B', '2.5 KB'],
    ['999 B', '999 B'],
    ['12.34 MB', '12.34 MB'],
    ['0.5 GB', '500 MB'],
    ['1 TB', '1000 GB'],
  ] as const) {
    test(`a storage limit of ${limit} is reported as ${shown}`, async () => {
      const { headers } = await createTestProject(ctx.db, { storageLimit: limit });
      const { body } = await getJson(ctx.app, '/v1/project', headers);
      assert.equal(body.data.stats.storageLimit, shown);
    });
  }

  test('totalArticles counts every status; publishedArticles only articles reported published', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'published-a' }),
      articleInput({ slug: 'published-b', publishedAt: '2025-05-05T05:05:05.000Z' }),
      articleInput({ slug: 'published-undated', publishedAt: null }),
      articleInput({ slug: 'scheduled', publishedAt: future }),
      articleInput({ slug: 'draft-a', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'draft-dated', status: 'draft' }),
      articleInput({ slug: 'archived', status: 'archived' }),
    ]);
    const { body } = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(body.data.stats.totalArticles, 7);
    assert.equal(body.data.stats.publishedArticles, 3);
    // The same notion of `published` as the article list.
    const published = await getJson(ctx.app, '/v1/articles?published=true', headers);
    const all = await getJson(ctx.app, '/v1/articles', headers);
    assert.equal(published.body.meta.total, body.data.stats.publishedArticles);
    assert.equal(all.body.meta.total, body.data.stats.totalArticles);
  });

  test('a project with only scheduled, draft and archived articles has no published article', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'scheduled', publishedAt: future }),
      articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'archived', status: 'archived' }),
    ]);
    const { body } = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(body.data.stats.totalArticles, 3);
    assert.equal(body.data.stats.publishedArticles, 0);
  });

  test('totalViews is the sum of viewCount over the articles of every status', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'a' }),
      articleInput({ slug: 'b' }),
      articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'archived', status: 'archived' }),
      articleInput({ slug: 'scheduled', publishedAt: future }),
      articleInput({ slug: 'never-viewed' }),
    ]);
    const views = { a: 17, b: 1_000_000, draft: 3, archived: 250, scheduled: 1 };
    await setViews(ctx.db, project, views);
    const { body } = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(body.data.stats.totalViews, 17 + 1_000_000 + 3 + 250 + 1);
    const list = await getJson(ctx.app, '/v1/articles?limit=100', headers);
    const sum = list.body.data.reduce(
      (total: number, article: { viewCount: number }) => total + article.viewCount,
      0,
    );
    assert.equal(body.data.stats.totalViews, sum);
  });

  test('statistics never include the articles or views of another project', async () => {
    const mine = await createTestProject(ctx.db);
    const other = await createTestProject(ctx.db);
    await importArticles(ctx.db, mine.project, [
      articleInput({ slug: 'shared', title: 'Mine', content: 'abc' }),
    ]);
    await importArticles(ctx.db, other.project, [
      articleInput({ slug: 'shared', title: 'Theirs', content: 'a much longer body' }),
      articleInput({ slug: 'second' }),
    ]);
    await setViews(ctx.db, mine.project, { shared: 5 });
    await setViews(ctx.db, other.project, { shared: 700, second: 11 });
    const { body } = await getJson(ctx.app, '/v1/project', mine.headers);
    assert.deepEqual(body.data.stats, {
      totalArticles: 1,
      publishedArticles: 1,
      totalViews: 5,
      storageUsed: `${utf8('Mine') + utf8('shared') + utf8('abc')} B`,
      storageLimit: '500 MB',
    });
    assert.equal(body.data.project.id, mine.project.id);
  });

  test('storageUsed counts the UTF-8 bytes of title, slug, excerpt, content, variants and SEO texts', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const rich = articleInput({
      slug: 'creme-brulee',
      title: 'Crème brûlée 🍮',
      excerpt: 'Sweet — and short',
      content: '# 日本語\n\nBody with ümlauts.',
      variants: [
        { key: 'fr', title: 'Crème', excerpt: null, content: 'Texte' },
        { key: 'newsletter', title: null, excerpt: 'Teaser', content: null },
      ],
      seo: {
        metaTitle: 'Meta é',
        metaDescription: 'Desc',
        ogImage: '/og.png',
        canonicalUrl: 'https://example.com/c',
        keywords: ['dessert', 'café'],
      },
    });
    const plain = articleInput({
      slug: 'draft',
      status: 'draft',
      publishedAt: null,
      title: 'Ü',
      content: '',
    });
    await importArticles(ctx.db, project, [rich, plain]);
    const expected =
      // title, slug, excerpt, content
      utf8('Crème brûlée 🍮') +
      utf8('creme-brulee') +
      utf8('Sweet — and short') +
      utf8('# 日本語\n\nBody with ümlauts.') +
      // variants: key, title, excerpt, content
      utf8('fr') +
      utf8('Crème') +
      utf8('Texte') +
      utf8('newsletter') +
      utf8('Teaser') +
      // SEO texts and keywords
      utf8('Meta é') +
      utf8('Desc') +
      utf8('/og.png') +
      utf8('https://example.com/c') +
      utf8('dessert') +
      utf8('café') +
      // the draft: title and slug
      utf8('Ü') +
      utf8('draft');
    assert.equal(expected, 170);
    const { body } = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(body.data.stats.storageUsed, '170 B');
  });

  test('cover image, author, last editor and tags take no storage', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'ab',
        title: 'C',
        content: 'de',
        coverImage: 'https://images.example.com/a-very-long-cover-image-name.jpg',
        author: { name: 'A very long author name', image: 'https://example.com/author.png' },
        lastUpdatedBy: { name: 'Someone else', image: null },
        tags: ['a tag', 'another tag'],
      }),
    ]);
    const { body } = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(body.data.stats.storageUsed, '5 B');
  });

  for (const [bytes, shown] of [
    [999, '999 B'],
    [1000, '1 KB'],
    [1500, '1.5 KB'],
    [12_345, '12.35 KB'],
    [1_005_000, '1.01 MB'],
  ] as const) {
    test(`${bytes} bytes of content are reported as ${shown}`, async () => {
      const { project, headers } = await createTestProject(ctx.db);
      // Split over two articles of different statuses: every article counts.
      const first = Math.floor(bytes / 3);
      await importArticles(ctx.db, project, [
        articleOfSize('first', first),
        articleOfSize('second', bytes - first, { status: 'draft', publishedAt: null }),
      ]);
      const { body } = await getJson(ctx.app, '/v1/project', headers);
      assert.equal(body.data.stats.storageUsed, shown);
    });
  }

  test('storageUsed follows re-imports: changed content is counted once, pruned articles not at all', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const storage = async () => (await getJson(ctx.app, '/v1/project', headers)).body.data.stats.storageUsed;
    await importArticles(ctx.db, project, [articleOfSize('a', 300), articleOfSize('b', 200)]);
    assert.equal(await storage(), '500 B');
    await importArticles(ctx.db, project, [articleOfSize('a', 700), articleOfSize('b', 200)]);
    assert.equal(await storage(), '900 B');
    await importArticles(ctx.db, project, [articleOfSize('c', 50)]);
    assert.equal(await storage(), '950 B');
    await importArticles(ctx.db, project, [articleOfSize('b', 200)], [], { prune: true });
    assert.equal(await storage(), '200 B');
  });

  test('an import that would pass the storage limit is refused and writes nothing', async () => {
    const { project, headers } = await createTestProject(ctx.db, { storageLimit: '1 KB' });
    const before = await importArticles(ctx.db, project, [articleOfSize('kept', 600, { tags: ['Old'] })]);
    assert.equal(before.storageUsed, '600 B');
    const statsBefore = (await getJson(ctx.app, '/v1/project', headers)).body.data.stats;
    assert.deepEqual(statsBefore, {
      totalArticles: 1,
      publishedArticles: 1,
      totalViews: 0,
      storageUsed: '600 B',
      storageLimit: '1 KB',
    });
    const articleBefore = (await getJson(ctx.app, '/v1/articles/kept', headers)).body;
    const rowsBefore = await countRows(ctx.db, project);

    const error = await refusedImport(
      importArticles(
        ctx.db,
        project,
        [
          articleOfSize('kept', 600, { title: 'A new title', tags: ['Old', 'New'] }),
          articleOfSize('added', 650, {
            tags: ['Another'],
            variants: [{ key: 'v', title: null, excerpt: null, content: 'x' }],
          }),
        ],
        [{ name: 'Declared', color: '#123456', icon: null }],
      ),
    );
    assert.equal(error.statusCode, 400);
    assert.equal(error.error, 'Bad Request');
    assert.equal(
      error.message,
      "Storage limit exceeded: the content would use 1.25 KB of the project's 1 KB",
    );
    assert.deepEqual(error.details, { storageUsed: '1.25 KB', storageLimit: '1 KB' });

    assert.deepEqual((await getJson(ctx.app, '/v1/project', headers)).body.data.stats, statsBefore);
    assert.deepEqual((await getJson(ctx.app, '/v1/articles/kept', headers)).body, articleBefore);
    assert.equal((await getJson(ctx.app, '/v1/articles/added', headers)).status, 404);
    assert.deepEqual(await countRows(ctx.db, project), rowsBefore);
    const tags = await getJson(ctx.app, '/v1/tags', headers);
    assert.deepEqual(
      tags.body.data.map((tag: { name: string }) => tag.name),
      ['Old'],
    );
  });

  test('the storage limit counts the articles an import keeps, and not those it prunes', async () => {
    const { project, headers } = await createTestProject(ctx.db, { storageLimit: '1 KB' });
    await importArticles(ctx.db, project, [articleOfSize('old', 600)]);
    // Without --prune the old article stays: 600 + 401 > 1000.
    await refusedImport(importArticles(ctx.db, project, [articleOfSize('new', 401)]));
    assert.equal((await getJson(ctx.app, '/v1/project', headers)).body.data.stats.totalArticles, 1);
    // A dry run is refused the same way.
    await refusedImport(importArticles(ctx.db, project, [articleOfSize('new', 401)], [], { dryRun: true }));
    // With --prune it goes: 401 ≤ 1000.
    const summary = await importArticles(ctx.db, project, [articleOfSize('new', 401)], [], { prune: true });
    assert.deepEqual([summary.created, summary.removed, summary.storageUsed], [1, 1, '401 B']);
    const { body } = await getJson(ctx.app, '/v1/project', headers);
    assert.deepEqual([body.data.stats.totalArticles, body.data.stats.storageUsed], [1, '401 B']);
  });

  test('content exactly at the storage limit is accepted, one byte more is refused', async () => {
    const { project, headers } = await createTestProject(ctx.db, { storageLimit: '2 KB' });
    await importArticles(ctx.db, project, [articleOfSize('a', 1200)]);
    await refusedImport(importArticles(ctx.db, project, [articleOfSize('a', 1200), articleOfSize('b', 801)]));
    assert.equal((await getJson(ctx.app, '/v1/project', headers)).body.data.stats.totalArticles, 1);
    await importArticles(ctx.db, project, [articleOfSize('a', 1200), articleOfSize('b', 800)]);
    const { body } = await getJson(ctx.app, '/v1/project', headers);
    assert.deepEqual([body.data.stats.totalArticles, body.data.stats.storageUsed], [2, '2 KB']);
    // A replacement is measured by its new size, not added to the old one.
    await importArticles(ctx.db, project, [articleOfSize('a', 1000), articleOfSize('b', 1000)]);
    assert.equal((await getJson(ctx.app, '/v1/project', headers)).body.data.stats.storageUsed, '2 KB');
    await refusedImport(
      importArticles(ctx.db, project, [articleOfSize('a', 1001), articleOfSize('b', 1000)]),
    );
  });

  test('the storage limit of one project ignores the content of the others', async () => {
    const small = await createTestProject(ctx.db, { storageLimit: '100 B' });
    const big = await createTestProject(ctx.db);
    await importArticles(ctx.db, big.project, [articleOfSize('big', 5000)]);
    await importArticles(ctx.db, small.project, [articleOfSize('small', 100)]);
    const { body } = await getJson(ctx.app, '/v1/project', small.headers);
    assert.deepEqual([body.data.stats.storageUsed, body.data.stats.storageLimit], ['100 B', '100 B']);
  });
});
