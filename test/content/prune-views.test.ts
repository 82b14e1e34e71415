// An article removed by `import --prune` and imported again is the same article: its id, creation
// date and page views come back, and its viewCount is the count of its page views, including those
// rolled up while it was gone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  viewCountOf,
} from '../helpers.ts';
import { track } from '../analytics/support.ts';

describeEachDialect(
  'prune and re-import',
  (ctx) => {
    async function blog() {
      const owner = await createTestProject(ctx.db);
      const articles = [
        articleInput({ slug: 'kept' }),
        articleInput({ slug: 'gone', status: 'draft', publishedAt: null, createdAt: null }),
      ];
      await importArticles(ctx.db, owner.project, articles, [], { now: new Date('2026-02-01T00:00:00Z') });
      return { ...owner, articles };
    }
    const views = async (headers: Record<string, string>, slug: string, count: number) => {
      for (let i = 0; i < count; i++) {
        const response = await track(ctx.app, { slug }, { headers, ip: `192.0.2.${i + 1}` });
        assert.equal(response.statusCode, 201, response.body);
      }
    };
    const article = async (headers: Record<string, string>, slug: string) => {
      const { status, body } = await getJson(ctx.app, `/v1/articles/${slug}`, headers);
      assert.equal(status, 200);
      return body.data as { id: string; viewCount: number; createdAt: string };
    };

    test('a pruned article imported again keeps its id, createdAt and viewCount', async () => {
      const { project, headers, articles } = await blog();
      await views(headers, 'gone', 3);
      await rollUpQueued(ctx.db);
      const before = await article(headers, 'gone');
      assert.equal(before.viewCount, 3);

      const pruned = await importArticles(ctx.db, project, [articles[0]], [], { prune: true });
      assert.deepEqual(pruned.changes.removed, ['gone']);
      assert.equal((await getJson(ctx.app, '/v1/articles/gone', headers)).status, 404);

      const restored = await importArticles(ctx.db, project, articles, [], {
        now: new Date('2026-03-01T00:00:00Z'),
      });
      assert.deepEqual(restored.changes.created, ['gone']);
      assert.deepEqual(await article(headers, 'gone'), before);
      assert.equal(before.createdAt, '2026-02-01T00:00:00.000Z', 'the time of the first import');
      assert.equal(await viewCountOf(ctx.db, project.id, 'gone'), 3);

      // Its page views are its own again: a new one adds to them, and the statistics name it.
      await views(headers, 'gone', 1);
      assert.equal(await viewCountOf(ctx.db, project.id, 'gone'), 4);
      const stats = await getJson(ctx.app, '/v1/analytics/stats?days=1', headers);
      assert.deepEqual(stats.body.data.topArticles, [
        { articleId: before.id, title: 'Title of gone', slug: 'gone', views: 4 },
      ]);

      // Importing the same articles again changes nothing.
      const again = await importArticles(ctx.db, project, articles, []);
      assert.equal(again.unchanged, 2);
      assert.equal(await viewCountOf(ctx.db, project.id, 'gone'), 4);
    });

    test('page views rolled up while the article was gone count once it is back', async () => {
      const { project, headers, articles } = await blog();
      await views(headers, 'gone', 2);
      await rollUpQueued(ctx.db);
      await views(headers, 'gone', 3);
      // Pruned before the last three are rolled up: they are summed while it is gone.
      await importArticles(ctx.db, project, [articles[0]], [], { prune: true });
      await rollUpQueued(ctx.db);
      await importArticles(ctx.db, project, articles, []);
      assert.equal(await viewCountOf(ctx.db, project.id, 'gone'), 5);
      assert.equal(await viewCountOf(ctx.db, project.id, 'kept'), 0);
    });

    test('pruned twice and restored twice, the count still follows the page views', async () => {
      const { project, headers, articles } = await blog();
      await views(headers, 'gone', 2);
      for (let round = 0; round < 2; round++) {
        await importArticles(ctx.db, project, [articles[0]], [], { prune: true });
        await importArticles(ctx.db, project, articles, []);
        await views(headers, 'gone', 1);
      }
      assert.equal(await viewCountOf(ctx.db, project.id, 'gone'), 4);
    });

    test('a dry run of a prune keeps the article, and a restore in a dry run writes nothing', async () => {
      const { project, headers, articles } = await blog();
      await views(headers, 'gone', 2);
      await rollUpQueued(ctx.db);
      await importArticles(ctx.db, project, [articles[0]], [], { prune: true, dryRun: true });
      assert.equal((await article(headers, 'gone')).viewCount, 2);
      await importArticles(ctx.db, project, [articles[0]], [], { prune: true });
      const dry = await importArticles(ctx.db, project, articles, [], { dryRun: true });
      assert.deepEqual(dry.changes.created, ['gone']);
      assert.equal((await getJson(ctx.app, '/v1/articles/gone', headers)).status, 404);
      await importArticles(ctx.db, project, articles, []);
      assert.equal((await article(headers, 'gone')).viewCount, 2);
    });

    test("another project's article of the same slug is not restored from this one", async () => {
      const first = await blog();
      await views(first.headers, 'gone', 2);
      await importArticles(ctx.db, first.project, [first.articles[0]], [], { prune: true });
      const second = await createTestProject(ctx.db);
      await importArticles(ctx.db, second.project, first.articles, []);
      assert.equal(await viewCountOf(ctx.db, second.project.id, 'gone'), 0);
      await importArticles(ctx.db, first.project, first.articles, []);
      assert.equal(await viewCountOf(ctx.db, first.project.id, 'gone'), 2);
    });
  },
  // Rolled up when a test says so (or a read of statistics does), not by the timer.
  { rollupDelayMs: 60_000 },
);
