// The list's totals come from the article sets that every import keeps (content/article-sets.ts):
// through imports that add, change and prune articles, the stored sets must stay exactly what
// building them again from the articles gives, and every filter's meta.total and pages must equal
// a reference computed here from the imported inputs. Searches the sets cannot count (a term longer
// than the token windows, a term held by more tokens than can be combined) are counted in the texts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/database.ts';
import type { ArticleInput, TagInput } from '../../src/content/import/records.ts';
import { rebuildArticleSets } from '../../src/content/article-set-queries.ts';
import { termChunksFirst } from '../../src/content/article-matches.ts';
import {
  articleInput,
  articleOrdinals,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  type TestProject,
} from '../helpers.ts';
import { insertPublishedArticles } from '../seo/bulk-articles.ts';

/** A deterministic pseudo-random sequence, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const vocabulary = [
  'alpha',
  'Beta',
  'gamma',
  'alphabet',
  'ZETA',
  'ab',
  'x',
  'déjà',
  'naïve',
  'end.',
  '(paren)',
];
const tagNames = ['News', 'Code', 'Life', 'Rare'];
const longRun = `${'q'.repeat(150)}needle${'r'.repeat(150)}`;
const future = '2099-01-01T00:00:00.000Z';

function makeArticle(next: () => number, slug: string, round: number): ArticleInput {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  const words = Array.from({ length: 3 + Math.floor(next() * 10) }, () => pick(vocabulary));
  if (next() < 0.15) words.push(longRun);
  const kind = pick(['published', 'published', 'scheduled', 'draft', 'archived'] as const);
  return articleInput({
    slug,
    title: `${pick(vocabulary)} ${slug} r${round}`,
    excerpt: next() < 0.3 ? `excerpt ${pick(vocabulary)}` : null,
    content: words.join(next() < 0.5 ? ' ' : '\n'),
    status: kind === 'scheduled' ? 'published' : kind,
    publishedAt: kind === 'scheduled' ? future : kind === 'published' ? '2026-01-01T00:00:00.000Z' : null,
    createdAt: new Date(Date.UTC(2026, 0, 1) + Number(slug.slice(2)) * 60_000).toISOString(),
    tags: tagNames.filter((name) => next() < (name === 'Rare' ? 0.1 : 0.4)),
  });
}

type Query = Record<string, string>;

const queries: Query[] = [
  {},
  { status: 'published' },
  { status: 'scheduled' },
  { status: 'draft' },
  { status: 'archived' },
  { published: 'true' },
  { published: 'false' },
  { search: 'alpha' },
  { search: 'ALPHABET' },
  { search: 'a' },
  { search: 'ab' },
  { search: 'é' },
  { search: 'déj' },
  { search: 'end.' },
  { search: '(PAREN' },
  { search: 'alpha beta' },
  { search: 'zeta x', published: 'false' },
  { search: 'nowhere' },
  { search: `${'q'.repeat(60)}needle` },
  // Longer than the token windows hold: counted in the texts.
  { search: `${'q'.repeat(140)}needle` },
  { tags: 'news' },
  { tags: 'code,rare' },
  { tagsAll: 'news,code' },
  { tagsAll: 'news,nosuchtag' },
  { excludeTags: 'life' },
  { tags: 'news', excludeTags: 'code', status: 'published' },
  { search: 'gamma', tags: 'life', status: 'draft' },
  { search: 'ga', tagsAll: 'code', excludeTags: 'rare', published: 'true' },
];

function matches(article: ArticleInput, query: Query): boolean {
  const status =
    article.status === 'published' && article.publishedAt === future ? 'scheduled' : article.status;
  if (query.status !== undefined && status !== query.status) return false;
  if (query.published !== undefined && (status === 'published') !== (query.published === 'true'))
    return false;
  const text = `${article.title}\n${article.excerpt ?? ''}\n${article.content}`.toLowerCase();
  for (const term of (query.search ?? '').split(' ').filter(Boolean))
    if (!text.includes(term.toLowerCase())) return false;
  const tags = article.tags.map((name) => name.toLowerCase());
  if (query.tags !== undefined && !query.tags.split(',').some((name) => tags.includes(name))) return false;
  if (query.tagsAll !== undefined && !query.tagsAll.split(',').every((name) => tags.includes(name)))
    return false;
  if (query.excludeTags !== undefined && query.excludeTags.split(',').some((name) => tags.includes(name)))
    return false;
  return true;
}

/** The stored sets and tokens of a project, comparable across a rebuild (token ids aside). */
async function storedSets(db: Db, projectId: string) {
  const sets = await db.kysely
    .selectFrom('article_sets')
    .select(['set_key', 'chunk', 'members'])
    .where('project_id', '=', projectId)
    .execute();
  const tokens = await db.kysely
    .selectFrom('search_tokens')
    .select('token')
    .where('project_id', '=', projectId)
    .execute();
  return {
    sets: sets.map((row) => `${row.set_key} ${row.chunk} ${Buffer.from(row.members).toString('hex')}`).sort(),
    tokens: tokens.map((row) => row.token).sort(),
  };
}

