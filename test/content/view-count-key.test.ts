// On PostgreSQL articles.id has the collation "C" and article_views.article_id the database's: an
// article's view count must be found by article_views' key, not by a scan of the table for each
// article listed (the ids compared in "C" could use no index).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ArticleFilter, articlePageQuery } from '../../src/content/article-queries.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  queryPlan,
  setViewCount,
} from '../helpers.ts';

describeEachDialect('view counts read by key', (ctx) => {
  test('list: each article’s view count is read by the key of article_views, and shown', async (t) => {
    const p = await createTestProject(ctx.db);
    await importArticles(
      ctx.db,
      p.project,
      ['a', 'b', 'c'].map((slug) => articleInput({ slug })),
    );
    await setViewCount(ctx.db, p.project.id, 'b', 7);
    const listed = await getJson(ctx.app, '/v1/articles?sort=viewCount', p.headers);
    const counts = listed.body.data.map((article: { slug: string; viewCount: number }) => [
      article.slug,
      article.viewCount,
    ]);
    assert.deepEqual(counts[0], ['b', 7]);
    assert.deepEqual(
      counts.slice(1).map(([, count]: [string, number]) => count),
      [0, 0],
    );
    if (ctx.db.dialect !== 'postgres') return t.skip('SQLite compares the ids in one collation');
    const filter: ArticleFilter = {
      projectId: p.project.id,
      now: new Date().toISOString(),
      searchTerms: [],
      anyTagIds: null,
      allTagIds: null,
      excludeTagIds: [],
    };
    const page = articlePageQuery(
      ctx.db.kysely,
      ctx.db.dialect,
      filter,
      { sort: 'createdAt', order: 'desc' },
      { offset: 0, limit: 10 },
      false,
      'driven',
    );
    const plan = await queryPlan(ctx.db, page);
    assert.match(plan, /article_views_pkey/, plan);
    assert.doesNotMatch(plan, /Seq Scan on article_views/, plan);
  });
});
