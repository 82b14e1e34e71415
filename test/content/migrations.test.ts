// Migrations on a database made before them, on every configured database:
// - 0004: articles imported under 0001/0002 get their search text (title, excerpt, plain text) and
//   are found by it, no longer by their Markdown syntax;
// - 0008: view counts move to their own table, kept, and go on counting;
// - 0010: articles get ordinals and their projects article sets, which count the list's filters
//   exactly, and which the next import keeps in step;
// - 0014: tags get slugs derived from their names, unique per project.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { type Kysely, Migrator, sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import type { Db, DialectName } from '../../src/db/database.ts';
import type { Project } from '../../src/db/schema.ts';
import { content } from '../../src/db/migrations/0001-content.ts';
import { analytics } from '../../src/db/migrations/0002-analytics.ts';
import { changeNotifications } from '../../src/db/migrations/0003-change-notifications.ts';
import { migrateToLatest, migrations } from '../../src/db/migrations/index.ts';
import { createApiKey } from '../../src/projects/service.ts';
import { track } from '../analytics/support.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  getJson,
  importArticles,
  migrateBefore,
} from '../helpers.ts';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A project row as migrations 0001 to 0014 store it (the columns of 0015 do not exist yet). */
async function oldProject(db: Db, name: string, slug: string): Promise<Project> {
  const now = '2026-01-01T00:00:00.000Z';
  const project = {
    id: `project-${slug}`,
    name,
    slug,
    description: '',
    site_url: null,
    logo_url: null,
    storage_limit_bytes: 100_000_000,
    created_at: now,
    updated_at: now,
  };
  await (db.kysely as Kysely<any>).insertInto('projects').values(project).execute();
  // As the project reads once the migrations have run.
  return {
    ...project,
    url_pattern: '/:slug',
    time_zone: 'UTC',
    default_author: null,
    revisions_kept: 50,
    content_version: 0,
    order_version: 0,
  };
}

/** An article row as migrations 0001 to 0009 store it (columns added later have defaults). */
function oldArticle(
  projectId: string,
  fields: {
    id: string;
    slug: string;
    title?: string;
    excerpt?: string | null;
    content?: string;
    status?: string;
    published_at?: string | null;
    created_at?: string;
    search_text?: string;
  },
) {
  const now = '2026-01-01T00:00:00.000Z';
  const title = fields.title ?? `Title of ${fields.slug}`;
  return {
    project_id: projectId,
    cover_image: null,
    status: 'published',
    published_at: now,
    created_at: now,
    updated_at: now,
    word_count: 1,
    character_count: 1,
    read_time_minutes: 1,
    summary: '',
    author_name: 'A',
    author_image: null,
    last_updated_by_name: null,
    last_updated_by_image: null,
    seo: null,
    storage_bytes: 1,
    content_hash: fields.id,
    ...fields,
    title,
    title_key: title.toLowerCase(),
    excerpt: fields.excerpt ?? null,
    content: fields.content ?? `Body of ${fields.slug}.`,
  };
}

/** The names of the migrations from `first` on, in order (later ones follow in the same run). */
function migrationsFrom(first: string): string[] {
  return Object.keys(migrations).filter((name) => name >= first);
}

async function emptyDatabase(dialect: DialectName): Promise<Db> {
  const database = await createTestDatabase(dialect, { migrate: false });
  cleanups.push(() => database.drop());
  return database.db;
}

