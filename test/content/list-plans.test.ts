// GET /v1/articles finds a page either from its matches or by walking the sort index, depending on
// how many articles match, and counts tag filters from the tag postings alone: every combination
// of filters must give the same pages and totals whichever way is taken, which a reference
// computed here from the imported articles checks, page by page, with small and large pages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ArticleInput } from '../../src/content/import/records.ts';
import { articleInput, createTestProject, describeEachDialect, getJson, importArticles } from '../helpers.ts';

const count = 64;
const tagNames = ['Alpha', 'Beta', 'Gamma'];

function articles(): ArticleInput[] {
  return Array.from({ length: count }, (_, i) => {
    const tags = tagNames.filter((_, t) => (i >> t) % 2 === 1 || (t === 0 && i % 3 === 0));
    const moment = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString();
    return articleInput({
      slug: `a-${String(i).padStart(2, '0')}`,
      title: `Post ${i}`,
      // `common` in most articles, `rare` in three, `zq` (two characters) in a third.
      content: `${i % 8 === 7 ? 'plain' : 'common'} words here ${i % 21 === 4 ? 'rare' : ''} ${i % 3 === 1 ? 'zq' : ''}`,
      status: i % 9 === 8 ? 'draft' : 'published',
      publishedAt: i % 9 === 8 ? null : moment,
      createdAt: moment,
      tags,
    });
  });
}

interface Case {
  query: Record<string, string>;
  matches: (article: ArticleInput) => boolean;
}

const has = (article: ArticleInput, tag: string) => article.tags.includes(tag);
const text = (article: ArticleInput) => `${article.title}\n${article.content}`.toLowerCase();

const cases: Case[] = [
  { query: { search: 'common' }, matches: (a) => text(a).includes('common') },
  { query: { search: 'rare' }, matches: (a) => text(a).includes('rare') },
  { query: { search: 'zq' }, matches: (a) => text(a).includes('zq') },
  { query: { search: 'common zq' }, matches: (a) => text(a).includes('common') && text(a).includes('zq') },
  { query: { tags: 'alpha' }, matches: (a) => has(a, 'Alpha') },
  { query: { tags: 'beta,gamma' }, matches: (a) => has(a, 'Beta') || has(a, 'Gamma') },
  { query: { tagsAll: 'alpha,beta' }, matches: (a) => has(a, 'Alpha') && has(a, 'Beta') },
  { query: { excludeTags: 'alpha' }, matches: (a) => !has(a, 'Alpha') },
  { query: { excludeTags: 'alpha,gamma' }, matches: (a) => !has(a, 'Alpha') && !has(a, 'Gamma') },
  { query: { excludeTags: 'nosuchtag' }, matches: () => true },
  { query: { tags: 'alpha', excludeTags: 'alpha' }, matches: () => false },
  {
    query: { tagsAll: 'alpha,beta', tags: 'gamma' },
    matches: (a) => has(a, 'Alpha') && has(a, 'Beta') && has(a, 'Gamma'),
  },
  { query: { tags: 'nosuchtag' }, matches: () => false },
  {
    query: { tags: 'alpha,beta', excludeTags: 'gamma' },
    matches: (a) => (has(a, 'Alpha') || has(a, 'Beta')) && !has(a, 'Gamma'),
  },
  {
    query: { tags: 'alpha', tagsAll: 'beta', excludeTags: 'gamma' },
    matches: (a) => has(a, 'Alpha') && has(a, 'Beta') && !has(a, 'Gamma'),
  },
  { query: { tagsAll: 'alpha,nosuchtag' }, matches: () => false },
  {
    query: { search: 'common', tags: 'alpha' },
    matches: (a) => text(a).includes('common') && has(a, 'Alpha'),
  },
  {
    query: { status: 'published', excludeTags: 'beta' },
    matches: (a) => a.status === 'published' && !has(a, 'Beta'),
  },
  {
    query: { published: 'false', search: 'words' },
    matches: (a) => a.status !== 'published',
  },
];

describeEachDialect('article list plans', (ctx) => {
  test('list: every filter gives the same pages and totals, one article per page or all at once', async () => {
    const project = await createTestProject(ctx.db);
    const inputs = articles();
    await importArticles(ctx.db, project.project, inputs, []);
    const newestFirst = [...inputs].sort((a, b) => (a.createdAt! < b.createdAt! ? 1 : -1));
    for (const { query, matches } of cases) {
      const expected = newestFirst.filter(matches).map((article) => article.slug);
      const label = JSON.stringify(query);
      const all = await getJson(
        ctx.app,
        `/v1/articles?${new URLSearchParams({ ...query, limit: '100' })}`,
        project.headers,
      );
      assert.equal(all.status, 200, label);
      assert.deepEqual(
        all.body.data.map((article: { slug: string }) => article.slug),
        expected,
        label,
      );
      assert.equal(all.body.meta.total, expected.length, label);
      // One article per page: the first pages walk the sort index when most articles match.
      for (const page of new Set([1, 2, 3, Math.max(1, expected.length), expected.length + 1])) {
        const one = await getJson(
          ctx.app,
          `/v1/articles?${new URLSearchParams({ ...query, limit: '1', page: String(page) })}`,
          project.headers,
        );
        assert.equal(one.status, 200, label);
        assert.equal(one.body.meta.total, expected.length, `${label} page ${page}`);
        assert.deepEqual(
          one.body.data.map((article: { slug: string }) => article.slug),
          expected.slice(page - 1, page),
          `${label} page ${page}`,
        );
      }
      const ascending = await getJson(
        ctx.app,
        `/v1/articles?${new URLSearchParams({ ...query, limit: '2', order: 'asc', sort: 'title' })}`,
        project.headers,
      );
      const byTitle = newestFirst
        .filter(matches)
        .map((article) => article)
        .sort((a, b) => (a.title.toLowerCase() < b.title.toLowerCase() ? -1 : 1))
        .slice(0, 2)
        .map((article) => article.slug);
      assert.deepEqual(
        ascending.body.data.map((article: { slug: string }) => article.slug),
        byTitle,
        `${label} by title`,
      );
    }
  });
});
