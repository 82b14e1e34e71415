import assert from 'node:assert/strict';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { announceDuePublications } from '../../src/content/announcements.ts';
import { reportedStatus } from '../../src/content/article-status.ts';
import { type ImportSummary, importContent, StorageLimitError } from '../../src/content/import.ts';
import { readContentSource } from '../../src/content/import/read-source.ts';
import {
  type ArticleInput,
  type ContentSource,
  ImportValidationError,
  type TagInput,
} from '../../src/content/import/records.ts';
import { summarize, textStats } from '../../src/content/text-stats.ts';
import type { Db } from '../../src/db/database.ts';
import { demoContentPath } from '../../src/demo.ts';
import {
  makeContentFolder,
  removeContentFolders,
  articleInput,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  setViewCount,
  viewCountOf,
} from '../helpers.ts';

/** What the helpers below need of a project. */
type ProjectRef = { id: string };

const T1 = new Date('2026-03-01T10:00:00.000Z');
const T2 = new Date('2026-03-02T11:30:00.000Z');
/** The publishedAt of test/helpers.ts's articleInput: without createdAt, the createdAt too. */
const PUBLISHED = '2026-01-01T00:00:00.000Z';
const T3 = new Date('2026-03-03T12:45:00.000Z');

after(removeContentFolders);

/** An article whose timestamps are left to the import, as in a file without them. */
function undated(overrides: Partial<ArticleInput> & { slug: string }): ArticleInput {
  return articleInput({ createdAt: null, updatedAt: null, ...overrides });
}

type Counts = Omit<ImportSummary, 'changes' | 'warnings' | 'warningsByKind' | 'settingsApplied'>;

function summary(counts: Partial<Counts> & { storageUsed: string }): Counts {
  return {
    created: 0,
    updated: 0,
    unchanged: 0,
    removed: 0,
    tagsCreated: 0,
    tagsUpdated: 0,
    tagsRemoved: 0,
    dryRun: false,
    ...counts,
  };
}

/** The summary without its lists of slugs, which the tests of --dry-run check on their own. */
function countsOf({
  changes: _changes,
  warnings: _warnings,
  warningsByKind: _byKind,
  settingsApplied: _applied,
  ...counts
}: ImportSummary): Counts {
  return counts;
}

async function articleRows(db: Db, project: ProjectRef) {
  return db.kysely
    .selectFrom('articles')
    .selectAll()
    .where('project_id', '=', project.id)
    .orderBy('slug')
    .execute();
}

/** The rows with their stored view counts. */
async function withViewCounts<T extends { project_id: string; slug: string }>(db: Db, rows: T[]) {
  return Promise.all(
    rows.map(async (row) => ({ ...row, view_count: await viewCountOf(db, row.project_id, row.slug) })),
  );
}

async function articleRow(db: Db, project: ProjectRef, slug: string) {
  return db.kysely
    .selectFrom('articles')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('slug', '=', slug)
    .executeTakeFirstOrThrow();
}

async function tagRows(db: Db, project: ProjectRef) {
  return db.kysely
    .selectFrom('tags')
    .selectAll()
    .where('project_id', '=', project.id)
    .orderBy('name_key')
    .execute();
}

async function tagNamesOf(db: Db, project: ProjectRef, slug: string): Promise<string[]> {
  const rows = await db.kysely
    .selectFrom('article_tags')
    .innerJoin('articles', 'articles.id', 'article_tags.article_id')
    .innerJoin('tags', 'tags.id', 'article_tags.tag_id')
    .select('tags.name')
    .where('articles.project_id', '=', project.id)
    .where('articles.slug', '=', slug)
    .orderBy('tags.name_key')
    .execute();
  return rows.map((row) => row.name);
}

/** Everything an import may write for a project, in a stable order. */
async function snapshot(db: Db, project: ProjectRef) {
  const links = await db.kysely
    .selectFrom('article_tags')
    .innerJoin('articles', 'articles.id', 'article_tags.article_id')
    .innerJoin('tags', 'tags.id', 'article_tags.tag_id')
    .select(['articles.slug', 'tags.name_key', 'article_tags.article_id', 'article_tags.tag_id'])
    .where('articles.project_id', '=', project.id)
    .orderBy('articles.slug')
    .orderBy('tags.name_key')
    .execute();
  const variants = await db.kysely
    .selectFrom('article_variants')
    .innerJoin('articles', 'articles.id', 'article_variants.article_id')
    .selectAll('article_variants')
    .select('articles.slug')
    .where('articles.project_id', '=', project.id)
    .orderBy('articles.slug')
    .orderBy('article_variants.key')
    .execute();
  return { articles: await articleRows(db, project), tags: await tagRows(db, project), links, variants };
}

