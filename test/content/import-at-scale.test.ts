// Imports of many articles: statements stay under each database's limit on parameters, and the
// import stays one transaction however many articles it writes in turn.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { readContentSource } from '../../src/content/import/read-source.ts';
import type { Db } from '../../src/db/database.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  importArticles,
  makeContentFolder,
  removeContentFolders,
} from '../helpers.ts';

after(removeContentFolders);

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

test('reading: a folder and a JSON file report each article read, 1 … total in order', async () => {
  const names = Array.from({ length: 60 }, (_, i) => `post-${String(i).padStart(2, '0')}`);
  const folder = await makeContentFolder(
    Object.fromEntries(
      names.map((name) => [`${name}.md`, `---\ntitle: ${name}\nstatus: draft\n---\nBody.\n`]),
    ),
  );
  const json = await makeContentFolder({
    'content.json': JSON.stringify({
      articles: names.map((slug) => ({ slug, title: slug, status: 'draft' })),
    }),
  });
  const expected = names.map((_, i) => [i + 1, names.length]);
  for (const path of [folder, `${json}/content.json`]) {
    const reported: Array<[number, number]> = [];
    const source = await readContentSource(path, {
      onProgress: (done, total) => reported.push([done, total]),
    });
    assert.equal(source.articles.length, names.length);
    assert.deepEqual(reported, expected, path);
  }
});

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
