// A Folio folder or JSON file is checked whole, then read again batch by batch as it is written:
// what is written is what was checked, and a source changed in between writes nothing.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { importContent } from '../../src/content/import.ts';
import { openContentSource, readContentSource } from '../../src/content/import/read-source.ts';
import { ImportValidationError } from '../../src/content/import/records.ts';
import type { Db } from '../../src/db/database.ts';
import {
  createTestProject,
  describeEachDialect,
  makeContentFolder,
  removeContentFolders,
} from '../helpers.ts';

after(removeContentFolders);

const markdown = (i: number, body = `Body of post ${i}.`) =>
  `---\ntitle: Post ${i}\npublishedAt: 2026-01-01\ntags: [Tag ${i % 3}]\nauthor: { name: Ada }\n---\n${body}\n`;

/** A folder of `count` posts, `post-0000.md` …, and a JSON file of the same posts. */
async function sources(count: number): Promise<{ folder: string; json: string }> {
  const names = Array.from({ length: count }, (_, i) => `post-${String(i).padStart(4, '0')}`);
  const folder = await makeContentFolder(
    Object.fromEntries(names.map((name, i) => [`${name}.md`, markdown(i)])),
  );
  const root = await makeContentFolder({ 'content.json': jsonText(names) });
  return { folder, json: join(root, 'content.json') };
}

function jsonText(names: string[], content = (i: number) => `Body of post ${i}.\n`): string {
  const articles = names.map((slug, i) => ({
    slug,
    title: `Post ${i}`,
    publishedAt: '2026-01-01',
    tags: [`Tag ${i % 3}`],
    author: { name: 'Ada' },
    content: content(i),
  }));
  return JSON.stringify({ tags: [{ name: 'Tag 0', color: null, icon: null }], articles }, null, 2);
}

async function stored(db: Db, projectId: string): Promise<Array<{ slug: string; content: string }>> {
  return db.kysely
    .selectFrom('articles')
    .select(['slug', 'content'])
    .where('project_id', '=', projectId)
    .orderBy('slug')
    .execute();
}

describeEachDialect('streamed import', (context) => {
  test('a folder and a JSON file of 1,200 posts (three batches) are written as checked', async () => {
    const { folder, json } = await sources(1_200);
    for (const path of [folder, json]) {
      const { project } = await createTestProject(context.db);
      const source = await openContentSource(path);
      assert.ok('reread' in source, 'a Folio folder or JSON file is read again, not held');
      const summary = await importContent(context.db, project.slug, source);
      assert.equal(summary.created, 1_200);
      const rows = await stored(context.db, project.id);
      assert.equal(rows.length, 1_200);
      assert.equal(rows[1_100].content, 'Body of post 1100.\n');
      // The same articles as the source held in memory.
      const inMemory = await readContentSource(path);
      assert.deepEqual(
        rows.map((row) => row.content),
        inMemory.articles.map((article) => article.content),
      );
    }
  });

  test('a Markdown file edited after the check: the import fails naming it, and writes nothing', async () => {
    const { folder } = await sources(1_200);
    const { project } = await createTestProject(context.db);
    const source = await openContentSource(folder);
    writeFileSync(join(folder, 'post-1100.md'), markdown(1100, 'Edited meanwhile.'));
    await assert.rejects(importContent(context.db, project.slug, source), (error: unknown) => {
      assert.ok(error instanceof ImportValidationError);
      assert.deepEqual(error.problems, [
        {
          file: 'post-1100.md',
          line: 1,
          message: 'the source changed while it was imported (nothing was written): import it again',
        },
      ]);
      return true;
    });
    assert.equal((await stored(context.db, project.id)).length, 0);
  });

  test('a Markdown file removed after the check: the import fails, and writes nothing', async () => {
    const { folder } = await sources(3);
    const { project } = await createTestProject(context.db);
    const source = await openContentSource(folder);
    rmSync(join(folder, 'post-0002.md'));
    await assert.rejects(
      importContent(context.db, project.slug, source),
      /post-0002\.md:1: the source changed while it was imported/,
    );
    assert.equal((await stored(context.db, project.id)).length, 0);
  });

  test('a JSON file rewritten after the check (an article edited, or some removed): the import fails, and writes nothing', async () => {
    const names = Array.from({ length: 1_200 }, (_, i) => `post-${i}`);
    for (const rewritten of [
      jsonText(names, (i) => (i === 1_100 ? 'Edited meanwhile.\n' : `Body of post ${i}.\n`)),
      jsonText(names.slice(0, 1_000)),
    ]) {
      const root = await makeContentFolder({ 'content.json': jsonText(names) });
      const { project } = await createTestProject(context.db);
      const source = await openContentSource(join(root, 'content.json'));
      writeFileSync(join(root, 'content.json'), rewritten);
      await assert.rejects(
        importContent(context.db, project.slug, source),
        /content\.json#articles\[1000\]:1: the source changed while it was imported|content\.json#articles\[1100\]:1: the source changed while it was imported/,
      );
      assert.equal((await stored(context.db, project.id)).length, 0);
    }
  });

  test('a re-import reads again only the articles that changed: an unchanged file may go meanwhile', async () => {
    const { folder } = await sources(3);
    const { project } = await createTestProject(context.db);
    await importContent(context.db, project.slug, await openContentSource(folder));
    writeFileSync(join(folder, 'post-0001.md'), markdown(1, 'Changed.'));
    const source = await openContentSource(folder);
    // Its digest was taken; being unchanged, it is not read again.
    rmSync(join(folder, 'post-0002.md'));
    const summary = await importContent(context.db, project.slug, source);
    assert.deepEqual([summary.created, summary.updated, summary.unchanged], [0, 1, 2]);
    assert.deepEqual(
      (await stored(context.db, project.id)).map((row) => row.content),
      ['Body of post 0.\n', 'Changed.\n', 'Body of post 2.\n'],
    );
  });
});
