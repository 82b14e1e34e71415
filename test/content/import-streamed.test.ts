// A Folio folder or JSON file is checked whole (its articles spooled to disk), then read back batch
// by batch as it is written: what is written is what was checked, whatever happens to the source
// meanwhile.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { importContent } from '../../src/content/import.ts';
import { type StreamedSource, streamedFromMemory } from '../../src/content/import/digest.ts';
import { openContentSource, readContentSource } from '../../src/content/import/read-source.ts';
import type { ArticleInput } from '../../src/content/import/records.ts';
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

  test('a Markdown file edited or removed after the check: the import writes the articles as checked', async () => {
    const { folder } = await sources(1_200);
    const { project } = await createTestProject(context.db);
    const source = await openContentSource(folder);
    writeFileSync(join(folder, 'post-1100.md'), markdown(1100, 'Edited meanwhile.'));
    rmSync(join(folder, 'post-0002.md'));
    const summary = await importContent(context.db, project.slug, source);
    assert.equal(summary.created, 1_200);
    const rows = await stored(context.db, project.id);
    assert.equal(rows[2].content, 'Body of post 2.\n');
    assert.equal(rows[1_100].content, 'Body of post 1100.\n');
  });

  test('a JSON file rewritten after the check: the import writes the articles as checked', async () => {
    const names = Array.from({ length: 1_200 }, (_, i) => `post-${String(i).padStart(4, '0')}`);
    const root = await makeContentFolder({ 'content.json': jsonText(names) });
    const { project } = await createTestProject(context.db);
    const source = await openContentSource(join(root, 'content.json'));
    writeFileSync(
      join(root, 'content.json'),
      jsonText(names.slice(0, 1_000), () => 'Edited meanwhile.\n'),
    );
    const summary = await importContent(context.db, project.slug, source);
    assert.equal(summary.created, 1_200);
    const rows = await stored(context.db, project.id);
    assert.equal(rows[1_100].content, 'Body of post 1100.\n');
  });

  test('a source read again after the import wrote it (a second import of the same source object) gives the same articles', async () => {
    const { json } = await sources(3);
    const source = await openContentSource(json);
    for (let round = 0; round < 2; round++) {
      const { project } = await createTestProject(context.db);
      assert.equal((await importContent(context.db, project.slug, source)).created, 3);
      assert.deepEqual(
        (await stored(context.db, project.id)).map((row) => row.content),
        ['Body of post 0.\n', 'Body of post 1.\n', 'Body of post 2.\n'],
      );
    }
    if ('close' in source) source.close?.();
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

/** Articles whose rendering takes every path: images, a cover, code, tables, CJK, members-only teasers. */
function variedInputs(count: number): ArticleInput[] {
  const bodies = [
    '# Title\n\nSome *emphasis* and `code`.\n\n![alt](https://example.com/a.png)\n',
    'Intro for all.\n\n<!--members-only-->\n\nThe members part, with [a link](https://example.com).\n',
    '| a | b |\n|---|---|\n| 1 | 2 |\n\n```js\nconst x = 1;\n```\n',
    '读者 naïve café — it’s a well-known 中文 text.\n\n> quoted <script>alert(1)</script>\n',
    '',
  ];
  return Array.from({ length: count }, (_, i) =>
    articleInput({
      slug: `varied-${i}`,
      title: `Varied ${i}`,
      excerpt: i % 3 === 0 ? `Excerpt ${i}` : null,
      coverImage: i % 4 === 0 ? `https://example.com/cover-${i}.png` : null,
      visibility: i % 5 === 1 ? 'members' : 'public',
      tags: [`Tag ${i % 4}`],
      content: `${bodies[i % bodies.length]}\nParagraph ${i}.\n`,
    }),
  );
}

/** A source that fails while its articles are read back, after `failAfter` of them. */
function failingSource(articles: ArticleInput[], failAfter: number): StreamedSource {
  const source = streamedFromMemory({ tags: [], articles });
  return {
    ...source,
    async *reread(wanted) {
      for await (const item of source.reread(wanted)) {
        if (item.index >= failAfter) throw new Error('the source broke');
        yield item;
      }
    },
  };
}

async function renderedRows(db: Db, projectId: string) {
  return db.kysely
    .selectFrom('articles')
    .select([
      'slug',
      'html',
      'word_count',
      'character_count',
      'read_time_minutes',
      'summary',
      'search_text',
      'content_hash',
      'storage_bytes',
    ])
    .where('project_id', '=', projectId)
    .orderBy('slug')
    .execute();
}

describeEachDialect('import rendering', (context) => {
  test('articles rendered in a thread of their own are stored exactly as those rendered in place', async () => {
    const articles = variedInputs(260);
    const inThread = await createTestProject(context.db);
    const inPlace = await createTestProject(context.db);
    await importArticles(context.db, inThread.project, articles, [], { renderInThread: true });
    await importArticles(context.db, inPlace.project, articles, [], { renderInThread: false });
    const threadRows = await renderedRows(context.db, inThread.project.id);
    assert.equal(threadRows.length, 260);
    assert.deepEqual(threadRows, await renderedRows(context.db, inPlace.project.id));
    // Rendered indeed: the members' part is not searchable, the script is gone.
    const members = threadRows.find((row) => row.slug === 'varied-1')!;
    assert.ok(!members.search_text.includes('members part'));
    assert.ok(threadRows.every((row) => !row.html?.includes('<script')));
  });

  for (const renderInThread of [false, true]) {
    test(`a source failing in the middle of its writes (past the first batch) leaves nothing (${renderInThread ? 'rendered in a thread' : 'rendered in place'})`, async () => {
      const { project } = await createTestProject(context.db);
      await assert.rejects(
        importContent(context.db, project.slug, failingSource(variedInputs(1_200), 1_100), {
          renderInThread,
        }),
        /the source broke/,
      );
      for (const table of ['articles', 'tags', 'article_sets'] as const) {
        const { count } = await context.db.kysely
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('count'))
          .where('project_id', '=', project.id)
          .executeTakeFirstOrThrow();
        assert.equal(Number(count), 0, table);
      }
    });
  }
});
