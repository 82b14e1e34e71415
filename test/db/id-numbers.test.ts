// Migration 0039: every project and article has a number, given by a trigger whatever inserts the
// row, never given twice, kept by an article that an import's --prune removed (it may come back),
// and gone with its project. Existing rows get theirs when the migration runs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { importContent } from '../../src/content/import.ts';
import { createArticle } from '../../src/content/write-articles.ts';
import type { Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { deleteProject } from '../../src/projects/service.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  importArticles,
  migrateBefore,
  type TestDatabase,
} from '../helpers.ts';

async function numbersOf(db: Db, projectId: string): Promise<Map<string, number>> {
  const rows = await db.kysely
    .selectFrom('article_nums')
    .innerJoin('articles', 'articles.id', 'article_nums.article_id')
    .select(['articles.slug', 'article_nums.num'])
    .where('article_nums.project_id', '=', projectId)
    .execute();
  return new Map(rows.map((row) => [row.slug, Number(row.num)]));
}

async function projectNumber(db: Db, projectId: string): Promise<number | undefined> {
  const row = await db.kysely
    .selectFrom('project_nums')
    .select('num')
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.num);
}

for (const dialect of configuredDialects()) {
  describe(`id numbers [${dialect}]`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(dialect);
    });
    after(async () => database?.drop());

    test('each project and article gets a number of its own at its insert, whatever inserts it', async () => {
      const { db } = database;
      const first = await createTestProject(db);
      const second = await createTestProject(db);
      const [a, b] = [await projectNumber(db, first.project.id), await projectNumber(db, second.project.id)];
      assert.ok(a !== undefined && b !== undefined && a !== b, `${a} ${b}`);
      // One import: one insert statement of many articles.
      await importArticles(
        db,
        first.project,
        Array.from({ length: 30 }, (_, i) => articleInput({ slug: `a-${i}` })),
      );
      await importArticles(db, second.project, [articleInput({ slug: 'a-0' })]);
      const numbers = await numbersOf(db, first.project.id);
      assert.equal(numbers.size, 30);
      const all = [...numbers.values(), ...(await numbersOf(db, second.project.id)).values()];
      assert.equal(new Set(all).size, 31, 'no number is given twice');
      // The API's insert, one article.
      const created = await createArticle(
        db,
        first.project,
        { slug: 'by-the-api', title: 'By the API', content: 'Text.' },
        undefined,
      );
      assert.equal(created.statusCode, 201, JSON.stringify(created));
      const numbered = await numbersOf(db, first.project.id);
      assert.equal(numbered.size, 31);
      assert.equal(new Set(numbered.values()).size, 31);
    });

    test('an article pruned keeps its number, and brings it back with its slug; a new article never reuses one', async () => {
      const { db } = database;
      const { project } = await createTestProject(db);
      await importArticles(db, project, [articleInput({ slug: 'kept' }), articleInput({ slug: 'pruned' })]);
      const before = await numbersOf(db, project.id);
      await importContent(
        db,
        project.slug,
        { tags: [], articles: [articleInput({ slug: 'kept' })] },
        { prune: true },
      );
      assert.equal((await numbersOf(db, project.id)).has('pruned'), false, 'the article is gone');
      const stored = await db.kysely
        .selectFrom('article_nums')
        .select('num')
        .where('project_id', '=', project.id)
        .execute();
      assert.equal(stored.length, 2, 'its number stays');
      await importArticles(db, project, [articleInput({ slug: 'fresh' })]);
      await importContent(db, project.slug, {
        tags: [],
        articles: [articleInput({ slug: 'kept' }), articleInput({ slug: 'pruned' })],
      });
      const now = await numbersOf(db, project.id);
      assert.equal(now.get('pruned'), before.get('pruned'), 'brought back with its number');
      assert.ok(now.get('fresh')! > Math.max(...before.values()));
    });

    test('a project deleted takes its numbers with it', async () => {
      const { db } = database;
      const { project } = await createTestProject(db);
      await importArticles(db, project, [articleInput({ slug: 'one' })]);
      await deleteProject(db, project.slug);
      assert.equal(await projectNumber(db, project.id), undefined);
      const left = await db.kysely
        .selectFrom('article_nums')
        .select('num')
        .where('project_id', '=', project.id)
        .execute();
      assert.deepEqual(left, []);
    });
  });

  describe(`id numbers of an existing database [${dialect}]`, () => {
    test('the migration numbers the projects, articles and removed articles already there', async () => {
      const database = await createTestDatabase(dialect, { migrate: false });
      try {
        const { db } = database;
        await migrateBefore(db, '0039-id-numbers');
        const { project } = await createTestProject(db);
        await importArticles(db, project, [articleInput({ slug: 'here' }), articleInput({ slug: 'gone' })]);
        await importContent(
          db,
          project.slug,
          { tags: [], articles: [articleInput({ slug: 'here' })] },
          { prune: true },
        );
        const gone = await db.kysely
          .selectFrom('removed_articles')
          .select('article_id')
          .where('project_id', '=', project.id)
          .executeTakeFirstOrThrow();
        await migrateToLatest(db);
        assert.ok(await projectNumber(db, project.id));
        const numbered = await db.kysely
          .selectFrom('article_nums')
          .select(['article_id', 'num'])
          .where('project_id', '=', project.id)
          .execute();
        assert.equal(numbered.length, 2);
        assert.ok(numbered.some((row) => row.article_id === gone.article_id));
        // The trigger numbers what comes next.
        await importArticles(db, project, [articleInput({ slug: 'next' })]);
        assert.equal((await numbersOf(db, project.id)).size, 2);
      } finally {
        await database.drop();
      }
    });
  });
}
