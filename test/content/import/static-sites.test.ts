// The issue's complaint, reproduced: ordinary posts as Astro, Hugo (TOML and page bundles), Jekyll
// and a plain Markdown blog write them import with no error, in their publication order.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readContentSource } from '../../../src/content/import/read-source.ts';
import { importContent } from '../../../src/content/import.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  makeContentFolder,
  removeContentFolders,
} from '../../helpers.ts';

after(removeContentFolders);

const site = (name: string) => fileURLToPath(new URL(`../fixtures/static-sites/${name}`, import.meta.url));
const NOW = new Date('2026-06-01T12:00:00.000Z');

const expected: Record<string, Array<[slug: string, status: string, publishedAt: string | null]>> = {
  astro: [
    ['markdown-style-guide', 'published', '2024-06-19T00:00:00.000Z'],
    ['first-post', 'published', '2022-07-08T00:00:00.000Z'],
  ],
  hugo: [
    ['work-in-progress', 'draft', '2024-04-01T00:00:00.000Z'],
    ['trip-to-lisbon', 'published', '2024-03-02T09:00:00.000Z'],
    ['my-first-post', 'published', '2024-01-14T06:07:07.000Z'],
  ],
  jekyll: [
    ['second-post', 'published', '2024-02-01T00:00:00.000Z'],
    ['welcome-to-jekyll', 'published', '2024-01-15T09:00:00.000Z'],
  ],
  markdown: [
    ['second-thoughts', 'published', '2024-03-12T08:15:00.000Z'],
    ['hello-world', 'published', '2024-03-05T00:00:00.000Z'],
  ],
};

