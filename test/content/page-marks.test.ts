// Deep pages of a list without search are found from marks (page-marks.ts): a seek from the
// nearest kept mark, then a short walk. Every page must be the page the walk from the list's start
// finds, in every marked sort and direction, with status and tag filters, after a content change, and
// once a scheduled article has come due (which changes a status filter's list without a content
// change).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Run } from '../../src/content/article-matches.ts';
import { readArticlePage } from '../../src/content/article-page.ts';
import type { ArticleFilter, ArticleOrder } from '../../src/content/article-queries.ts';
import type { ArticleInput } from '../../src/content/import/records.ts';
import type { Db } from '../../src/db/database.ts';
import type { ProjectTable } from '../../src/db/schema.ts';
import { type Selectable, sql } from 'kysely';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  describeEachDialect,
  importArticles,
  migrateBefore,
} from '../helpers.ts';
import { recordingRun } from './search-support.ts';

const count = 90;
const limit = 4;
/** Marks every 10 articles, so that 90 articles have several. */
const step = 10;
const hour = 3_600_000;

function articles(now: number): ArticleInput[] {
  return Array.from({ length: count }, (_, i) => {
    const draft = i % 7 === 3;
    // Two articles due within the hour: published in two hours' time they are not, yet.
    const scheduled = i === 1 || i === 2;
    return articleInput({
      slug: `m-${String(i).padStart(2, '0')}`,
      title: `${['Pear', 'apple', 'Fig'][i % 3]} ${(i * 31) % count}`,
      content: `text ${i}`,
      status: draft ? 'draft' : 'published',
      publishedAt: draft ? null : new Date(scheduled ? now + hour : now - (i + 1) * hour).toISOString(),
      createdAt: new Date(Date.UTC(2026, 0, 1) + i * hour).toISOString(),
      // Some equal: ties are broken by id.
      updatedAt: new Date(Date.UTC(2026, 2, 1) + ((i * 17) % 30) * hour).toISOString(),
      tags: ['Red', 'Green', 'Blue'].filter((_, t) => (i >> t) % 2 === 1),
    });
  });
}

/**
 * Reads each of `pages` pages by the walk from the start and from the marks kept every `markStep`
 * articles, and asserts that both give the same page and total; returns how many pages were found
 * by a seek from a mark (a row comparison among the statements run).
 */
async function pagesAgree(
  read: (page: number, markStep: number) => Promise<{ total: number; rows: Array<{ slug: string }> }>,
  pages: number,
  markStep: number,
  statements: string[],
  label: string,
): Promise<number> {
  let seeks = 0;
  for (let page = 1; page <= pages; page++) {
    const walked = await read(page, Infinity);
    statements.length = 0;
    const marked = await read(page, markStep);
    assert.equal(marked.total, walked.total, label);
    assert.deepEqual(
      marked.rows.map((row) => row.slug),
      walked.rows.map((row) => row.slug),
      `${label} page ${page}`,
    );
    if (statements.some((text) => /\) [<>] \(/.test(text))) seeks++;
  }
  return seeks;
}

/** Page `page` of a project's plain list (no search), with marks every `markStep` articles. */
function readListPage(
  db: Db,
  project: Selectable<ProjectTable>,
  run: Run,
  filter: Omit<ArticleFilter, 'projectId' | 'searchTerms'>,
  order: ArticleOrder,
  page: number,
  markStep: number,
) {
  return readArticlePage(
    db,
    {
      filter: { projectId: project.id, searchTerms: [], ...filter },
      order,
      page: { offset: (page - 1) * limit, limit },
      columns: { content: false, html: false },
      project,
    },
    run,
    false,
    undefined,
    markStep,
  );
}