async function setViews(db: Db, project: ProjectRef, views: Record<string, number>): Promise<void> {
  for (const [slug, count] of Object.entries(views)) {
    await setViewCount(db, project.id, slug, count);
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the import to fail');
}

function bytes(...texts: string[]): number {
  return texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
}

const threeArticles = (): ArticleInput[] => [
  undated({
    slug: 'alpha',
    title: 'Alpha',
    content: 'First body.',
    tags: ['News', 'Tech'],
    variants: [{ key: 'short', title: 'A', excerpt: null, content: 'Short.' }],
  }),
  undated({ slug: 'beta', title: 'Beta', content: 'Second body.', tags: ['Tech'] }),
  undated({ slug: 'gamma', title: 'Gamma', content: 'Third body.', status: 'draft', publishedAt: null }),
];
const threeArticlesBytes = bytes(
  'Alpha',
  'alpha',
  'First body.',
  'short',
  'A',
  'Short.',
  'Beta',
  'beta',
  'Second body.',
  'Gamma',
  'gamma',
  'Third body.',
);

describeEachDialect('importContent', (ctx) => {
  test('a first import creates every article and tag and reports exact counts', async () => {
    const { project } = await createTestProject(ctx.db);
    const result = await importArticles(ctx.db, project, threeArticles(), [], { now: T1 });
    assert.equal(threeArticlesBytes, 74);
    assert.deepEqual(countsOf(result), summary({ created: 3, tagsCreated: 2, storageUsed: '74 B' }));
    const rows = await withViewCounts(ctx.db, await articleRows(ctx.db, project));
    assert.deepEqual(
      rows.map((row) => [
        row.slug,
        row.title,
        row.status,
        row.created_at,
        row.updated_at,
        Number(row.view_count),
      ]),
      [
        // updatedAt without a source date: publishedAt, else createdAt (here the import time).
        ['alpha', 'Alpha', 'published', PUBLISHED, PUBLISHED, 0],
        ['beta', 'Beta', 'published', PUBLISHED, PUBLISHED, 0],
        ['gamma', 'Gamma', 'draft', T1.toISOString(), T1.toISOString(), 0],
      ],
    );
    assert.deepEqual(await tagNamesOf(ctx.db, project, 'alpha'), ['News', 'Tech']);
    assert.deepEqual(await tagNamesOf(ctx.db, project, 'beta'), ['Tech']);
    assert.deepEqual(await tagNamesOf(ctx.db, project, 'gamma'), []);
    assert.equal(new Set(rows.map((row) => row.id)).size, 3);
  });

  test('re-importing the same content changes nothing at all and reports every article unchanged', async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(
      ctx.db,
      project,
      threeArticles(),
      [{ name: 'News', color: '#112233', icon: 'news' }],
      {
        now: T1,
      },
    );
    await setViews(ctx.db, project, { alpha: 42, beta: 7 });
    const before = await snapshot(ctx.db, project);
    const result = await importArticles(
      ctx.db,
      project,
      threeArticles(),
      [{ name: 'News', color: '#112233', icon: 'news' }],
      { now: T2 },
    );
    assert.deepEqual(countsOf(result), summary({ unchanged: 3, storageUsed: '74 B' }));
    assert.deepEqual(await snapshot(ctx.db, project), before);
  });

  test('a re-import keeps id, createdAt (publishedAt, else the first import) and viewCount, and moves updatedAt only for changed articles', async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, threeArticles(), [], { now: T1 });
    await setViews(ctx.db, project, { alpha: 42, beta: 7, gamma: 1 });
    const before = await articleRows(ctx.db, project);

    const [alpha, beta, gamma] = threeArticles();
    const changed = [alpha, { ...beta, content: 'Second body, edited.' }, { ...gamma, tags: ['Tech'] }];
    const result = await importArticles(ctx.db, project, changed, [], { now: T2 });
    assert.deepEqual(
      countsOf(result),
      summary({ updated: 2, unchanged: 1, storageUsed: `${threeArticlesBytes + bytes(', edited')} B` }),
    );

    const after = await articleRows(ctx.db, project);
    assert.deepEqual(
      (await withViewCounts(ctx.db, after)).map((row) => [
        row.slug,
        row.id,
        row.created_at,
        row.updated_at,
        row.view_count,
      ]),
      [
        ['alpha', before[0].id, PUBLISHED, PUBLISHED, 42],
        ['beta', before[1].id, PUBLISHED, T2.toISOString(), 7],
        ['gamma', before[2].id, T1.toISOString(), T2.toISOString(), 1],
      ],
    );
    assert.equal(after[1].content, 'Second body, edited.');
    assert.deepEqual(await tagNamesOf(ctx.db, project, 'gamma'), ['Tech']);
    // The unchanged article's row is untouched, column for column.
    assert.deepEqual(after[0], before[0]);

    // A third import of the same content leaves the timestamps of the second.
    const again = await importArticles(ctx.db, project, changed, [], { now: T3 });
    assert.deepEqual([again.created, again.updated, again.unchanged], [0, 0, 3]);
    assert.deepEqual(
      (await articleRows(ctx.db, project)).map((row) => row.updated_at),
      [PUBLISHED, T2.toISOString(), T2.toISOString()],
    );
  });

  test('every stored field counts as a change: title, excerpt, cover, status, dates, author, tags, SEO, variants', async () => {
    const { project } = await createTestProject(ctx.db);
    const base = undated({ slug: 'post', content: 'Body.' });
    const edits: Partial<ArticleInput>[] = [
      { title: 'Another title' },
      { excerpt: 'An excerpt' },
      { coverImage: '/cover.png' },
      { status: 'archived' },
      { publishedAt: '2026-02-02T00:00:00.000Z' },
      { author: { name: 'Grace', image: null } },
      { lastUpdatedBy: { name: 'Linus', image: null } },
      { tags: ['Fresh'] },
      {
        seo: { metaTitle: 'Meta', metaDescription: null, ogImage: null, canonicalUrl: null, keywords: null },
      },
      { variants: [{ key: 'nl', title: null, excerpt: null, content: 'Kort.' }] },
    ];
    await importArticles(ctx.db, project, [base], [], { now: T1 });
    let previous = base;
    for (const [index, edit] of edits.entries()) {
      const now = new Date(T2.getTime() + index * 60_000);
      const next = { ...previous, ...edit };
      const result = await importArticles(ctx.db, project, [next], [], { now });
      assert.deepEqual([result.updated, result.unchanged], [1, 0], JSON.stringify(edit));
      assert.equal((await articleRow(ctx.db, project, 'post')).updated_at, now.toISOString());
      previous = next;
    }
  });

  test('moving a file without changing it leaves the article unchanged (articles match by slug)', async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [undated({ slug: 'post', file: 'post.md' })], [], { now: T1 });
    const before = await snapshot(ctx.db, project);
    const result = await importArticles(
      ctx.db,
      project,
      [undated({ slug: 'post', file: 'archive/2026/post.md' })],
      [],
      { now: T2 },
    );
    assert.deepEqual([result.created, result.updated, result.unchanged], [0, 0, 1]);
    assert.deepEqual(await snapshot(ctx.db, project), before);
  });

  test('createdAt and updatedAt from the front matter are stored as given', async () => {
    const { project } = await createTestProject(ctx.db);
    const post = articleInput({
      slug: 'post',
      createdAt: '2025-01-02T03:04:05.678Z',
      updatedAt: '2025-06-07T08:09:10.000Z',
    });
    await importArticles(ctx.db, project, [post], [], { now: T1 });
    let row = await articleRow(ctx.db, project, 'post');
    assert.deepEqual(
      [row.created_at, row.updated_at],
      ['2025-01-02T03:04:05.678Z', '2025-06-07T08:09:10.000Z'],
    );
    // Corrected dates in the front matter are applied on the next import.
    await importArticles(
      ctx.db,
      project,
      [{ ...post, createdAt: '2024-12-31T00:00:00.000Z', updatedAt: '2025-07-01T00:00:00.000Z' }],
      [],
      { now: T2 },
    );
    row = await articleRow(ctx.db, project, 'post');
    assert.deepEqual(
      [row.created_at, row.updated_at],
      ['2024-12-31T00:00:00.000Z', '2025-07-01T00:00:00.000Z'],
    );
  });

  test('a published article without publishedAt is published at its first import and keeps that date', async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [undated({ slug: 'post', publishedAt: null })], [], { now: T1 });
    assert.equal((await articleRow(ctx.db, project, 'post')).published_at, T1.toISOString());
    await importArticles(
      ctx.db,
      project,
      [undated({ slug: 'post', publishedAt: null, title: 'Edited' })],
      [],
      {
        now: T2,
      },
    );
    const row = await articleRow(ctx.db, project, 'post');
    assert.deepEqual(
      [row.title, row.published_at, row.updated_at],
      ['Edited', T1.toISOString(), T2.toISOString()],
    );
  });

  test('--prune removes the articles whose files are gone, and the tags left without articles that the source does not declare', async () => {
    const { project } = await createTestProject(ctx.db);
    const other = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, threeArticles(), [{ name: 'Unused', color: null, icon: null }], {
      now: T1,
    });
    await importArticles(ctx.db, other.project, threeArticles(), [], { now: T1 });
    const otherBefore = await snapshot(ctx.db, other.project);
    const tagsBefore = await tagRows(ctx.db, project);
    const alphaBefore = await articleRow(ctx.db, project, 'alpha');

    // Without --prune, missing files keep their articles.
    const kept = await importArticles(ctx.db, project, [threeArticles()[0]], [], { now: T2 });
    assert.deepEqual(countsOf(kept), summary({ unchanged: 1, storageUsed: '74 B' }));
    assert.equal((await articleRows(ctx.db, project)).length, 3);

    const pruned = await importArticles(
      ctx.db,
      project,
      [threeArticles()[0]],
      [{ name: 'Unused', color: null, icon: null }],
      { now: T2, prune: true },
    );
    assert.deepEqual(pruned.changes, {
      created: [],
      updated: [],
      removed: ['beta', 'gamma'],
      revised: [],
      tagsRemoved: [],
    });
    assert.deepEqual(
      countsOf(pruned),
      summary({
        unchanged: 1,
        removed: 2,
        storageUsed: `${bytes('Alpha', 'alpha', 'First body.', 'short', 'A', 'Short.')} B`,
      }),
    );
    const rows = await articleRows(ctx.db, project);
    assert.deepEqual(rows, [alphaBefore]);
    // Tags that articles still carry, or that the source declares (tags.yaml), stay; the links of removed articles go.
    assert.deepEqual(await tagRows(ctx.db, project), tagsBefore);
    const links = (await snapshot(ctx.db, project)).links;
    assert.deepEqual(
      links.map((link) => [link.slug, link.name_key]),
      [
        ['alpha', 'news'],
        ['alpha', 'tech'],
      ],
    );
    // Another project with the same slugs is untouched.
    assert.deepEqual(await snapshot(ctx.db, other.project), otherBefore);
    const orphans = await ctx.db.kysely
      .selectFrom('article_tags')
      .leftJoin('articles', 'articles.id', 'article_tags.article_id')
      .select('article_tags.article_id')
      .where('articles.id', 'is', null)
      .execute();
    assert.deepEqual(orphans, []);
  });

  test('--prune with an empty source removes every article of the project', async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, threeArticles(), [], { now: T1 });
    const result = await importArticles(ctx.db, project, [], [], { now: T2, prune: true });
    assert.deepEqual(countsOf(result), summary({ removed: 3, tagsRemoved: 2, storageUsed: '0 B' }));
    assert.deepEqual(result.changes.tagsRemoved, ['News', 'Tech']);
    assert.deepEqual(await articleRows(ctx.db, project), []);
    assert.deepEqual(await tagRows(ctx.db, project), []);
  });

  test('a dry run writes nothing and reports the same summary as the real import', async () => {
    const { project } = await createTestProject(ctx.db);
    const tags: TagInput[] = [{ name: 'News', color: '#123456', icon: null }];
    const dry = await importArticles(ctx.db, project, threeArticles(), tags, { now: T1, dryRun: true });
    assert.deepEqual(await snapshot(ctx.db, project), { articles: [], tags: [], links: [], variants: [] });
    const real = await importArticles(ctx.db, project, threeArticles(), tags, { now: T1 });
    assert.deepEqual(countsOf(real), summary({ created: 3, tagsCreated: 2, storageUsed: '74 B' }));
    assert.deepEqual(dry, { ...real, dryRun: true });
  });

  test('a dry run of updates, tag changes and --prune writes nothing and matches the real summary', async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, threeArticles(), [{ name: 'News', color: '#123456', icon: null }], {
      now: T1,
    });
    await setViews(ctx.db, project, { alpha: 3 });
    const before = await snapshot(ctx.db, project);
    const [alpha, beta] = threeArticles();
    const next = [alpha, { ...beta, title: 'Beta 2', tags: ['Brand new'] }, undated({ slug: 'delta' })];
    const nextTags: TagInput[] = [{ name: 'News', color: '#654321', icon: 'paper' }];
    const dry = await importArticles(ctx.db, project, next, nextTags, { now: T2, dryRun: true, prune: true });
    assert.deepEqual(await snapshot(ctx.db, project), before);
    const real = await importArticles(ctx.db, project, next, nextTags, { now: T2, prune: true });
    assert.deepEqual(dry, { ...real, dryRun: true });
    // alpha 33 B, the new beta 22 B, delta 33 B; gamma is pruned.
    assert.deepEqual(
      countsOf(real),
      summary({
        created: 1,
        updated: 1,
        unchanged: 1,
        removed: 1,
        tagsCreated: 1,
        tagsUpdated: 1,
        storageUsed: `${bytes('Alpha', 'alpha', 'First body.', 'short', 'A', 'Short.') + bytes('Beta 2', 'beta', 'Second body.') + bytes('Title of delta', 'delta', 'Body of delta.')} B`,
      }),
    );
    assert.equal(real.storageUsed, '88 B');
  });

  test('tags of tags.yaml get their color and icon; tags only in front matter get neither', async () => {
    const { project } = await createTestProject(ctx.db);
    const dir = await makeContentFolder({
      'tags.yaml': [
        '- name: Engineering',
        '  color: "#2563EB"',
        '  icon: rocket',
        '- name: Privacy',
        '  color: "#10B981"',
        '- name: Unused',
        '  icon: ghost',
        '',
      ].join('\n'),
      'one.md': '---\ntitle: One\ntags: [engineering, Post-mortem]\n---\nBody one.\n',
      'nested/two.md': '---\ntitle: Two\ntags:\n  - PRIVACY\n  - Post-mortem\n  - Ideas\n---\nBody two.\n',
    });
    const result = await importContent(ctx.db, project.slug, await readContentSource(dir), { now: T1 });
    assert.deepEqual([result.created, result.tagsCreated, result.tagsUpdated], [2, 5, 0]);
    const tags = await tagRows(ctx.db, project);
    assert.deepEqual(
      tags.map((tag) => [tag.name, tag.name_key, tag.color, tag.icon, tag.created_at, tag.updated_at]),
      [
        ['Engineering', 'engineering', '#2563EB', 'rocket', T1.toISOString(), T1.toISOString()],
        ['Ideas', 'ideas', null, null, T1.toISOString(), T1.toISOString()],
        ['Post-mortem', 'post-mortem', null, null, T1.toISOString(), T1.toISOString()],
        ['Privacy', 'privacy', '#10B981', null, T1.toISOString(), T1.toISOString()],
        ['Unused', 'unused', null, 'ghost', T1.toISOString(), T1.toISOString()],
      ],
    );
    // Names used in another case link to the one tag.
    assert.deepEqual(await tagNamesOf(ctx.db, project, 'one'), ['Engineering', 'Post-mortem']);
    assert.deepEqual(await tagNamesOf(ctx.db, project, 'two'), ['Ideas', 'Post-mortem', 'Privacy']);
  });

  test("a change of a tag's color, icon or spelling updates the tag and keeps its id and createdAt", async () => {
    const { project } = await createTestProject(ctx.db);
    const articles = [undated({ slug: 'post', tags: ['Alpha', 'Beta', 'gamma', 'Delta'] })];
    await importArticles(
      ctx.db,
      project,
      articles,
      [
        { name: 'Alpha', color: '#111111', icon: 'a' },
        { name: 'Beta', color: '#222222', icon: 'b' },
        { name: 'gamma', color: null, icon: null },
        { name: 'Delta', color: '#444444', icon: 'd' },
      ],
      { now: T1 },
    );
    const before = await tagRows(ctx.db, project);
    const result = await importArticles(
      ctx.db,
      project,
      articles,
      [
        { name: 'Alpha', color: '#AAAAAA', icon: 'a' },
        { name: 'Beta', color: '#222222', icon: 'bee' },
        { name: 'Gamma', color: null, icon: null },
        { name: 'Delta', color: '#444444', icon: 'd' },
      ],
      { now: T2 },
    );
    assert.deepEqual(countsOf(result), summary({ unchanged: 1, tagsUpdated: 3, storageUsed: '30 B' }));
    const after = await tagRows(ctx.db, project);
    assert.deepEqual(
      after.map((tag, i) => [
        tag.id === before[i].id,
        tag.name,
        tag.color,
        tag.icon,
        tag.created_at,
        tag.updated_at,
      ]),
      [
        [true, 'Alpha', '#AAAAAA', 'a', T1.toISOString(), T2.toISOString()],
        [true, 'Beta', '#222222', 'bee', T1.toISOString(), T2.toISOString()],
        [true, 'Delta', '#444444', 'd', T1.toISOString(), T1.toISOString()],
        [true, 'Gamma', null, null, T1.toISOString(), T2.toISOString()],
      ],
    );
    // Removing a color or icon is a change too.
    const cleared = await importArticles(
      ctx.db,
      project,
      articles,
      [{ name: 'Alpha', color: null, icon: null }],
      { now: T3 },
    );
    assert.equal(cleared.tagsUpdated, 1);
    const alpha = (await tagRows(ctx.db, project)).find((tag) => tag.name === 'Alpha')!;
    assert.deepEqual([alpha.color, alpha.icon, alpha.updated_at], [null, null, T3.toISOString()]);
  });

  test('a failing import (storage limit) writes nothing at all', async () => {
    const { project } = await createTestProject(ctx.db, { storageLimit: '100 B' });
    await importArticles(
      ctx.db,
      project,
      [undated({ slug: 'small', title: 'S', content: 'tiny', tags: ['Old'] })],
      [],
      {
        now: T1,
      },
    );
    const before = await snapshot(ctx.db, project);
    const error = await rejection(
      importArticles(
        ctx.db,
        project,
        [
          undated({ slug: 'small', title: 'S', content: 'changed', tags: ['New'] }),
          undated({ slug: 'large', title: 'L', content: 'x'.repeat(100), tags: ['Other'] }),
        ],
        [{ name: 'Old', color: '#000000', icon: 'changed' }],
        { now: T2, prune: true },
      ),
    );
    assert.ok(error instanceof StorageLimitError);
    assert.deepEqual(error.details, { storageUsed: '119 B', storageLimit: '100 B' });
    assert.deepEqual(await snapshot(ctx.db, project), before);
  });

  test('an import that fails half-way through is rolled back completely', async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, threeArticles(), [], { now: T1 });
    const before = await snapshot(ctx.db, project);
    // Two articles with one slug: the second insert violates the unique slug after the first was written.
    const error = await rejection(
      importArticles(
        ctx.db,
        project,
        [
          undated({ slug: 'alpha', content: 'changed', tags: ['Created first'] }),
          undated({ slug: 'twin', tags: ['Twin tag'] }),
          undated({ slug: 'twin', title: 'Twin again' }),
        ],
        [{ name: 'News', color: '#ABCDEF', icon: null }],
        { now: T2, prune: true },
      ),
    );
    assert.ok(error instanceof Error);
    assert.deepEqual(await snapshot(ctx.db, project), before);
  });

  test('an invalid file in the folder fails the import, names the file and line, and writes nothing', async () => {
    const { project } = await createTestProject(ctx.db);
    const dir = await makeContentFolder({
      'tags.yaml': '- name: Kept\n  color: "#010203"\n',
      'good.md': '---\ntitle: Good\ntags: [Kept]\n---\nFine.\n',
      'posts/bad.md': '---\ntitle: Bad\nstatus: live\n---\nBroken.\n',
    });
    await importArticles(ctx.db, project, [undated({ slug: 'existing' })], [], { now: T1 });
    const before = await snapshot(ctx.db, project);

    const error = await rejection(
      readContentSource(dir).then((source) =>
        importContent(ctx.db, project.slug, source, { now: T2, prune: true }),
      ),
    );
    assert.ok(error instanceof ImportValidationError);
    assert.deepEqual(
      error.problems.map((problem) => [problem.file, problem.line]),
      [['posts/bad.md', 3]],
    );
    assert.match(error.problems[0].message, /status/);
    assert.match(error.message, /^posts\/bad\.md:3: /);
    assert.deepEqual(await snapshot(ctx.db, project), before);

    // Once the file is fixed the same folder imports.
    await unlink(join(dir, 'posts', 'bad.md'));
    const result = await importContent(ctx.db, project.slug, await readContentSource(dir), { now: T2 });
    assert.deepEqual([result.created, result.tagsCreated], [1, 1]);
  });

  test('the default author is the project name with a null image; a given author is kept', async () => {
    const { project } = await createTestProject(ctx.db, { name: 'The Daily Folio' });
    const dir = await makeContentFolder({
      'anonymous.md': '---\ntitle: Anonymous\n---\nText.\n',
      'signed.md': '---\ntitle: Signed\nauthor:\n  name: Ada Lovelace\n  image: /ada.png\n---\nText.\n',
      'no-image.md': '---\ntitle: No image\nauthor:\n  name: Grace Hopper\n---\nText.\n',
    });
    await importContent(ctx.db, project.slug, await readContentSource(dir), { now: T1 });
    const rows = await articleRows(ctx.db, project);
    assert.deepEqual(
      rows.map((row) => [row.slug, row.author_name, row.author_image, row.last_updated_by_name]),
      [
        ['anonymous', 'The Daily Folio', null, null],
        ['no-image', 'Grace Hopper', null, null],
        ['signed', 'Ada Lovelace', '/ada.png', null],
      ],
    );
  });

  test('front matter defaults: slug from the file name, status from publishedAt, null excerpt and cover, createdAt and updatedAt from publishedAt, else import time', async () => {
    const { project } = await createTestProject(ctx.db);
    const dir = await makeContentFolder({
      'plain-draft.md': '---\ntitle: Plain\n---\nText.\n',
      'dated.md': '---\ntitle: Dated\npublishedAt: 2026-01-15T09:00:00Z\n---\nText.\n',
      'future.md': '---\ntitle: Future\npublishedAt: 2099-01-01\n---\nText.\n',
      'archived.md': '---\ntitle: Archived\nstatus: archived\npublishedAt: 2025-01-01\n---\nText.\n',
      'explicit.md': '---\ntitle: Explicit\nslug: other-slug\nstatus: published\n---\nText.\n',
      'draft-dated.md': '---\ntitle: Draft dated\nstatus: draft\npublishedAt: 2025-01-01\n---\nText.\n',
    });
    await importContent(ctx.db, project.slug, await readContentSource(dir), { now: T1 });
    const rows = await articleRows(ctx.db, project);
    const now = new Date().toISOString();
    assert.deepEqual(
      rows.map((row) => [
        row.slug,
        row.status,
        reportedStatus(row.status, row.published_at, now),
        row.published_at,
        row.excerpt,
        row.cover_image,
        row.created_at,
        row.updated_at,
      ]),
      [
        [
          'archived',
          'archived',
          'archived',
          '2025-01-01T00:00:00.000Z',
          null,
          null,
          '2025-01-01T00:00:00.000Z',
          '2025-01-01T00:00:00.000Z',
        ],
        [
          'dated',
          'published',
          'published',
          '2026-01-15T09:00:00.000Z',
          null,
          null,
          '2026-01-15T09:00:00.000Z',
          '2026-01-15T09:00:00.000Z',
        ],
        [
          'draft-dated',
          'draft',
          'draft',
          '2025-01-01T00:00:00.000Z',
          null,
          null,
          '2025-01-01T00:00:00.000Z',
          '2025-01-01T00:00:00.000Z',
        ],
        [
          'future',
          'published',
          'scheduled',
          '2099-01-01T00:00:00.000Z',
          null,
          null,
          '2099-01-01T00:00:00.000Z',
          '2099-01-01T00:00:00.000Z',
        ],
        [
          'other-slug',
          'published',
          'published',
          T1.toISOString(),
          null,
          null,
          T1.toISOString(),
          T1.toISOString(),
        ],
        ['plain-draft', 'draft', 'draft', null, null, null, T1.toISOString(), T1.toISOString()],
      ],
    );
  });

  test('word count, character count and reading time are stored as textStats computes them', async () => {
    const { project } = await createTestProject(ctx.db);
    const contents: [string, string | null][] = [
      ['', null],
      ['Just a few words here.', null],
      [
        '# Title\n\nSome *emphasis* and `code`, a [link](https://example.com).\n\n- one\n- two\n',
        '/cover.jpg',
      ],
      ['日本語のテキストと English words.\n\n한국어 문장.', null],
      [
        `${'word '.repeat(1000)}\n\n![a](/1.png) ![b](/2.png)\n\n\`\`\`\nconst x = 1;\n\`\`\`\n`,
        '/cover.png',
      ],
      ['![only](/image.png)', null],
      ["<div>html only</div>\n\n> quoted, don't split well-known words", null],
    ];
    const articles = contents.map(([content, coverImage], i) =>
      undated({ slug: `post-${i}`, content, coverImage }),
    );
    await importArticles(ctx.db, project, articles, [], { now: T1 });
    for (const article of articles) {
      const row = await articleRow(ctx.db, project, article.slug);
      const stats = textStats(article.content, { hasCoverImage: article.coverImage !== null });
      assert.deepEqual(
        [row.word_count, row.character_count, row.read_time_minutes, row.summary],
        [stats.wordCount, stats.characterCount, stats.readTimeMinutes, summarize(stats.plainText, 160)],
        article.slug,
      );
    }
    // A few values checked by hand against the contract's rules.
    const hand = async (slug: string) => {
      const row = await articleRow(ctx.db, project, slug);
      return [row.word_count, row.read_time_minutes];
    };
    assert.deepEqual(await hand('post-0'), [0, 0]);
    assert.deepEqual(await hand('post-1'), [5, 1]);
    // 1000 words and `const`, `x`, `1` of the code: 218.8 s; images 12 + 11 + 10 s: 251.8 s, 4 minutes.
    assert.deepEqual(await hand('post-4'), [1003, 4]);
    assert.deepEqual(await hand('post-5'), [0, 1]);
  });

  test('the JSON-file form imports exactly like the same content as a folder', async () => {
    const folderProject = await createTestProject(ctx.db, { name: 'Same name' });
    const jsonProject = await createTestProject(ctx.db, { name: 'Same name' });
    const folder = await makeContentFolder({
      'tags.yaml': '- name: Guides\n  color: "#ABCDEF"\n  icon: book\n',
      'posts/first-post.md': [
        '---',
        'title: First post',
        'excerpt: The first',
        'publishedAt: 2026-01-10T08:00:00Z',
        'tags: [Guides, Extra]',
        'seo:',
        '  metaTitle: First!',
        '  keywords: [one, two]',
        'variants:',
        '  - key: newsletter',
        '    title: First (newsletter)',
        '    content: Short version.',
        '---',
        '# Hello',
        '',
        'World with **bold**.',
        '',
      ].join('\n'),
      'second.md': '---\ntitle: Second\nstatus: archived\nauthor:\n  name: Ada\n---\nArchived text.\n',
    });
    const json = await makeContentFolder({
      'content.json': JSON.stringify({
        tags: [{ name: 'Guides', color: '#ABCDEF', icon: 'book' }],
        articles: [
          {
            slug: 'first-post',
            title: 'First post',
            excerpt: 'The first',
            publishedAt: '2026-01-10T08:00:00Z',
            tags: ['Guides', 'Extra'],
            seo: { metaTitle: 'First!', keywords: ['one', 'two'] },
            variants: [{ key: 'newsletter', title: 'First (newsletter)', content: 'Short version.' }],
            content: '# Hello\n\nWorld with **bold**.\n',
          },
          {
            slug: 'second',
            title: 'Second',
            status: 'archived',
            author: { name: 'Ada' },
            content: 'Archived text.\n',
          },
        ],
      }),
    });
    const fromFolder = await importContent(
      ctx.db,
      folderProject.project.slug,
      await readContentSource(folder),
      {
        now: T1,
      },
    );
    const fromJson = await importContent(
      ctx.db,
      jsonProject.project.slug,
      await readContentSource(join(json, 'content.json')),
      { now: T1 },
    );
    // The same summary, but that each warning names its own form's file.
    const withoutFiles = (summary: ImportSummary) => ({
      ...summary,
      warnings: summary.warnings.map(({ file: _file, ...warning }) => warning),
    });
    assert.deepEqual(withoutFiles(fromJson), withoutFiles(fromFolder));
    assert.deepEqual(
      [fromFolder.warnings[0].file, fromJson.warnings[0].file],
      ['posts/first-post.md', 'content.json#articles[0]'],
    );
    assert.deepEqual([fromJson.created, fromJson.tagsCreated], [2, 2]);

    const comparable = async (project: ProjectRef) => {
      const state = await snapshot(ctx.db, project);
      return {
        articles: state.articles.map(
          ({ id: _id, guid: _g, project_id: _p, search_rowid: _s, ...row }) => row,
        ),
        tags: state.tags.map(({ id: _id, project_id: _p, ...tag }) => tag),
        links: state.links.map((link) => [link.slug, link.name_key]),
        variants: state.variants.map(({ id: _id, article_id: _a, ...variant }) => variant),
      };
    };
    const expected = await comparable(folderProject.project);
    assert.deepEqual(await comparable(jsonProject.project), expected);
    assert.equal(expected.articles.length, 2);
    assert.equal(expected.articles[0].content, '# Hello\n\nWorld with **bold**.\n');
    assert.deepEqual(JSON.parse(expected.articles[0].seo!), {
      metaTitle: 'First!',
      metaDescription: null,
      ogImage: null,
      canonicalUrl: null,
      keywords: ['one', 'two'],
    });
    assert.deepEqual(expected.variants, [
      {
        key: 'newsletter',
        title: 'First (newsletter)',
        excerpt: null,
        content: 'Short version.',
        slug: 'first-post',
      },
    ]);

    // Re-importing the JSON form is idempotent too.
    const again = await importContent(
      ctx.db,
      jsonProject.project.slug,
      await readContentSource(join(json, 'content.json')),
      { now: T2 },
    );
    assert.deepEqual([again.created, again.updated, again.unchanged], [0, 0, 2]);
  });

  test('onProgress reports each article once, in order, with the total', async () => {
    const { project } = await createTestProject(ctx.db);
    const calls: [number, number][] = [];
    await importArticles(ctx.db, project, threeArticles(), [], {
      now: T1,
      onProgress: (done, total) => calls.push([done, total]),
    });
    assert.deepEqual(calls, [
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  test('the demo content of examples/content imports cleanly', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const source: ContentSource = await readContentSource(demoContentPath);
    const result = await importContent(ctx.db, project.slug, source, { now: T1 });
    const usedTags = new Set(
      source.articles.flatMap((article) => article.tags.map((name) => name.toLowerCase())),
    );
    assert.equal(usedTags.size, 9);
    assert.deepEqual([result.created, result.updated, result.unchanged, result.removed], [12, 0, 0, 0]);
    assert.deepEqual([result.tagsCreated, result.tagsUpdated], [9, 0]);

    const rows = await articleRows(ctx.db, project);
    assert.equal(rows.length, 12);
    const now = new Date().toISOString();
    const statuses: Record<string, number> = {};
    for (const row of rows) {
      const status = reportedStatus(row.status, row.published_at, now);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
    // The letter to future maintainers is scheduled for 2031-06-01 08:00 UTC.
    const letterScheduled = now < '2031-06-01T08:00:00.000Z';
    assert.deepEqual(statuses, {
      draft: 1,
      archived: 1,
      ...(letterScheduled ? { scheduled: 1, published: 9 } : { published: 10 }),
    });
    for (const [status, count] of Object.entries(statuses)) {
      const page = await getJson(ctx.app, `/v1/articles?status=${status}`, headers);
      assert.equal(page.body.meta.total, count, status);
    }
    assert.deepEqual(
      rows.filter((row) => row.status !== 'published').map((row) => [row.slug, row.status]),
      [
        ['database-migration-checklist', 'draft'],
        ['introducing-the-folio-v0-api', 'archived'],
      ],
    );
    const letter = rows.find((row) => row.slug === 'letter-to-our-future-maintainers')!;
    assert.deepEqual([letter.status, letter.published_at], ['published', '2031-06-01T08:00:00.000Z']);

    // Text statistics of every article, and the default author where none is given.
    for (const article of source.articles) {
      const row = rows.find((r) => r.slug === article.slug)!;
      const stats = textStats(article.content, { hasCoverImage: article.coverImage !== null });
      assert.deepEqual(
        [row.word_count, row.character_count, row.read_time_minutes],
        [stats.wordCount, stats.characterCount, stats.readTimeMinutes],
        article.slug,
      );
      assert.ok(stats.wordCount > 0, article.slug);
      assert.equal(row.author_name, article.author?.name ?? project.name, article.slug);
    }

    // Tags: the eight of tags.yaml (Internationalization without color or icon) and Post-mortem.
    const tags = await tagRows(ctx.db, project);
    assert.deepEqual(
      tags.map((tag) => [tag.name, tag.color, tag.icon]),
      [
        ['Analytics', '#8B5CF6', 'chart-line'],
        ['Databases', '#0EA5E9', 'database'],
        ['Engineering', '#2563EB', 'rocket'],
        ['Internationalization', null, null],
        ['Performance', '#F59E0B', 'gauge-high'],
        ['Post-mortem', null, null],
        ['Privacy', '#10B981', 'shield'],
        ['SEO', '#EC4899', 'magnifying-glass'],
        ['Writing', '#64748B', 'pen-nib'],
      ],
    );
    const tagList = await getJson(ctx.app, '/v1/tags', headers);
    for (const tag of tagList.body.data as { name: string; articleCount: number }[]) {
      const carrying = source.articles.filter((article) =>
        article.tags.some((name) => name.toLowerCase() === tag.name.toLowerCase()),
      ).length;
      assert.equal(tag.articleCount, carrying, tag.name);
    }
    assert.equal(
      tagList.body.data.find((tag: { name: string }) => tag.name === 'Engineering').articleCount,
      8,
    );

    // The project reports it, and a second import changes nothing.
    const info = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(info.body.data.stats.totalArticles, 12);
    assert.equal(info.body.data.stats.storageUsed, result.storageUsed);
    // Imported at T1, the articles published since then are due now: the app's scheduler announces
    // them whenever it next runs, which may be between the two snapshots. Announced first, they
    // leave it nothing to change.
    await ctx.db.kysely.transaction().execute((trx) => announceDuePublications(trx, new Date()));
    const before = await snapshot(ctx.db, project);
    const again = await importContent(ctx.db, project.slug, await readContentSource(demoContentPath), {
      now: T2,
    });
    assert.deepEqual(countsOf(again), summary({ unchanged: 12, storageUsed: result.storageUsed }));
    assert.deepEqual(await snapshot(ctx.db, project), before);
  });
});
