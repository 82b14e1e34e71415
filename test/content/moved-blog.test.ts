// What a blog moved in from another generator keeps once stored and served: its feed ids, its URLs
// (own paths, the project's URL pattern read in its time zone), former paths as redirects, its
// authors in order (and the default author, reported), its members-only content kept from public
// keys, and the site settings the import gives the project.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { ArticleInput, ContentSource } from '../../src/content/import/records.ts';
import { importContent, type ImportOptions } from '../../src/content/import.ts';
import type { Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { updateProject } from '../../src/projects/service.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  migrateBefore,
} from '../helpers.ts';

const select = (fields: Record<string, boolean>) => encodeURIComponent(JSON.stringify(fields));

async function guidOf(db: Db, projectId: string, slug: string): Promise<string | null> {
  const row = await db.kysely
    .selectFrom('articles')
    .select('guid')
    .where('project_id', '=', projectId)
    .where('slug', '=', slug)
    .executeTakeFirstOrThrow();
  return row.guid;
}

function site(articles: ArticleInput[], extra: Partial<ContentSource> = {}): ContentSource {
  return { tags: [], articles, ...extra };
}

describeEachDialect('feed ids of imported articles', (ctx) => {
  const importInto = (slug: string, source: ContentSource, options: ImportOptions = {}) =>
    importContent(ctx.db, slug, source, options);

  test("a migrated article's feed id is its URL on the old site, and no re-import changes it", async () => {
    const { project } = await createTestProject(ctx.db);
    const post = articleInput({ slug: 'first-light', publishedAt: '2024-03-31T23:30:00.000Z' });
    const settings = {
      siteUrl: 'https://notes.example.org/',
      urlPattern: '/:year/:month/:slug/',
      timeZone: 'Europe/Lisbon',
    };
    await importInto(project.slug, site([post], { generator: 'hugo', settings }));
    const first = 'https://notes.example.org/2024/04/first-light/';
    assert.equal(await guidOf(ctx.db, project.id, 'first-light'), first);

    // An edit, a moved path and a feed id given later change the article, never its feed id.
    const edited = { ...post, content: 'Edited.', path: '/elsewhere/first-light/', guid: 'urn:new' };
    const again = await importInto(project.slug, site([edited], { generator: 'hugo', settings }));
    assert.equal(again.updated, 1);
    assert.equal(await guidOf(ctx.db, project.id, 'first-light'), first);
  });

  test("the source's own feed id wins; a Folio folder's article has its Folio id", async () => {
    const { project } = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importInto(
      project.slug,
      site([articleInput({ slug: 'ghost-post', guid: '65a1b2c3d4e5f60718293a4b' })], { generator: 'ghost' }),
    );
    assert.equal(await guidOf(ctx.db, project.id, 'ghost-post'), '65a1b2c3d4e5f60718293a4b');
    await importInto(project.slug, site([articleInput({ slug: 'native' })], { generator: 'folio' }));
    const native = await ctx.db.kysely
      .selectFrom('articles')
      .select(['id', 'guid'])
      .where('project_id', '=', project.id)
      .where('slug', '=', 'native')
      .executeTakeFirstOrThrow();
    assert.equal(native.guid, native.id);
  });

  test('a migration without any site URL keeps Folio ids as feed ids and says so', async () => {
    const { project } = await createTestProject(ctx.db);
    const summary = await importInto(
      project.slug,
      site([articleInput({ slug: 'x' })], { generator: 'nextjs' }),
    );
    assert.equal(summary.warningsByKind['no-site-url'], 1);
    const row = await ctx.db.kysely
      .selectFrom('articles')
      .select(['id', 'guid'])
      .where('project_id', '=', project.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.guid, row.id);
  });

  test('the import --site-url builds the feed ids and fills the project site URL when it has none', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const summary = await importInto(
      project.slug,
      site([articleInput({ slug: 'night-market', path: '/posts/night-market' })], { generator: 'nextjs' }),
      { siteUrl: 'https://market.example.com' },
    );
    assert.deepEqual(summary.settingsApplied, ['siteUrl']);
    assert.equal(
      await guidOf(ctx.db, project.id, 'night-market'),
      'https://market.example.com/posts/night-market',
    );
    const info = await getJson(ctx.app, '/v1/project', headers);
    assert.equal(info.body.data.project.siteUrl, 'https://market.example.com');
  });
});