async function assertSetsAsRebuilt(db: Db, projectId: string, label: string): Promise<void> {
  const kept = await storedSets(db, projectId);
  assert.ok(kept.sets.length > 0, label);
  await db.kysely.transaction().execute((trx) => rebuildArticleSets(trx, projectId));
  assert.deepEqual(kept, await storedSets(db, projectId), label);
}

describeEachDialect('list counts from article sets', (ctx) => {
  async function assertTotals(p: TestProject, articles: ArticleInput[], label: string) {
    const newestFirst = [...articles].sort((a, b) => (a.createdAt! < b.createdAt! ? 1 : -1));
    for (const query of queries) {
      const expected = newestFirst.filter((article) => matches(article, query)).map((a) => a.slug);
      const name = `${label} ${JSON.stringify(query)}`;
      for (const [limit, page] of [
        [100, 1],
        [2, 1],
        [2, 2],
        [1, Math.max(1, expected.length)],
      ]) {
        const response = await getJson(
          ctx.app,
          `/v1/articles?${new URLSearchParams({ ...query, limit: String(limit), page: String(page) })}`,
          p.headers,
        );
        assert.equal(response.status, 200, name);
        assert.equal(response.body.meta.total, expected.length, `${name} total`);
        assert.deepEqual(
          response.body.data.map((article: { slug: string }) => article.slug),
          expected.slice((page - 1) * limit, page * limit),
          `${name} limit ${limit} page ${page}`,
        );
      }
    }
  }

  test('list: imports, re-imports, prunes and dry runs keep every total exact and the sets as rebuilt', async () => {
    const p = await createTestProject(ctx.db);
    const next = random(7);
    const tags: TagInput[] = tagNames.map((name) => ({ name, color: null, icon: null }));
    let articles = Array.from({ length: 36 }, (_, i) => makeArticle(next, `a-${100 + i}`, 0));
    await importArticles(ctx.db, p.project, articles, tags);
    await assertTotals(p, articles, 'first import');
    await assertSetsAsRebuilt(ctx.db, p.project.id, 'first import');

    for (let round = 1; round <= 3; round++) {
      // Change about a third, keep the rest, add a few; from the second round on, prune a few.
      const kept = round === 1 ? articles : articles.filter(() => next() > 0.15);
      articles = [
        ...kept.map((article) => (next() < 0.35 ? makeArticle(next, article.slug, round) : article)),
        ...Array.from({ length: 4 }, (_, i) => makeArticle(next, `a-${100 + round * 10 + 50 + i}`, round)),
      ];
      // The second round writes its set changes a few articles at a time, as a large import does.
      await importArticles(ctx.db, p.project, articles, tags, {
        prune: round > 1,
        setChangesPerWrite: round === 2 ? 40 : undefined,
      });
      await assertTotals(p, articles, `round ${round}`);
      await assertSetsAsRebuilt(ctx.db, p.project.id, `round ${round}`);
    }

    // A dry run writes nothing, sets included.
    const before = await storedSets(ctx.db, p.project.id);
    const changed = articles.map((article) => makeArticle(next, article.slug, 9));
    await importArticles(ctx.db, p.project, changed.slice(3), tags, { prune: true, dryRun: true });
    assert.deepEqual(await storedSets(ctx.db, p.project.id), before);
    await assertTotals(p, articles, 'after a dry run');
  });

  test('list: a pruned article’s ordinal goes to the next new article, whose sets are its own', async () => {
    const p = await createTestProject(ctx.db);
    const ordinals = () => articleOrdinals(ctx.db, p.project.id);
    const a = articleInput({ slug: 'a', content: 'apple', tags: ['Fruit'] });
    const b = articleInput({ slug: 'b', content: 'banana', tags: ['Fruit'] });
    const c = articleInput({ slug: 'c', content: 'cherry' });
    await importArticles(ctx.db, p.project, [a, b, c]);
    const first = await ordinals();
    assert.deepEqual(new Set(Object.values(first)), new Set([0, 1, 2]));
    await importArticles(ctx.db, p.project, [a, c], [], { prune: true });
    await importArticles(ctx.db, p.project, [a, c, articleInput({ slug: 'd', content: 'durian' })]);
    const second = await ordinals();
    assert.deepEqual(second, { a: first.a, c: first.c, d: first.b });
    const total = (query: string) => metaTotal(ctx.app, p.headers, query);
    assert.equal(await total('search=banana'), 0);
    assert.equal(await total('search=durian'), 1);
    assert.equal(await total('tags=fruit'), 1);
    await assertSetsAsRebuilt(ctx.db, p.project.id, 'after reuse');
  });

  test('list: any term, quotes, operators and all, is counted like a substring of the texts', async () => {
    const p = await createTestProject(ctx.db);
    const next = random(11);
    const pool = [
      'a',
      'b',
      'é',
      'Σ',
      'ς',
      '中',
      '😀',
      '"',
      "'",
      '%',
      '_',
      '\\',
      '*',
      '^',
      ':',
      '-',
      '(',
      ')',
      '.',
      'NEAR',
      'OR',
      ' ',
      ' ',
      ' ',
      '\n',
    ];
    const pick = () => pool[Math.floor(next() * pool.length)];
    const texts = Array.from({ length: 24 }, () =>
      Array.from({ length: 12 + Math.floor(next() * 30) }, pick).join(''),
    );
    await importArticles(
      ctx.db,
      p.project,
      texts.map((text, i) => articleInput({ slug: `f-${i}`, title: `T${i}`, content: `x ${text}` })),
    );
    // Terms drawn from the texts (so that most match) and from the pool.
    const terms: string[] = [];
    for (let i = 0; i < 80; i++) {
      const text = texts[Math.floor(next() * texts.length)];
      const start = Math.floor(next() * text.length);
      const fromText = text.slice(start, start + 1 + Math.floor(next() * 6)).split(/\s+/u)[0];
      const fromPool = Array.from({ length: 1 + Math.floor(next() * 5) }, pick)
        .join('')
        .replace(/\s/gu, '');
      for (const term of [fromText, fromPool])
        if (term !== '' && !/^[\ud800-\udfff]|[\ud800-\udfff]$/.test(term)) terms.push(term);
    }
    // What the plain text of such content is: the Markdown renderer's view is the reference.
    const stored = await ctx.db.kysely
      .selectFrom('articles')
      .select('search_text')
      .where('project_id', '=', p.project.id)
      .execute();
    for (const term of terms) {
      const key = term.toLowerCase().replaceAll('ς', 'σ');
      const expected = stored.filter((row) => row.search_text.includes(key)).length;
      const response = await getJson(
        ctx.app,
        `/v1/articles?search=${encodeURIComponent(term)}&limit=1`,
        p.headers,
      );
      assert.equal(response.status, 200, JSON.stringify(term));
      assert.equal(response.body.meta.total, expected, JSON.stringify(term));
    }
  });

  test('list: two imports of a project at once take turns, and both are counted', async () => {
    const p = await createTestProject(ctx.db);
    const batch = (prefix: string) =>
      Array.from({ length: 30 }, (_, i) =>
        articleInput({ slug: `${prefix}-${i}`, content: `${prefix}word shared`, tags: [prefix] }),
      );
    await Promise.all([
      importArticles(ctx.db, p.project, batch('left')),
      importArticles(ctx.db, p.project, batch('right')),
    ]);
    const total = (query: string) => metaTotal(ctx.app, p.headers, query);
    assert.equal(await total('search=shared'), 60);
    assert.equal(await total('search=leftword'), 30);
    assert.equal(await total('tags=right'), 30);
    await assertSetsAsRebuilt(ctx.db, p.project.id, 'two imports');
  });

  test('list: lone halves of surrogate pairs are stored and searched as U+FFFD, never a failed import', async () => {
    const p = await createTestProject(ctx.db);
    await importArticles(ctx.db, p.project, [
      articleInput({ slug: 'high', content: 'x\ud800y lone' }),
      articleInput({ slug: 'low', content: 'x\udc00y lone' }),
      articleInput({ slug: 'replacement', content: 'x\ufffdy lone' }),
      articleInput({ slug: 'pair', content: 'x\ud83d\ude00y lone' }),
    ]);
    const slugs = async (search: string) => {
      const response = await getJson(ctx.app, `/v1/articles?search=${encodeURIComponent(search)}`, p.headers);
      assert.equal(response.status, 200, search);
      assert.equal(response.body.meta.total, response.body.data.length, search);
      return response.body.data.map((article: { slug: string }) => article.slug).sort();
    };
    // A URL cannot carry a lone half: U+FFFD is how a search names it.
    assert.deepEqual(await slugs('\ufffd'), ['high', 'low', 'replacement']);
    assert.deepEqual(await slugs('x\ufffdy'), ['high', 'low', 'replacement']);
    assert.deepEqual(await slugs('x\ufffdy lone'), ['high', 'low', 'replacement']);
    assert.deepEqual(await slugs('😀'), ['pair']);
    await assertSetsAsRebuilt(ctx.db, p.project.id, 'lone surrogates');
  });

  test(`list: a term held by more than ${termChunksFirst} words is counted exactly from the texts of the articles it may be in`, async () => {
    const p = await createTestProject(ctx.db);
    // Each article holds a word of its own: `wide` is held by more words than are read with the
    // other sets (its words' sets read alone are checked in search-paths.test.ts).
    const count = termChunksFirst + 20;
    const text = (i: number) => `wide${i} plain`;
    await insertPublishedArticles(ctx.db, p.project, count, text);
    const texts = Array.from({ length: count }, (_, i) => text(i));
    // `ide1 ide2 ide3 ide4`: each term's words fit, all of them together do not.
    for (const search of [
      'wide',
      'ide1',
      'plain wide',
      'wide2010',
      'de40',
      'ide1 ide2',
      'ide1 ide2 ide3 ide4',
      'wide2010 wide',
      'wide plain4',
    ]) {
      const terms = search.split(' ');
      const expected = texts.filter((t) => terms.every((term) => t.includes(term))).length;
      const response = await getJson(ctx.app, `/v1/articles?search=${search}&limit=3`, p.headers);
      assert.equal(response.status, 200, search);
      assert.equal(response.body.meta.total, expected, search);
    }
  });
});

/** The list's `meta.total` for the query string. */
async function metaTotal(
  app: FastifyInstance,
  headers: Record<string, string>,
  query: string,
): Promise<number> {
  return (await getJson(app, `/v1/articles?${query}`, headers)).body.meta.total;
}
