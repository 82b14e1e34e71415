// Imports of many articles: statements stay under each database's limit on parameters, and the
// import stays one transaction however many articles it writes in turn.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../src/db/database.ts';
import { articleInput, createTestProject, describeEachDialect, importArticles } from '../helpers.ts';

/** `count` small published articles, `article-0` … */
const manyArticles = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    articleInput({ slug: `article-${i}`, tags: [`Tag ${i % 7}`], content: `Body ${i} of *many*.` }),
  );

async function outboxCount(db: Db, projectId: string, type: string): Promise<number> {
  const row = await db.kysely
    .selectFrom('outbox_events')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('project_id', '=', projectId)
    .where('type', '=', type)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

async function rowCount(
  db: Db,
  table: 'articles' | 'tags' | 'article_sets',
  projectId: string,
): Promise<number> {
  const row = await db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('count'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describeEachDialect('import at scale', (context) => {
  test('a failure at article 1,100 of 1,200, after two batches were written, leaves nothing written', async () => {
    const { project } = await createTestProject(context.db);
    await assert.rejects(
      importArticles(context.db, project, manyArticles(1_200), [], {
        onProgress: (done) => {
          if (done === 1_100) throw new Error('failed at 1,100');
        },
      }),
      /failed at 1,100/,
    );
    assert.equal(await rowCount(context.db, 'articles', project.id), 0);
    assert.equal(await rowCount(context.db, 'tags', project.id), 0);
    assert.equal(await rowCount(context.db, 'article_sets', project.id), 0);
    assert.equal(await outboxCount(context.db, project.id, 'article.published'), 0);
  });

  test('progress: done counts 1 … total in order, with the number of articles as total', async () => {
    const { project } = await createTestProject(context.db);
    const reported: Array<[number, number]> = [];
    const summary = await importArticles(context.db, project, manyArticles(1_200), [], {
      onProgress: (done, total) => reported.push([done, total]),
    });
    assert.equal(summary.created, 1_200);
    assert.deepEqual(
      reported,
      Array.from({ length: 1_200 }, (_, i) => [i + 1, 1_200]),
    );
    assert.equal(await rowCount(context.db, 'articles', project.id), 1_200);
  });

  test('6,000 published articles: one article.published event each, however many parameters that takes', async () => {
    const { project } = await createTestProject(context.db);
    const summary = await importArticles(context.db, project, manyArticles(6_000));
    assert.equal(summary.created, 6_000);
    assert.equal(await outboxCount(context.db, project.id, 'article.published'), 6_000);
    assert.equal(await outboxCount(context.db, project.id, 'import.completed'), 1);
  });
});
