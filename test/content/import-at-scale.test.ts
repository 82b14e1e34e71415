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

describeEachDialect('import at scale', (context) => {
  test('6,000 published articles: one article.published event each, however many parameters that takes', async () => {
    const { project } = await createTestProject(context.db);
    const summary = await importArticles(context.db, project, manyArticles(6_000));
    assert.equal(summary.created, 6_000);
    assert.equal(await outboxCount(context.db, project.id, 'article.published'), 6_000);
    assert.equal(await outboxCount(context.db, project.id, 'import.completed'), 1);
  });
});