const drops: Array<() => Promise<void>> = [];
after(async () => {
  for (const drop of drops) await drop();
});

for (const dialect of configuredDialects()) {
  test(`an article stored before feed ids existed keeps its Folio id as feed id, whatever a re-import says [${dialect}]`, async () => {
    const database = await createTestDatabase(dialect, { migrate: false });
    drops.push(() => database.drop());
    const old = database.db.kysely as Kysely<any>;
    await migrateBefore(database.db, '0010');
    const at = '2024-01-01T00:00:00.000Z';
    await old
      .insertInto('projects')
      .values({
        id: 'p-old',
        name: 'Old',
        slug: 'old',
        description: '',
        storage_limit_bytes: 1e8,
        created_at: at,
        updated_at: at,
      })
      .execute();
    await old
      .insertInto('articles')
      .values({
        id: 'article-old',
        project_id: 'p-old',
        slug: 'kept',
        title: 'Kept',
        title_key: 'kept',
        excerpt: null,
        cover_image: null,
        content: 'Body.',
        status: 'published',
        published_at: at,
        created_at: at,
        updated_at: at,
        word_count: 1,
        character_count: 4,
        read_time_minutes: 1,
        summary: 'Body.',
        author_name: 'A',
        author_image: null,
        last_updated_by_name: null,
        last_updated_by_image: null,
        seo: null,
        storage_bytes: 9,
        content_hash: 'old',
      })
      .execute();
    await migrateToLatest(database.db);
    assert.equal(await guidOf(database.db, 'p-old', 'kept'), 'article-old');

    const moved = site([articleInput({ slug: 'kept', content: 'Edited.', guid: 'urn:other' })], {
      generator: 'hugo',
      settings: { siteUrl: 'https://old.example.com' },
    });
    assert.equal((await importContent(database.db, 'old', moved)).updated, 1);
    assert.equal(await guidOf(database.db, 'p-old', 'kept'), 'article-old');
  });
}

describeEachDialect('article URLs', (ctx) => {
  const urlFields = select({ url: true, path: true });

  test('the URL pattern reads dates in the project time zone (Lisbon: 23:30Z on 31 March is April)', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://notes.example.org' });
    await updateProject(ctx.db, project.slug, {
      urlPattern: '/:year/:month/:slug/',
      timeZone: 'Europe/Lisbon',
    });
    await importContent(
      ctx.db,
      project.slug,
      site([articleInput({ slug: 'first-light', publishedAt: '2024-03-31T23:30:00.000Z' })]),
    );
    const { body } = await getJson(ctx.app, `/v1/articles/first-light?select=${urlFields}`, headers);
    assert.equal(body.data.path, '/2024/04/first-light/');
    assert.equal(body.data.url, 'https://notes.example.org/2024/04/first-light/');

    // In UTC the same instant is still March.
    await updateProject(ctx.db, project.slug, { timeZone: null });
    const utc = await getJson(ctx.app, `/v1/articles/first-light?select=${urlFields}`, headers);
    assert.equal(utc.body.data.path, '/2024/03/first-light/');
  });

  test("an article's own path wins over the pattern; :section comes from its section", async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://docs.example.com/' });
    await updateProject(ctx.db, project.slug, { urlPattern: '/:section/:slug/' });
    await importContent(
      ctx.db,
      project.slug,
      site([
        articleInput({ slug: 'setup', path: '/guides/setup' }),
        articleInput({ slug: 'notes', section: 'journal' }),
      ]),
    );
    const list = await getJson(ctx.app, `/v1/articles?sort=title&order=asc&select=${urlFields}`, headers);
    assert.deepEqual(
      list.body.data.map((a: { slug: string; url: string; path: string }) => [a.slug, a.path, a.url]),
      [
        ['notes', '/journal/notes/', 'https://docs.example.com/journal/notes/'],
        ['setup', '/guides/setup', 'https://docs.example.com/guides/setup'],
      ],
    );
  });

  test('without a site URL, url is the path alone; url and path are not default fields', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importContent(ctx.db, project.slug, site([articleInput({ slug: 'plain' })]));
    const selected = await getJson(ctx.app, `/v1/articles/plain?select=${urlFields}`, headers);
    assert.equal(selected.body.data.url, '/plain');
    const plain = await getJson(ctx.app, '/v1/articles/plain', headers);
    assert.equal('url' in plain.body.data, false);
    assert.equal('path' in plain.body.data, false);
    const list = await getJson(ctx.app, '/v1/articles', headers);
    assert.equal('url' in list.body.data[0], false);
  });

  test('a stored time zone this runtime does not know reads as UTC, never a 500', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await updateProject(ctx.db, project.slug, { urlPattern: '/:year/:month/:slug/' });
    await ctx.db.kysely
      .updateTable('projects')
      .set({ time_zone: 'Gone/Zone' })
      .where('id', '=', project.id)
      .execute();
    await importContent(
      ctx.db,
      project.slug,
      site([articleInput({ slug: 'late', publishedAt: '2024-03-31T23:30:00.000Z', aliases: ['/old-late'] })]),
    );
    const article = await getJson(ctx.app, `/v1/articles/late?select=${urlFields}`, headers);
    assert.equal(article.status, 200);
    assert.equal(article.body.data.path, '/2024/03/late/');
    const redirects = await getJson(ctx.app, '/v1/redirects', headers);
    assert.deepEqual(redirects.body.data, [{ from: '/old-late', to: '/2024/03/late/', status: 301 }]);
  });

  test('a changed site URL or pattern shows at once in cached answers', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://a.example.com' });
    await importContent(ctx.db, project.slug, site([articleInput({ slug: 'cached' })]));
    const url = `/v1/articles?select=${select({ url: true })}`;
    assert.equal((await getJson(ctx.app, url, headers)).body.data[0].url, 'https://a.example.com/cached');
    await updateProject(ctx.db, project.slug, {
      siteUrl: 'https://b.example.com',
      urlPattern: '/posts/:slug/',
    });
    assert.equal(
      (await getJson(ctx.app, url, headers)).body.data[0].url,
      'https://b.example.com/posts/cached/',
    );
  });
});

