// Lists sorted by view count or publication are read in two parts along indexes (the articles
// viewed, by count, then the others by id; the articles with a publishedAt, then those without):
// every page must be the page of the plain sort of every article by its key, in both orders, with
// status filters, across the border of the two parts, read from either end, and after the counts
// change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readArticlePage } from '../../src/content/article-page.ts';
import {
  type ArticleFilter,
  articlePageQuery,
  type ArticleOrder,
} from '../../src/content/article-queries.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  importArticles,
  setViewCount,
} from '../helpers.ts';
import { recordingRun } from './search-support.ts';

const count = 45;
const limit = 4;

describeEachDialect('list pages of sorts read in two parts', (ctx) => {
  test('list: every page sorted by view count or publication is the plain sort’s, both ways, with status filters, before and after the counts change', async () => {
    const p = await createTestProject(ctx.db);
    const projectId = p.project.id;
    await importArticles(
      ctx.db,
      p.project,
      Array.from({ length: count }, (_, i) =>
        articleInput({
          slug: `v-${String(i).padStart(2, '0')}`,
          status: i % 6 === 1 ? 'draft' : 'published',
        }),
      ),
    );
    // Counts with ties, and one article whose row holds 0 (as never viewed).
    const counts = async (shift: number) => {
      for (let i = 0; i < count; i++)
        if (i % 3 !== 0)
          await setViewCount(ctx.db, projectId, `v-${String(i).padStart(2, '0')}`, ((i + shift) % 5) * 10);
    };
    await counts(0);
    const project = await ctx.db.kysely
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', projectId)
      .executeTakeFirstOrThrow();
    const { run, statements } = recordingRun(ctx.db, { offThread: true });
    const filterOf = (status: ArticleFilter['status'], published?: boolean): ArticleFilter => ({
      projectId,
      now: new Date().toISOString(),
      status,
      published,
      searchTerms: [],
      anyTagIds: null,
      allTagIds: null,
      excludeTagIds: [],
    });
    const byParts = new Set<string>();
    const check = async (label: string) => {
      for (const [sort, direction] of [
        ['viewCount', 'desc'],
        ['viewCount', 'asc'],
        ['publishedAt', 'desc'],
        ['publishedAt', 'asc'],
      ] as const) {
        const order: ArticleOrder = { sort, order: direction };
        for (const [status, published] of [
          [undefined, undefined],
          ['published', undefined],
          ['draft', undefined],
          [undefined, false],
        ] as const) {
          const filter = filterOf(status, published);
          const plain = await run(
            articlePageQuery(
              ctx.db.kysely,
              ctx.db.dialect,
              filter,
              order,
              { offset: 0, limit: 1000 },
              false,
              'driven',
            ),
          );
          for (let offset = 0; offset < plain.length; offset += limit) {
            statements.length = 0;
            const { rows, total } = await readArticlePage(
              ctx.db,
              { filter, order, page: { offset, limit }, columns: { content: false, html: false }, project },
              run,
            );
            const where = `${label} ${sort} ${direction} ${status ?? ''} ${published ?? ''} offset ${offset}`;
            assert.equal(total, plain.length, where);
            assert.deepEqual(
              rows.map((row) => row.slug),
              plain.slice(offset, offset + limit).map((row) => row.slug),
              where,
            );
            const parts = sort === 'viewCount' ? /order by "v"\."view_count"/ : /"published_at" is not null/;
            if (statements.some((text) => parts.test(text))) byParts.add(sort);
          }
        }
      }
    };
    await check('first counts');
    await counts(2);
    await check('counts changed');
    assert.deepEqual([...byParts].sort(), ['publishedAt', 'viewCount'], 'pages were read by parts');
  });
});