for (const dialect of configuredDialects()) {
  test(`migration 0004 [${dialect}]: articles stored before it are searched by their plain text`, async () => {
    const db = await emptyDatabase(dialect);
    const before = new Migrator({
      db: db.kysely as Kysely<any>,
      provider: {
        getMigrations: async () => ({
          '0001-content': content(dialect),
          '0002-analytics': analytics(dialect),
          '0003-change-notifications': changeNotifications(dialect),
        }),
      },
    });
    const { error } = await before.migrateToLatest();
    assert.equal(error, undefined);
    const project = await oldProject(db, 'Old', 'old');
    await (db.kysely as Kysely<any>)
      .insertInto('articles')
      .values([
        oldArticle(project.id, {
          id: 'a1',
          slug: 'one',
          title: 'Ancient Title',
          excerpt: 'Storedexcerpt',
          content: 'Some **Bold** text, [a link](https://example.org/hiddenurl).',
        }),
        oldArticle(project.id, { id: 'a2', slug: 'two', title: 'Other', content: 'Nothing' }),
      ])
      .execute();

    // Later migrations (0006 …) may follow; the ones already applied are not run again.
    const applied = await migrateToLatest(db);
    assert.equal(applied[0], '0004-search-text');
    assert.ok(
      applied.every((name) => name > '0002-analytics'),
      applied.join(', '),
    );
    const { key } = await createApiKey(db, 'old', { kind: 'secret' });
    const app = await buildApp({ db });
    cleanups.unshift(() => app.close());
    const slugs = async (search: string) => {
      const response = await getJson(app, `/v1/articles?search=${encodeURIComponent(search)}`, {
        'x-api-key': key,
      });
      assert.equal(response.status, 200, search);
      return response.body.data.map((article: { slug: string }) => article.slug).sort();
    };
    assert.deepEqual(await slugs('ancient'), ['one']);
    assert.deepEqual(await slugs('storedEXCERPT'), ['one']);
    assert.deepEqual(await slugs('bold text'), ['one']);
    assert.deepEqual(await slugs('a link'), ['one']);
    assert.deepEqual(await slugs('**'), []);
    assert.deepEqual(await slugs('hiddenurl'), []);
    assert.deepEqual(await slugs('o'), ['one', 'two']);
    assert.deepEqual(await slugs('nt'), ['one']);
    assert.deepEqual(await slugs('nothing'), ['two']);
  });
}

for (const dialect of configuredDialects()) {
  test(`migration 0008 [${dialect}]: view counts stored in articles are kept, sorted by and counted on`, async () => {
    const db = await emptyDatabase(dialect);
    await migrateBefore(db, '0008');
    const project = await oldProject(db, 'Old', 'old');
    // Rows as the schema of 0007 holds them (the import writes the columns of the latest one).
    await (db.kysely as Kysely<any>)
      .insertInto('articles')
      .values(
        (
          [
            ['few', 3],
            ['many', 40],
            ['none', 0],
          ] as const
        ).map(([slug, views]) => ({ ...oldArticle(project.id, { id: slug, slug }), view_count: views })),
      )
      .execute();

    // Later migrations may follow in the same run.
    assert.equal((await migrateToLatest(db))[0], '0008-article-views');
    const { key } = await createApiKey(db, 'old', { kind: 'secret' });
    const headers = { 'x-api-key': key };
    const app = await buildApp({ db, viewCountLagMs: 0 });
    cleanups.unshift(() => app.close());
    const counts = async () => {
      const response = await getJson(app, '/v1/articles?sort=viewCount&order=desc', headers);
      assert.equal(response.status, 200);
      return response.body.data.map((article: { slug: string; viewCount: number }) => [
        article.slug,
        article.viewCount,
      ]);
    };
    assert.deepEqual(await counts(), [
      ['many', 40],
      ['few', 3],
      ['none', 0],
    ]);
    for (const slug of ['none', 'none', 'few']) {
      assert.equal((await track(app, { slug }, { headers })).statusCode, 201);
    }
    await rollUpQueued(db);
    assert.deepEqual(await counts(), [
      ['many', 40],
      ['few', 4],
      ['none', 2],
    ]);
    const stats = await getJson(app, '/v1/project', headers);
    assert.equal(stats.body.data.stats.totalViews, 46);
  });
}