describeEachDialect('former paths and GET /v1/redirects', (ctx) => {
  test("published articles' aliases redirect to their current paths, for every key kind", async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://notes.example.org' });
    await updateProject(ctx.db, project.slug, { urlPattern: '/posts/:slug/' });
    await importContent(
      ctx.db,
      project.slug,
      site([
        articleInput({ slug: 'kept', aliases: ['/old/kept/', '/2019/kept.html'] }),
        articleInput({ slug: 'own', path: '/guides/own', aliases: ['/own-old'] }),
        articleInput({ slug: 'draft', status: 'draft', publishedAt: null, aliases: ['/old/draft/'] }),
        articleInput({ slug: 'future', publishedAt: '2099-01-01T00:00:00.000Z', aliases: ['/old/future/'] }),
        // A former path that is another article's live page is not redirected away from it.
        articleInput({ slug: 'shadow', aliases: ['/posts/kept/', '/old/shadow/'] }),
      ]),
    );
    const expected = [
      { from: '/2019/kept.html', to: '/posts/kept/', status: 301 },
      { from: '/old/kept/', to: '/posts/kept/', status: 301 },
      { from: '/old/shadow/', to: '/posts/shadow/', status: 301 },
      { from: '/own-old', to: '/guides/own', status: 301 },
    ];
    const secret = await getJson(ctx.app, '/v1/redirects', headers);
    assert.equal(secret.status, 200);
    assert.deepEqual(secret.body, { data: expected });
    const publicKey = await createTestKey(ctx.db, project, { kind: 'public' });
    const viaPublic = await getJson(ctx.app, '/v1/redirects', publicKey.headers);
    assert.deepEqual(viaPublic.body, { data: expected });

    const aliases = await getJson(ctx.app, `/v1/articles/kept?select=${select({ aliases: true })}`, headers);
    assert.deepEqual(aliases.body.data.aliases, ['/old/kept/', '/2019/kept.html']);
  });

  test('a re-import that changes only the aliases is an update, and the redirects follow', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const post = articleInput({ slug: 'moved' });
    await importContent(ctx.db, project.slug, site([post]));
    assert.deepEqual((await getJson(ctx.app, '/v1/redirects', headers)).body, { data: [] });
    const again = await importContent(ctx.db, project.slug, site([{ ...post, aliases: ['/old-moved'] }]));
    assert.equal(again.updated, 1);
    assert.deepEqual((await getJson(ctx.app, '/v1/redirects', headers)).body.data, [
      { from: '/old-moved', to: '/moved', status: 301 },
    ]);
  });

  test('an unknown parameter is a 400 naming it', async () => {
    const { headers } = await createTestProject(ctx.db);
    const response = await getJson(ctx.app, '/v1/redirects?limit=5', headers);
    assert.equal(response.status, 400);
    assert.match(JSON.stringify(response.body.details), /limit/);
  });
});

