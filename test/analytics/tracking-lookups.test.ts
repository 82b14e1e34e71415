// The tracking path's article lookups are kept under the project's content version: a blog's
// views of one article ask the database about that article once, page views and roll-ups change
// nothing of it, and a content change (through any instance) is seen by the next view.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { buildApp } from '../../src/app.ts';
import { type Db, openDatabase } from '../../src/db/database.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  importArticles,
} from '../helpers.ts';
import { track, update } from './support.ts';

/** The handle, with the compiled queries that read `articles` counted (the tracking lookups). */
function countingArticleReads(db: Db): { db: Db; reads: () => number } {
  let reads = 0;
  const counted: Db = {
    ...db,
    executeCompiled: (query) => {
      if (query.sql.includes('"articles"')) reads++;
      return db.executeCompiled(query);
    },
  };
  return { db: counted, reads: () => reads };
}

describeEachDialect('tracking lookups kept under the content version', (ctx) => {
  async function blog() {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'hello' })]);
    const publicKey = await createTestKey(ctx.db, owner.project, { kind: 'public' });
    await ctx.db.changesSeen();
    return { ...owner, publicKey };
  }

  test("a public key's views of one article ask the database about it once, whatever page views are written", async () => {
    const { publicKey } = await blog();
    const counting = countingArticleReads(ctx.db);
    const app = await buildApp({ db: counting.db });
    try {
      for (let i = 0; i < 3; i++) {
        const created = await track(app, { slug: 'hello' }, { headers: publicKey.headers });
        assert.equal(created.statusCode, 201);
        const updated = await update(
          app,
          created.json().id,
          { timeOnPage: 20 },
          { headers: publicKey.headers },
        );
        assert.equal(updated.statusCode, 200);
        await rollUpQueued(ctx.db);
      }
      assert.equal(counting.reads(), 1);
    } finally {
      await app.close();
    }
  });

  test('an article unpublished through another instance is refused at the next view and update', async () => {
    const { project, publicKey } = await blog();
    const created = await track(ctx.app, { slug: 'hello' }, { headers: publicKey.headers });
    assert.equal(created.statusCode, 201);
    const other = openDatabase(ctx.url);
    try {
      await importArticles(other, project, [
        articleInput({ slug: 'hello', status: 'draft', publishedAt: null }),
      ]);
    } finally {
      await other.close();
    }
    await ctx.db.changesSeen();
    assert.equal((await track(ctx.app, { slug: 'hello' }, { headers: publicKey.headers })).statusCode, 404);
    const updated = await update(
      ctx.app,
      created.json().id,
      { timeOnPage: 20 },
      { headers: publicKey.headers },
    );
    assert.equal(updated.statusCode, 404);
  });
});
