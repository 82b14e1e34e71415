// When an article was last modified, as the API, the sitemap and JSON-LD say: the source's own
// date, else the publication (or creation) date, never the time of the first import; a re-import
// moves it only when the content changed.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { readContentSource } from '../../src/content/import/read-source.ts';
import type { ArticleInput } from '../../src/content/import/records.ts';
import { importContent } from '../../src/content/import.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  makeContentFolder,
  removeContentFolders,
} from '../helpers.ts';

after(removeContentFolders);

const firstImport = new Date('2026-11-25T12:00:00.000Z');
const secondImport = new Date('2026-11-26T12:00:00.000Z');
const published = '2024-02-11T12:00:00.000Z';
const dateFields = encodeURIComponent(JSON.stringify({ createdAt: true, updatedAt: true }));

describeEachDialect('updatedAt of imported articles', (ctx) => {
  async function datesOf(headers: Record<string, string>, slug: string) {
    const article = await getJson(ctx.app, `/v1/articles/${slug}?select=${dateFields}`, headers);
    assert.equal(article.status, 200, slug);
    const seo = await getJson(ctx.app, `/v1/seo/article/${slug}`, headers);
    const sitemap = await getJson(ctx.app, '/v1/seo/sitemap?format=json', headers);
    const entry = sitemap.body.data.urls.find((url: { loc: string }) => url.loc.endsWith(`/${slug}`));
    return {
      createdAt: article.body.data.createdAt,
      updatedAt: article.body.data.updatedAt,
      dateModified: seo.body.data.seo.structuredData.dateModified,
      lastmod: entry?.lastmod,
    };
  }

  const undated = (overrides: Partial<ArticleInput> & { slug: string }) =>
    articleInput({ publishedAt: published, createdAt: null, updatedAt: null, ...overrides });

  test('without a source date it is publishedAt, not the time of the import; sitemap and JSON-LD say the same', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, project, [undated({ slug: 'old-post' })], [], { now: firstImport });
    assert.deepEqual(await datesOf(headers, 'old-post'), {
      createdAt: published,
      updatedAt: published,
      dateModified: published,
      lastmod: published,
    });
  });

  test('a draft without dates has the creation date, which is its first import', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(
      ctx.db,
      project,
      [undated({ slug: 'draft', status: 'draft', publishedAt: null })],
      [],
      { now: firstImport },
    );
    const { body } = await getJson(ctx.app, `/v1/articles/draft?select=${dateFields}`, headers);
    assert.deepEqual(
      [body.data.createdAt, body.data.updatedAt],
      [firstImport.toISOString(), firstImport.toISOString()],
    );
  });

  test('an unchanged re-import keeps it; a changed one moves it to the import time, or to the source date', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    const post = undated({ slug: 'post' });
    await importArticles(ctx.db, project, [post], [], { now: firstImport });
    await importArticles(ctx.db, project, [post], [], { now: secondImport });
    assert.equal((await datesOf(headers, 'post')).updatedAt, published);

    const edited = { ...post, content: 'An edited body.' };
    await importArticles(ctx.db, project, [edited], [], { now: secondImport });
    const moved = secondImport.toISOString();
    assert.deepEqual(await datesOf(headers, 'post'), {
      createdAt: published,
      updatedAt: moved,
      dateModified: moved,
      lastmod: moved,
    });

    const dated = { ...edited, content: 'Edited again.', updatedAt: '2026-03-01T00:00:00.000Z' };
    await importArticles(ctx.db, project, [dated], [], { now: new Date('2026-11-27T00:00:00.000Z') });
    assert.equal((await datesOf(headers, 'post')).updatedAt, '2026-03-01T00:00:00.000Z');
  });

  test("a Hugo post's lastmod is its updatedAt; without lastmod it is its date", async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://notes.example.org' });
    const root = await makeContentFolder({
      'posts/first-light.md':
        '---\ntitle: First light\ndate: 2024-03-31T23:30:00Z\nlastmod: 2024-04-03T17:00:00Z\n---\nBody.\n',
      'posts/moved-note.md': '---\ntitle: Moved note\ndate: 2024-02-11T12:00:00Z\n---\nBody.\n',
    });
    await importContent(ctx.db, project.slug, await readContentSource(root), { now: firstImport });
    assert.equal((await datesOf(headers, 'first-light')).updatedAt, '2024-04-03T17:00:00.000Z');
    assert.equal((await datesOf(headers, 'first-light')).lastmod, '2024-04-03T17:00:00.000Z');
    assert.equal((await datesOf(headers, 'moved-note')).updatedAt, '2024-02-11T12:00:00.000Z');
    assert.equal((await datesOf(headers, 'moved-note')).dateModified, '2024-02-11T12:00:00.000Z');
  });
});