describeEachDialect('authors of imported articles', (ctx) => {
  const authorFields = select({ author: true, authors: true });
  const rosa = {
    name: 'Rosa Quental',
    slug: 'rosa',
    image: 'https://img.example.org/rosa.jpg',
    title: 'Editor',
    url: 'https://rosa.example.org',
  };
  const ben = { name: 'Ben Ito', slug: 'ben-ito', image: null, title: null, url: null };

  test("authors keep the source's order and the first is the author", async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importContent(
      ctx.db,
      project.slug,
      site([articleInput({ slug: 'duo', author: null, authors: [ben, rosa] })]),
    );
    const { body } = await getJson(ctx.app, `/v1/articles/duo?select=${authorFields}`, headers);
    assert.deepEqual(body.data.author, { name: 'Ben Ito', image: null });
    assert.deepEqual(body.data.authors, [ben, rosa]);
  });

  test('an article of one author lists it in authors with a slug from its name', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importContent(
      ctx.db,
      project.slug,
      site([articleInput({ slug: 'solo', author: { name: 'Zoë Åberg', image: null } })]),
    );
    const { body } = await getJson(ctx.app, `/v1/articles/solo?select=${authorFields}`, headers);
    assert.deepEqual(body.data.authors, [
      { name: 'Zoë Åberg', slug: 'zoe-aberg', image: null, title: null, url: null },
    ]);
  });

  test("an article without an author gets the project's default author, else its name, with a warning each time", async () => {
    const { project, headers } = await createTestProject(ctx.db, { name: 'Harbour Notes' });
    const anonymous = articleInput({ slug: 'anon', author: null });
    const first = await importContent(ctx.db, project.slug, site([anonymous]));
    assert.deepEqual(first.warningsByKind, { 'default-author': 1 });
    assert.equal(first.warnings[0].file, 'anon.md');
    assert.match(first.warnings[0].message, /no default author.*Harbour Notes/);
    let article = await getJson(ctx.app, '/v1/articles/anon', headers);
    assert.deepEqual(article.body.data.author, { name: 'Harbour Notes', image: null });

    await updateProject(ctx.db, project.slug, {
      defaultAuthor: { name: 'Rosa Quental', image: '/img/rosa.jpg' },
    });
    const second = await importContent(ctx.db, project.slug, site([{ ...anonymous, content: 'Edited.' }]));
    assert.match(second.warnings[0].message, /default author 'Rosa Quental'/);
    article = await getJson(ctx.app, '/v1/articles/anon', headers);
    assert.deepEqual(article.body.data.author, { name: 'Rosa Quental', image: '/img/rosa.jpg' });
  });

  test("the reader's own default-author warning is not doubled; articles with authors get none", async () => {
    const { project } = await createTestProject(ctx.db);
    const readerWarning = {
      file: 'site-default.md',
      line: 1,
      kind: 'default-author',
      message: 'site default used',
    };
    const summary = await importContent(
      ctx.db,
      project.slug,
      site(
        [
          articleInput({ slug: 'site-default', author: { name: 'Site Author', image: null } }),
          articleInput({ slug: 'from-reader', author: null, authors: [ben] }),
        ],
        { warnings: [readerWarning] },
      ),
    );
    assert.deepEqual(summary.warnings, [readerWarning]);
  });
});