for (const dialect of configuredDialects()) {
  test(`migration 0010 [${dialect}]: articles stored before it get ordinals and sets that count the list`, async () => {
    const db = await emptyDatabase(dialect);
    await migrateBefore(db, '0010');
    const old = db.kysely as Kysely<any>;
    const projects = [];
    for (const slug of ['first', 'second']) {
      const project = await oldProject(db, slug, slug);
      projects.push(project);
      const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
      await old
        .insertInto('articles')
        .values([
          oldArticle(project.id, {
            id: `${slug}-1`,
            slug: 'one',
            created_at: at(3),
            search_text: 'ancient title\nsome bold text',
          }),
          oldArticle(project.id, {
            id: `${slug}-2`,
            slug: 'two',
            created_at: at(1),
            status: 'draft',
            published_at: null,
            search_text: 'other\nbold move',
          }),
          oldArticle(project.id, {
            id: `${slug}-3`,
            slug: 'three',
            created_at: at(2),
            published_at: '2099-01-01T00:00:00.000Z',
            search_text: 'later\nnothing bold',
          }),
        ])
        .execute();
      await old
        .insertInto('tags')
        .values({
          id: `${slug}-news`,
          project_id: project.id,
          name: 'News',
          name_key: 'news',
          color: null,
          icon: null,
          created_at: at(0),
          updated_at: at(0),
        })
        .execute();
      await old
        .insertInto('article_tags')
        .values([
          { article_id: `${slug}-1`, tag_id: `${slug}-news` },
          { article_id: `${slug}-3`, tag_id: `${slug}-news` },
        ])
        .execute();
    }

    assert.deepEqual(await migrateToLatest(db), migrationsFrom('0010-article-sets'));
    const ordinals = await db.kysely.selectFrom('articles').select(['id', 'ordinal']).orderBy('id').execute();
    // Numbered from 0 in each project, by creation.
    assert.deepEqual(
      ordinals.map((row) => [row.id, row.ordinal]),
      [
        ['first-1', 2],
        ['first-2', 0],
        ['first-3', 1],
        ['second-1', 2],
        ['second-2', 0],
        ['second-3', 1],
      ],
    );
    const { key } = await createApiKey(db, 'first', { kind: 'secret' });
    const app = await buildApp({ db });
    cleanups.unshift(() => app.close());
    const list = async (query: string) => {
      const response = await getJson(app, `/v1/articles?${query}`, { 'x-api-key': key });
      assert.equal(response.status, 200, query);
      return [response.body.meta.total, response.body.data.map((a: { slug: string }) => a.slug).join(' ')];
    };
    assert.deepEqual(await list(''), [3, 'one three two']);
    assert.deepEqual(await list('search=bold'), [3, 'one three two']);
    assert.deepEqual(await list('search=ancient'), [1, 'one']);
    assert.deepEqual(await list('search=bo'), [3, 'one three two']);
    assert.deepEqual(await list('search=bold%20o&status=scheduled'), [1, 'three']);
    assert.deepEqual(await list('status=published'), [1, 'one']);
    assert.deepEqual(await list('tags=news'), [2, 'one three']);
    assert.deepEqual(await list('excludeTags=news&published=false'), [1, 'two']);

    // The next import changes the sets with the articles: a new one takes the next ordinal.
    await importArticles(db, projects[0], [
      articleInput({ slug: 'one', content: 'Fresh words', tags: [] }),
      articleInput({ slug: 'four', content: 'Bold and fresh', createdAt: '2025-01-01T00:00:00.000Z' }),
    ]);
    assert.deepEqual(await list('search=fresh'), [2, 'one four']);
    assert.deepEqual(await list('search=bold'), [3, 'three two four']);
    assert.deepEqual(await list('search=ancient'), [0, '']);
    assert.deepEqual(await list('tags=news'), [1, 'three']);
    assert.equal(
      (
        await db.kysely
          .selectFrom('articles')
          .select('ordinal')
          .where('project_id', '=', projects[0].id)
          .where('slug', '=', 'four')
          .executeTakeFirstOrThrow()
      ).ordinal,
      3,
    );
  });
}