/** A project's tag by name. */
const tagNamed = (db: Db, projectId: string, name: string) =>
  db.kysely
    .selectFrom('tags')
    .select('id')
    .where('project_id', '=', projectId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();

/** A project's row as a page read takes it, read again at each call. */
const projectRow = (db: Db, id: string) => () =>
  db.kysely.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Runs the statements of page reads in the read thread, counting those that find marks. */
function countingMarks(db: Db): { run: Run; found: () => number } {
  let found = 0;
  const run: Run = async (compiled) => {
    if (compiled.sql.startsWith('with recursive')) found++;
    return (await db.readOffThread(compiled)) as never;
  };
  return { run, found: () => found };
}

describeEachDialect('list pages found from marks', (ctx) => {
  /** A new project holding `articles(now)`, with its row as a page read takes it. */
  async function projectWithArticles() {
    const { project: created } = await createTestProject(ctx.db);
    const now = Date.now();
    await importArticles(ctx.db, created, articles(now));
    const project = await ctx.db.kysely
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    return { now, project };
  }

  test('list: a deep page found from the marks is the page of the walk from the start, in every marked sort, both ways, with status filters', async () => {
    const { now, project } = await projectWithArticles();
    const { run, statements } = recordingRun(ctx.db, { offThread: true });
    const read = (order: ArticleOrder, status: ArticleFilter['status'], page: number, markStep: number) =>
      readListPage(
        ctx.db,
        project,
        run,
        { now: new Date(now).toISOString(), status, anyTagIds: null, allTagIds: null, excludeTagIds: [] },
        order,
        page,
        markStep,
      );
    const sorts: ArticleOrder[] = [
      { sort: 'createdAt', order: 'desc' },
      { sort: 'createdAt', order: 'asc' },
      { sort: 'updatedAt', order: 'desc' },
      { sort: 'title', order: 'asc' },
    ];
    let seeks = 0;
    for (const order of sorts) {
      for (const status of [undefined, 'published', 'draft'] as const) {
        const label = JSON.stringify({ ...order, status });
        // Read twice: the first read finds and keeps the marks, the second seeks from them.
        for (const pass of [1, 2]) {
          const reference = await read(order, status, 1, Infinity);
          const pages = Math.ceil(reference.total / limit);
          seeks += await pagesAgree(
            (page, markStep) => read(order, status, page, markStep),
            pages,
            step,
            statements,
            `${label}, pass ${pass}`,
          );
        }
      }
    }
    assert.ok(seeks > 0, 'some pages were found by a seek from a mark');
  });

  test('list: a deep page of a tag filter found from the marks is the page of the walk from the start', async () => {
    const { now, project } = await projectWithArticles();
    const tags = new Map(
      (
        await ctx.db.kysely
          .selectFrom('tags')
          .select(['id', 'name'])
          .where('project_id', '=', project.id)
          .execute()
      ).map((tag) => [tag.name, tag.id]),
    );
    const recording = recordingRun(ctx.db, { offThread: true });
    const { statements } = recording;
    // The statements that find marks: a filtered list's walk looks each article up among the
    // matches by its ordinal, never probing its tags (100 ms against 8 ms at 100,000 articles).
    const marksStatements: string[] = [];
    const run: Run = (compiled) => {
      if (compiled.sql.startsWith('with recursive')) marksStatements.push(compiled.sql);
      return recording.run(compiled);
    };
    const filters: Array<Pick<ArticleFilter, 'anyTagIds' | 'allTagIds' | 'excludeTagIds' | 'status'>> = [
      { anyTagIds: [tags.get('Red')!], allTagIds: null, excludeTagIds: [] },
      {
        anyTagIds: [tags.get('Red')!, tags.get('Blue')!],
        allTagIds: null,
        excludeTagIds: [],
        status: 'published',
      },
      { anyTagIds: null, allTagIds: [tags.get('Green')!, tags.get('Blue')!], excludeTagIds: [] },
      { anyTagIds: null, allTagIds: null, excludeTagIds: [tags.get('Green')!] },
    ];
    const read = (tagFilter: (typeof filters)[number], order: ArticleOrder, page: number, markStep: number) =>
      readListPage(
        ctx.db,
        project,
        run,
        { now: new Date(now).toISOString(), ...tagFilter },
        order,
        page,
        markStep,
      );
    let seeks = 0;
    for (const tagFilter of filters) {
      for (const order of [
        { sort: 'createdAt', order: 'desc' },
        { sort: 'title', order: 'asc' },
      ] as const) {
        const label = JSON.stringify({ ...order, ...tagFilter });
        const reference = await read(tagFilter, order, 1, Infinity);
        const pages = Math.ceil(reference.total / limit);
        // Small marks (every 3 articles): tag filters leave few.
        for (const pass of [1, 2])
          seeks += await pagesAgree(
            (page, markStep) => read(tagFilter, order, page, markStep),
            pages,
            3,
            statements,
            `${label}, pass ${pass}`,
          );
      }
    }
    assert.ok(seeks > 0, 'some pages were found by a seek from a mark');
    assert.ok(marksStatements.length > 0, 'no marks were found');
    for (const text of marksStatements) assert.doesNotMatch(text, /article_tags/);
  });

  test('list: marks are found again after a content change, and for a status filter once a scheduled article has come due', async () => {
    const p = await createTestProject(ctx.db);
    const now = Date.now();
    const inputs = articles(now);
    await importArticles(ctx.db, p.project, inputs);
    const current = projectRow(ctx.db, p.project.id);
    const { run, found: marksFound } = countingMarks(ctx.db);
    let stale: Awaited<ReturnType<typeof current>> | null = null;
    const read = async (status: ArticleFilter['status'], at: number, page: number, markStep: number) =>
      (
        await readListPage(
          ctx.db,
          stale ?? (await current()),
          run,
          {
            now: new Date(at).toISOString(),
            status,
            anyTagIds: null,
            allTagIds: null,
            excludeTagIds: [],
          },
          // Oldest first: the articles due soon (created second and third) come before every mark.
          { sort: 'createdAt', order: 'asc' },
          page,
          markStep,
        )
      ).rows.map((row) => row.slug);
    // Page 5 starts at offset 16, past the first mark (offset 9).
    const page = 5;
    const before = await read('published', now, page, step);
    assert.deepEqual(before, await read('published', now, page, Infinity));
    // Two hours later the two scheduled articles are published: the page moves by two.
    const later = now + 2 * hour;
    const due = await read('published', later, page, step);
    assert.deepEqual(due, await read('published', later, page, Infinity));
    assert.notDeepEqual(due, before);
    // Without a status filter, then after a new article created first (the content changes).
    const all = await read(undefined, now, page, step);
    assert.deepEqual(all, await read(undefined, now, page, Infinity));
    await importArticles(ctx.db, p.project, [
      ...inputs,
      articleInput({ slug: 'm-first', createdAt: '2025-06-01T00:00:00.000Z' }),
    ]);
    const changed = await read(undefined, now, page, step);
    assert.deepEqual(changed, await read(undefined, now, page, Infinity));
    // One article more before the page: it starts one article earlier.
    assert.deepEqual(changed.slice(1), all.slice(0, limit - 1));
    // A request that read the project before that change: its answer is found from the old
    // content's version without replacing the marks kept for the new one.
    stale = { ...(await current()), content_version: (await current()).content_version - 1 };
    assert.deepEqual(await read(undefined, now, page, step), changed);
    stale = null;
    const found = marksFound();
    assert.deepEqual(await read(undefined, now, page, step), changed);
    assert.equal(marksFound(), found, 'the marks kept for the new content are used');
  });
});

describeEachDialect('list marks across writes', (ctx) => {
  // An edit of an article's text (a PATCH, or an import changing texts alone) moves no article in
  // or along a list sorted by createdAt or title, nor in or out of a status or tag filter: the
  // marks of those lists are kept (the project's order version stays), those sorted by updatedAt
  // are found again. Every other kind of write can move one, and each makes them found again; the
  // pages stay those of the walk throughout.
  test('list: marks are kept across edits of texts (PATCH, import) and found again after each write that can move an article', async () => {
    const project = await createTestProject(ctx.db, { scopes: ['read', 'write'] });
    const now = Date.now();
    const inputs = articles(now);
    await importArticles(ctx.db, project.project, inputs);
    const red = await tagNamed(ctx.db, project.project.id, 'Red');
    const current = projectRow(ctx.db, project.project.id);
    const { run, found: marksFound } = countingMarks(ctx.db);
    const lists: Array<{ name: string; filter: Partial<ArticleFilter>; order: ArticleOrder }> = [
      { name: 'newest', filter: {}, order: { sort: 'createdAt', order: 'desc' } },
      { name: 'published by title', filter: { status: 'published' }, order: { sort: 'title', order: 'asc' } },
      { name: 'Red, oldest', filter: { anyTagIds: [red.id] }, order: { sort: 'createdAt', order: 'asc' } },
      { name: 'updated', filter: {}, order: { sort: 'updatedAt', order: 'desc' } },
    ];
    // Page 5 starts at offset 16, past the first mark (offset 9): found from it.
    const page = 5;
    const read = async (list: (typeof lists)[number], markStep: number) =>
      (
        await readListPage(
          ctx.db,
          await current(),
          run,
          {
            now: new Date(now).toISOString(),
            anyTagIds: null,
            allTagIds: null,
            excludeTagIds: [],
            ...list.filter,
          },
          list.order,
          page,
          markStep,
        )
      ).rows.map((row) => row.slug);
    /** Reads every list's page from its marks: the lists whose marks were found again. */
    const readAll = async (label: string) => {
      const found: string[] = [];
      for (const list of lists) {
        const walked = await read(list, Infinity);
        const before = marksFound();
        assert.deepEqual(await read(list, step), walked, `${label}: ${list.name}`);
        if (marksFound() > before) found.push(list.name);
        // Found once, then kept.
        const again = marksFound();
        assert.deepEqual(await read(list, step), walked, `${label}: ${list.name}, again`);
        assert.equal(marksFound(), again, `${label}: ${list.name}, again`);
      }
      return found;
    };
    const write = async (method: string, url: string, body?: unknown) => {
      // A change of a stored article names the version it replaces.
      const stored =
        method === 'POST'
          ? undefined
          : await ctx.db.kysely
              .selectFrom('articles')
              .select('version')
              .where('project_id', '=', project.project.id)
              .where('slug', '=', url.split('/').at(-1)!)
              .executeTakeFirstOrThrow();
      const etag = stored === undefined ? undefined : `"${stored.version}"`;
      const response = await ctx.app.inject({
        method,
        url,
        headers: {
          'x-api-key': project.headers['x-api-key'],
          ...(body === undefined
            ? {}
            : { 'content-type': method === 'POST' ? 'application/json' : 'application/merge-patch+json' }),
          ...(etag === undefined ? {} : { 'if-match': etag }),
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      assert.ok(response.statusCode < 300, `${method} ${url}: ${response.body}`);
    };
    const everyList = lists.map((list) => list.name);
    assert.deepEqual(await readAll('first read'), everyList);

    const versions = await current();
    await write('PATCH', '/v1/articles/m-12', { content: 'another text', excerpt: 'another excerpt' });
    const edited = await current();
    assert.equal(Number(edited.content_version), Number(versions.content_version) + 1);
    assert.equal(Number(edited.order_version), Number(versions.order_version));
    assert.deepEqual(await readAll('text edited'), ['updated']);
    // An import that changes texts alone (m-12's back, m-13's) keeps them too.
    const texts = inputs.map((input) =>
      input.slug === 'm-13' ? { ...input, content: 'a new text', excerpt: 'a new excerpt' } : input,
    );
    await importArticles(ctx.db, project.project, texts);
    const imported = await current();
    assert.equal(Number(imported.content_version), Number(edited.content_version) + 1);
    assert.equal(Number(imported.order_version), Number(versions.order_version));
    assert.deepEqual(await readAll('texts imported'), ['updated']);

    // An import that changes a title moves it.
    await importArticles(
      ctx.db,
      project.project,
      texts.map((input) => (input.slug === 'm-21' ? { ...input, title: 'Aardvark imported' } : input)),
    );
    const renamed = await current();
    assert.equal(Number(renamed.order_version), Number(renamed.content_version));
    assert.deepEqual(await readAll('title imported'), everyList);

    const moves: Array<[label: string, method: string, url: string, body?: unknown]> = [
      ['title', 'PATCH', '/v1/articles/m-20', { title: 'Aardvark first' }],
      ['status', 'PATCH', '/v1/articles/m-05', { status: 'draft' }],
      ['publishedAt', 'PATCH', '/v1/articles/m-06', { publishedAt: new Date(now + 5 * hour).toISOString() }],
      ['createdAt', 'PATCH', '/v1/articles/m-30', { createdAt: '2025-01-01T00:00:00.000Z' }],
      ['tags', 'PATCH', '/v1/articles/m-09', { tags: ['Green'] }],
      [
        'created',
        'POST',
        '/v1/articles',
        { slug: 'm-new', title: 'Aardvark too', content: 'new', status: 'published', tags: ['Red'] },
      ],
      ['deleted', 'DELETE', '/v1/articles/m-11'],
    ];
    for (const [label, method, url, body] of moves) {
      await write(method, url, body);
      const after = await current();
      assert.equal(Number(after.order_version), Number(after.content_version), label);
      assert.deepEqual(await readAll(label), everyList, label);
    }
  });

  // A filtered list's deep page more than idsFirstFrom (50) articles past its mark: its ids are
  // found by a walk from the mark that looks each article up among the matches by its ordinal,
  // kept only when the project's version in that statement is still the one the matches were read
  // at. A change committed between the two is caught: the page is then walked, checking each
  // article, and is the page of the list as it is after the change.
  test('list: a filtered deep page far past its mark is found among the matches, and walked again when the list changed meanwhile', async () => {
    const project = await createTestProject(ctx.db, { scopes: ['read', 'write'] });
    const now = Date.now();
    const inputs = Array.from({ length: 600 }, (_, i) =>
      articleInput({
        slug: `f-${String(i).padStart(3, '0')}`,
        status: i % 5 === 4 ? 'draft' : 'published',
        publishedAt: i % 5 === 4 ? null : new Date(now - (i + 1) * hour).toISOString(),
        createdAt: new Date(Date.UTC(2026, 0, 1) + i * hour).toISOString(),
        tags: i % 2 === 0 ? ['Red'] : ['Green'],
      }),
    );
    await importArticles(ctx.db, project.project, inputs);
    const red = await tagNamed(ctx.db, project.project.id, 'Red');
    const current = projectRow(ctx.db, project.project.id);
    // A change made from the statement runner, just before the next statement of this kind.
    let beforeFlagged: (() => Promise<void>) | null = null;
    let beforeMarks: (() => Promise<void>) | null = null;
    let flagged = 0;
    const run: Run = async (compiled) => {
      const marks = compiled.sql.startsWith('with recursive');
      const page = !marks && /get_bit\(|substr\(/.test(compiled.sql);
      if (page) flagged++;
      const change = marks ? beforeMarks : page ? beforeFlagged : null;
      if (marks) beforeMarks = null;
      if (page) beforeFlagged = null;
      await change?.();
      return (await ctx.db.readOffThread(compiled)) as never;
    };
    const unpublish = (slug: string) => async () => {
      const stored = await ctx.db.kysely
        .selectFrom('articles')
        .select('version')
        .where('project_id', '=', project.project.id)
        .where('slug', '=', slug)
        .executeTakeFirstOrThrow();
      const response = await ctx.app.inject({
        method: 'PATCH',
        url: `/v1/articles/${slug}`,
        headers: {
          'x-api-key': project.headers['x-api-key'],
          'content-type': 'application/merge-patch+json',
          'if-match': `"${stored.version}"`,
        },
        payload: JSON.stringify({ status: 'draft' }),
      });
      assert.equal(response.statusCode, 200, response.body);
    };
    const markStep = 60;
    const read = async (page: number, step: number, order: 'asc' | 'desc' = 'asc') =>
      (
        await readListPage(
          ctx.db,
          await current(),
          run,
          {
            now: new Date(now).toISOString(),
            status: 'published',
            anyTagIds: [red.id],
            allTagIds: null,
            excludeTagIds: [],
          },
          { sort: 'createdAt', order },
          page,
          step,
        )
      ).rows.map((row) => row.slug);
    // 240 published Red articles, 60 pages of 4: pages 29 and 30 start 52 and 56 past the mark at 60,
    // 44 and 45 past the one at 120 (later pages are read from the list's end).
    for (let page = 1; page <= 61; page++)
      assert.deepEqual(await read(page, markStep), await read(page, Infinity), `page ${page}`);
    assert.ok(flagged > 0, 'no page was found among the matches');

    // An article of page 29 is unpublished after the matches were read: the matches still hold it,
    // and a published list must not show it. The version in the page's statement has moved, so the
    // page is walked from the mark, each article checked by itself.
    const before = await read(29, Infinity);
    const unpublished = before[1];
    beforeFlagged = unpublish(unpublished);
    const seen = flagged;
    const changed = await read(29, markStep);
    assert.equal(flagged, seen + 1, 'the page was not looked for among the matches');
    assert.equal(beforeFlagged, null, 'the change was not made');
    assert.ok(
      !changed.includes(unpublished),
      `${unpublished}, now a draft, is on a page of published articles`,
    );
    assert.deepEqual(changed, await read(29, Infinity));

    // The newest first, whose marks were never found: an article before page 29 is unpublished
    // after the matches were read, before the marks are. The marks found from those matches are not
    // kept (the version moved), and the page is the list's after the change: one article later.
    const newestBefore = await read(29, Infinity, 'desc');
    beforeMarks = unpublish('f-598');
    const newest = await read(29, markStep, 'desc');
    assert.equal(beforeMarks, null, 'no marks were found');
    assert.deepEqual(newest, await read(29, Infinity, 'desc'));
    assert.deepEqual(newest.slice(0, 3), newestBefore.slice(1));
  });
});

for (const dialect of configuredDialects()) {
  test(`migration 0037 [${dialect}]: a project's order version starts at its content version, added or lent`, async () => {
    for (const lend of [false, true]) {
      const { db, drop } = await createTestDatabase(dialect, { migrate: false });
      try {
        await migrateBefore(db, '0037', { lend });
        const { project } = await createTestProject(db);
        await sql`update projects set content_version = 7 where id = ${project.id}`.execute(db.kysely);
        assert.equal((await migrateToLatest(db))[0], '0037-order-version');
        const row = await db.kysely
          .selectFrom('projects')
          .select(['content_version', 'order_version'])
          .where('id', '=', project.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual([Number(row.content_version), Number(row.order_version)], [7, 7], `lent: ${lend}`);
      } finally {
        await drop();
      }
    }
  });
}