describeEachDialect('members-only articles', (ctx) => {
  const body = 'Free intro for everyone.\n\n<!--members-only-->\n\nThe **secret** part.';

  async function setUp() {
    const secret = await createTestProject(ctx.db);
    const publicKey = await createTestKey(ctx.db, secret.project, { kind: 'public' });
    await importContent(
      ctx.db,
      secret.project.slug,
      site([
        articleInput({ slug: 'members', content: body, visibility: 'members' }),
        articleInput({
          slug: 'paid',
          content: 'No marker: all of it is paid.',
          visibility: 'paid',
          tiers: ['gold'],
          variants: [
            { key: 'fr', title: null, excerpt: null, content: 'Début.\n<!-- members-only -->\nSuite.' },
          ],
        }),
        articleInput({ slug: 'open', content: `Open.\n\n<!--members-only-->\n\nStill open.` }),
      ]),
    );
    return { secret: secret.headers, public: publicKey.headers, projectId: secret.project.id };
  }

  const fields = select({ content: true, html: true, visibility: true, tiers: true, variants: true });

  test('public keys read only the part before the marker, empty without one; secret keys read everything', async () => {
    const headers = await setUp();
    const publicMembers = await getJson(ctx.app, `/v1/articles/members?select=${fields}`, headers.public);
    assert.equal(publicMembers.body.data.visibility, 'members');
    assert.equal(publicMembers.body.data.content, 'Free intro for everyone.');
    assert.equal(publicMembers.body.data.html, '<p>Free intro for everyone.</p>\n');
    const publicPaid = await getJson(ctx.app, `/v1/articles/paid?select=${fields}`, headers.public);
    assert.deepEqual([publicPaid.body.data.content, publicPaid.body.data.html], ['', '']);
    assert.deepEqual(publicPaid.body.data.tiers, ['gold']);
    assert.equal(publicPaid.body.data.variants[0].content, 'Début.');

    const secretMembers = await getJson(ctx.app, `/v1/articles/members?select=${fields}`, headers.secret);
    assert.equal(secretMembers.body.data.content, body);
    assert.match(secretMembers.body.data.html, /secret/);
    // The stored summary (the SEO answers' fallback description) is cut from the teaser too.
    const summaries = await ctx.db.kysely
      .selectFrom('articles')
      .select(['slug', 'summary'])
      .where('project_id', '=', headers.projectId)
      .where('slug', 'in', ['members', 'paid'])
      .orderBy('slug')
      .execute();
    assert.deepEqual(
      summaries.map((row) => row.summary),
      ['Free intro for everyone.', ''],
    );
    const secretPaid = await getJson(ctx.app, `/v1/articles/paid?select=${fields}`, headers.secret);
    assert.equal(secretPaid.body.data.content, 'No marker: all of it is paid.');
  });

  test('lists apply the same rule, and a public article shows all of its content to public keys', async () => {
    const headers = await setUp();
    const list = await getJson(
      ctx.app,
      `/v1/articles?sort=title&select=${select({ html: true, visibility: true })}`,
      headers.public,
    );
    const bySlug = Object.fromEntries(list.body.data.map((a: { slug: string }) => [a.slug, a]));
    assert.equal(bySlug.members.html, '<p>Free intro for everyone.</p>\n');
    assert.equal(bySlug.paid.html, '');
    assert.match(bySlug.open.html, /Still open/);
    assert.equal(bySlug.open.visibility, 'public');
    const secretList = await getJson(
      ctx.app,
      `/v1/articles?select=${select({ html: true })}`,
      headers.secret,
    );
    assert.ok(secretList.body.data.some((a: { html: string }) => a.html.includes('secret')));
  });

  test("search finds a members-only article by its teaser, never by the members' part", async () => {
    const headers = await setUp();
    const found = async (term: string) =>
      (await getJson(ctx.app, `/v1/articles?search=${term}`, headers.public)).body.data.map(
        (a: { slug: string }) => a.slug,
      );
    assert.deepEqual(await found('intro'), ['members']);
    assert.deepEqual(await found('secret'), []);
    assert.deepEqual(await found('marker'), []);
    // A public article is found by all of its text.
    assert.deepEqual(await found('still'), ['open']);
  });
});