for (const dialect of configuredDialects()) {
  test(`migration 0010 [${dialect}]: a failure part-way leaves the database as it was, and it runs again`, async () => {
    const db = await emptyDatabase(dialect);
    await migrateBefore(db, '0010');
    const project = await oldProject(db, 'Old', 'old');
    await (db.kysely as Kysely<any>)
      .insertInto('articles')
      .values(oldArticle(project.id, { id: 'a1', slug: 'one', search_text: 'kept words' }))
      .execute();
    // A table in the way: the migration fails after it numbered the articles.
    await sql`create table search_tokens (x integer)`.execute(db.kysely);
    await assert.rejects(migrateToLatest(db), /search_tokens/);
    const columns = async () =>
      (await db.kysely.introspection.getTables())
        .find((table) => table.name === 'articles')!
        .columns.map((c) => c.name);
    assert.ok(!(await columns()).includes('ordinal'));
    await sql`drop table search_tokens`.execute(db.kysely);
    assert.deepEqual(await migrateToLatest(db), migrationsFrom('0010-article-sets'));
    assert.ok((await columns()).includes('ordinal'));
    const { key } = await createApiKey(db, 'old', { kind: 'secret' });
    const app = await buildApp({ db });
    cleanups.unshift(() => app.close());
    const response = await getJson(app, '/v1/articles?search=kept', { 'x-api-key': key });
    assert.equal(response.body.meta.total, 1);
  });
}

for (const dialect of configuredDialects()) {
  test(`migration 0014 [${dialect}]: tags stored before it get slugs from their names, unique per project, and are found by them`, async () => {
    const db = await emptyDatabase(dialect);
    await migrateBefore(db, '0014');
    const old = db.kysely as Kysely<any>;
    const keys: Record<string, string> = {};
    for (const slug of ['old', 'other']) {
      const project = await oldProject(db, slug, slug);
      const tag = (name: string, minute: number) => ({
        id: `${slug}-${name}`,
        project_id: project.id,
        name,
        name_key: name.toLowerCase(),
        color: null,
        icon: null,
        created_at: `2026-01-01T00:0${minute}:00.000Z`,
        updated_at: `2026-01-01T00:0${minute}:00.000Z`,
      });
      // "Safety: Weather" is the younger of the two names deriving safety-weather.
      await old
        .insertInto('tags')
        .values([tag('Safety: Weather', 2), tag('Safety Weather', 1), tag('Café', 3)])
        .execute();
    }

    assert.deepEqual(await migrateToLatest(db), migrationsFrom('0014-tag-slugs'));
    for (const slug of ['old', 'other']) keys[slug] = (await createApiKey(db, slug, { kind: 'secret' })).key;
    const app = await buildApp({ db });
    cleanups.unshift(() => app.close());
    for (const slug of ['old', 'other']) {
      const headers = { 'x-api-key': keys[slug] };
      const list = await getJson(app, '/v1/tags', headers);
      assert.deepEqual(
        list.body.data.map((tag: { name: string; slug: string }) => [tag.name, tag.slug]),
        [
          ['Café', 'cafe'],
          ['Safety Weather', 'safety-weather'],
          ['Safety: Weather', 'safety-weather-2'],
        ],
      );
      for (const [path, name] of [
        ['safety-weather', 'Safety Weather'],
        ['safety-weather-2', 'Safety: Weather'],
        ['cafe', 'Café'],
        ['Caf%C3%A9', 'Café'],
      ]) {
        const one = await getJson(app, `/v1/tags/${path}`, headers);
        assert.equal(one.status, 200, path);
        assert.equal(one.body.data.name, name);
      }
    }
    // The next import's new tag takes the next free slug of its project.
    const [project] = await db.kysely.selectFrom('projects').selectAll().where('slug', '=', 'old').execute();
    await importArticles(db, project, [articleInput({ slug: 'one', tags: ['Safety -- Weather'] })]);
    const added = await getJson(app, '/v1/tags/safety-weather-3', { 'x-api-key': keys['old'] });
    assert.equal(added.body.data?.name, 'Safety -- Weather');
  });
}