describeEachDialect('static-site content', (ctx) => {
  for (const [name, articles] of Object.entries(expected)) {
    test(`${name}: the posts import with no error and list newest first by their own dates`, async () => {
      const { project, headers } = await createTestProject(ctx.db);
      const source = await readContentSource(site(name));
      const summary = await importContent(ctx.db, project.slug, source, { now: NOW });
      assert.equal(summary.created, articles.length);
      const list = await getJson(ctx.app, '/v1/articles?select={"status":true,"updatedAt":true}', headers);
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.data.map((a: { slug: string; status: string; publishedAt: string | null }) => [
          a.slug,
          a.status,
          a.publishedAt,
        ]),
        articles,
      );
      for (const article of list.body.data) assert.equal(article.createdAt, article.publishedAt);
    });
  }

  test('fields come through: excerpt, cover, tags with categories, author, updatedAt', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importContent(ctx.db, project.slug, await readContentSource(site('hugo')), { now: NOW });
    const select = encodeURIComponent(JSON.stringify({ tags: true, updatedAt: true, author: true }));
    const first = await getJson(ctx.app, `/v1/articles/my-first-post?select=${select}`, headers);
    assert.equal(first.body.data.excerpt, 'A first post, written the way Hugo writes it.');
    assert.deepEqual(first.body.data.author, { name: 'Jane Doe', image: null });
    assert.deepEqual(
      first.body.data.tags.map((tag: { name: string }) => tag.name),
      ['green', 'red', 'Travel'],
    );
    const bundle = await getJson(ctx.app, `/v1/articles/trip-to-lisbon?select=${select}`, headers);
    assert.equal(bundle.body.data.coverImage, 'tram.jpg');
    assert.equal(bundle.body.data.updatedAt, '2024-03-05T18:30:00.000Z');
  });

  test('a published post without a date is dated at its first import, createdAt too, and keeps that date', async () => {
    const { project } = await createTestProject(ctx.db);
    const dir = await makeContentFolder({
      'undated.md': '---\ntitle: Undated\nstatus: published\n---\nText.\n',
    });
    const source = await readContentSource(dir);
    assert.equal(source.warnings?.length, 1);
    await importContent(ctx.db, project.slug, source, { now: NOW });
    const later = new Date('2026-07-01T00:00:00.000Z');
    const edited = await makeContentFolder({
      'undated.md': '---\ntitle: Undated\nstatus: published\n---\nEdited.\n',
    });
    await importContent(ctx.db, project.slug, await readContentSource(edited), { now: later });
    const row = await ctx.db.kysely
      .selectFrom('articles')
      .select(['published_at', 'created_at', 'updated_at'])
      .where('project_id', '=', project.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { ...row },
      {
        published_at: NOW.toISOString(),
        created_at: NOW.toISOString(),
        updated_at: later.toISOString(),
      },
    );
  });

  test('--dry-run lists the slugs it would add, change and remove, and the tags prune would remove; writes nothing', async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'kept' }),
      articleInput({ slug: 'edited' }),
      articleInput({ slug: 'gone', tags: ['Lonely'] }),
      articleInput({ slug: 'gone-too', tags: ['Lonely'] }),
    ]);
    const next = [
      articleInput({ slug: 'kept' }),
      articleInput({ slug: 'edited', content: 'New body.' }),
      articleInput({ slug: 'added' }),
    ];
    const before = await ctx.db.kysely
      .selectFrom('articles')
      .selectAll()
      .where('project_id', '=', project.id)
      .execute();
    const dry = await importArticles(ctx.db, project, next, [], { prune: true, dryRun: true });
    assert.deepEqual(dry.changes, {
      created: ['added'],
      updated: ['edited'],
      removed: ['gone', 'gone-too'],
      revised: ['edited'],
      tagsRemoved: ['Lonely'],
    });
    assert.deepEqual(
      await ctx.db.kysely.selectFrom('articles').selectAll().where('project_id', '=', project.id).execute(),
      before,
    );
    const real = await importArticles(ctx.db, project, next, [], { prune: true });
    assert.deepEqual(real, { ...dry, dryRun: false });
    const tags = await ctx.db.kysely
      .selectFrom('tags')
      .select('name')
      .where('project_id', '=', project.id)
      .execute();
    assert.deepEqual(tags, []);
  });

  test('html: rendered and sanitised at import, only when selected, relative URLs kept', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'h',
        content:
          '# Title\n\nSome **bold** and [a link](/relative) <script>alert(1)</script>\n\n<img src="x.png" onerror="alert(2)">\n\n[bad](javascript:alert(3))\n',
      }),
    ]);
    const plain = await getJson(ctx.app, '/v1/articles/h', headers);
    assert.ok(!('html' in plain.body.data), 'html is not a default field');
    const withHtml = await getJson(ctx.app, '/v1/articles/h?select={"html":true}', headers);
    assert.equal(
      withHtml.body.data.html,
      '<h1>Title</h1>\n<p>Some <strong>bold</strong> and <a href="/relative">a link</a> </p>\n<img src="x.png" />\n<p>[bad](javascript:alert(3))</p>\n',
    );
    const list = await getJson(ctx.app, '/v1/articles?select={"html":true,"content":false}', headers);
    assert.equal(list.body.data[0].html, withHtml.body.data.html);
  });

  test('html: an article stored without it (before migration 0005) gets it at the next import, unchanged otherwise', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const articles = [articleInput({ slug: 'old', content: '*hi*' })];
    await importArticles(ctx.db, project, articles, [], { now: NOW });
    await ctx.db.kysely
      .updateTable('articles')
      .set({ html: null })
      .where('project_id', '=', project.id)
      .execute();
    const missing = await getJson(ctx.app, '/v1/articles/old?select={"html":true}', headers);
    assert.equal(missing.body.data.html, null);
    const again = await importArticles(ctx.db, project, articles, [], {
      now: new Date('2026-07-01T00:00:00Z'),
    });
    assert.equal(again.unchanged, 1);
    const row = await ctx.db.kysely
      .selectFrom('articles')
      .select(['html', 'updated_at'])
      .where('project_id', '=', project.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual({ ...row }, { html: '<p><em>hi</em></p>\n', updated_at: '2026-01-01T00:00:00.000Z' });
  });

  test('select names html among the selectable fields in its 400', async () => {
    const { headers } = await createTestProject(ctx.db);
    const response = await getJson(ctx.app, '/v1/articles?select={"htm":true}', headers);
    assert.equal(response.status, 400);
    assert.match(response.body.details.issues[0].message, /selectable fields: content, html,/);
  });
});