describeEachDialect('project settings from an imported site', (ctx) => {
  const settings = {
    siteUrl: 'https://notes.example.org',
    urlPattern: '/:year/:month/:slug/',
    timeZone: 'Europe/Lisbon',
    defaultAuthor: { name: 'Rosa Quental', image: null },
    logoUrl: 'https://notes.example.org/logo.png',
  };

  test('fill the settings the project does not have; a dry run changes nothing', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    const source = site([articleInput({ slug: 'a' })], { generator: 'hugo', settings });
    const dry = await importContent(ctx.db, project.slug, source, { dryRun: true });
    assert.deepEqual(dry.settingsApplied, ['siteUrl', 'urlPattern', 'timeZone', 'defaultAuthor', 'logoUrl']);
    const before = (await getJson(ctx.app, '/v1/project', headers)).body.data.project;
    assert.deepEqual(
      [before.siteUrl, before.urlPattern, before.timeZone, before.defaultAuthor, before.logoUrl],
      [null, '/:slug', 'UTC', null, null],
    );

    await importContent(ctx.db, project.slug, source);
    const after = (await getJson(ctx.app, '/v1/project', headers)).body.data.project;
    assert.deepEqual(
      [after.siteUrl, after.urlPattern, after.timeZone, after.defaultAuthor, after.logoUrl],
      [settings.siteUrl, settings.urlPattern, settings.timeZone, settings.defaultAuthor, settings.logoUrl],
    );
  });

  test("keep the project's own values and report each one kept", async () => {
    const { project } = await createTestProject(ctx.db, { siteUrl: 'https://mine.example.com/' });
    await updateProject(ctx.db, project.slug, { timeZone: 'America/Chicago' });
    const summary = await importContent(
      ctx.db,
      project.slug,
      site([articleInput({ slug: 'a' })], {
        generator: 'hugo',
        settings: { ...settings, siteUrl: 'https://mine.example.com' },
      }),
    );
    // The same site URL but for its trailing slash is no difference.
    assert.deepEqual(summary.settingsApplied, ['urlPattern', 'defaultAuthor', 'logoUrl']);
    assert.deepEqual(summary.warningsByKind, { 'project-setting-kept': 1 });
    assert.match(
      summary.warnings[0].message,
      /^timeZone: the project keeps its own America\/Chicago; the site says Europe\/Lisbon/,
    );
  });

  test("leave out the site's settings that cannot be stored, with a warning naming each; refuse a bad --site-url", async () => {
    const { project } = await createTestProject(ctx.db);
    const summary = await importContent(
      ctx.db,
      project.slug,
      site([articleInput({ slug: 'a' })], {
        settings: { urlPattern: 'posts/:id', timeZone: 'Mars/Olympus', logoUrl: '/content/images/logo.png' },
      }),
    );
    assert.equal(summary.created, 1);
    assert.deepEqual(
      summary.warnings.filter((w) => w.kind === 'invalid-setting').map((w) => w.message.split(' ')[0]),
      ['logoUrl', 'urlPattern', 'timeZone'],
    );
    const stored = await ctx.db.kysely
      .selectFrom('projects')
      .select(['url_pattern', 'time_zone', 'logo_url'])
      .where('id', '=', project.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual({ ...stored }, { url_pattern: '/:slug', time_zone: 'UTC', logo_url: null });

    const other = await createTestProject(ctx.db);
    await assert.rejects(
      importContent(ctx.db, other.project.slug, site([articleInput({ slug: 'a' })]), {
        siteUrl: 'not a url',
      }),
      (error: Error & { problems?: Array<{ message: string }> }) => {
        assert.deepEqual(
          error.problems?.map((problem) => problem.message.split(' ')[0]),
          ['siteUrl'],
        );
        return true;
      },
    );
    const count = await ctx.db.kysely
      .selectFrom('articles')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('project_id', '=', other.project.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
  });
});

describeEachDialect('strict imports', (ctx) => {
  test("refuse on any warning, the source's or the import's own, and write nothing", async () => {
    const { project } = await createTestProject(ctx.db);
    const warned = site([articleInput({ slug: 'a' })], {
      warnings: [
        { file: 'a.md', line: 3, kind: 'unknown-shortcode', message: 'unknown shortcode {{< tweet >}}' },
      ],
    });
    await assert.rejects(
      importContent(ctx.db, project.slug, warned, { strict: true }),
      /a\.md:3: unknown shortcode/,
    );
    await assert.rejects(
      importContent(ctx.db, project.slug, site([articleInput({ slug: 'b', author: null })]), {
        strict: true,
      }),
      /b\.md:1: no author/,
    );
    const rows = await ctx.db.kysely
      .selectFrom('articles')
      .select('slug')
      .where('project_id', '=', project.id)
      .execute();
    assert.deepEqual(rows, []);
    // Without --strict the same imports go through, with their warnings counted.
    const summary = await importContent(ctx.db, project.slug, warned);
    assert.deepEqual(summary.warningsByKind, { 'unknown-shortcode': 1 });
  });
});
