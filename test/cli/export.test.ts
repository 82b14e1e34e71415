// `folio export --project P DIR` then `folio import` of DIR into a new project gives the same
// articles and tags: every field the API selects, and the stored SEO, compared article by article.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { readContentSource } from '../../src/content/import/read-source.ts';
import { importContent } from '../../src/content/import.ts';
import { selectableFields } from '../../src/content/schemas.ts';
import type { Db } from '../../src/db/database.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  getJson,
  importArticles,
  type TestDatabase,
  type TestProject,
} from '../helpers.ts';
import { root, runCli, tempDir } from './support.ts';

const everyField = encodeURIComponent(
  JSON.stringify(Object.fromEntries(selectableFields.map((f) => [f, true]))),
);

/** Every article of the project as the API shows it, by slug, without what a new project renumbers. */
async function articlesOf(app: FastifyInstance, db: Db, project: TestProject) {
  const found: Record<string, unknown> = {};
  for (let page = 1; ; page++) {
    const { status, body } = await getJson(
      app,
      `/v1/articles?limit=100&page=${page}&sort=title&select=${everyField}`,
      project.headers,
    );
    assert.equal(status, 200, JSON.stringify(body));
    for (const { id: _id, viewCount: _views, project: _project, tags, variants, ...article } of body.data) {
      const row = await db.kysely
        .selectFrom('articles')
        .select(['seo', 'storage_bytes', 'guid', 'section'])
        .where('id', '=', _id)
        .executeTakeFirstOrThrow();
      found[article.slug] = {
        ...article,
        tags: tags.map(({ id: _tagId, ...tag }: { id: string }) => tag),
        variants: variants.map(({ id: _variantId, ...variant }: { id: string }) => variant),
        seo: row.seo === null ? null : JSON.parse(row.seo),
        storageBytes: Number(row.storage_bytes),
        guid: row.guid,
        section: row.section,
      };
    }
    if (page >= body.meta.totalPages) break;
  }
  return found;
}

async function tagsOf(app: FastifyInstance, project: TestProject) {
  const { status, body } = await getJson(app, '/v1/tags?limit=100', project.headers);
  assert.equal(status, 200, JSON.stringify(body));
  return body.data.map(({ id: _id, createdAt: _c, updatedAt: _u, ...tag }: Record<string, unknown>) => tag);
}

/** Exports `source` with the CLI, imports the folder into a new project with the CLI, compares. */
async function roundTrip(database: TestDatabase, app: FastifyInstance, source: TestProject) {
  const dir = join(tempDir(), 'export');
  const exported = await runCli(database.url, 'export', '--project', source.project.slug, dir, '--json');
  assert.equal(exported.code, 0, exported.stderr);
  const summary = JSON.parse(exported.stdout);
  const target = await createTestProject(database.db);
  const imported = await runCli(
    database.url,
    'import',
    '--project',
    target.project.slug,
    dir,
    '--json',
    '--strict',
  );
  assert.equal(imported.code, 0, imported.stderr + imported.stdout);
  const before = await articlesOf(app, database.db, source);
  assert.equal(summary.articles, Object.keys(before).length);
  assert.ok(summary.articles > 0);
  assert.deepEqual(await articlesOf(app, database.db, target), before);
  assert.deepEqual(await tagsOf(app, target), await tagsOf(app, source));
  return { dir, summary };
}

const tricky = [
  'yes',
  'null',
  '~',
  '123',
  '- not a list',
  '@at',
  '*star',
  '# hash',
  'a: colon',
  'it\'s "quoted"',
  'émoji 🦋 and 中文',
  '---',
];

for (const dialect of configuredDialects()) {
  let database: TestDatabase;
  let app: FastifyInstance;
  after(async () => {
    await app?.close();
    await database?.drop();
  });

  test(`export [${dialect}]: the demo content exported and imported into a new project gives identical articles and tags`, async () => {
    database = await createTestDatabase(dialect);
    app = await buildApp({ db: database.db });
    const source = await createTestProject(database.db);
    await importContent(
      database.db,
      source.project.slug,
      await readContentSource(join(root, 'examples', 'content')),
    );
    const { dir } = await roundTrip(database, app, source);
    const settings = await readFile(join(dir, 'project.yaml'), 'utf8');
    assert.match(settings, new RegExp(`^slug: ${source.project.slug}$`, 'm'));
  });

  test(`export [${dialect}]: a generated project with every field and awkward values survives the round trip`, async () => {
    const source = await createTestProject(database.db);
    const future = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const articles = tricky.map((text, i) =>
      articleInput({
        slug: `tricky-${i}`,
        title: text === '---' ? 'three dashes' : text,
        excerpt: i % 2 ? `${text}\nsecond line` : null,
        coverImage: i % 3 ? `https://images.example.com/${i}.png` : null,
        status: (['draft', 'published', 'archived'] as const)[i % 3],
        publishedAt: i % 3 === 1 && i % 2 ? future : '2026-02-03T04:05:06.789Z',
        createdAt: `2026-01-${String(i + 1).padStart(2, '0')}T00:00:00.000Z`,
        updatedAt: '2026-03-01T12:00:00.000Z',
        author: { name: `${text} author`, image: i % 2 ? null : 'https://images.example.com/a.png' },
        lastUpdatedBy: i % 2 ? { name: 'Editor', image: null } : null,
        tags: i % 4 ? [`Tag ${i % 3}`, 'Shared, with comma'] : [],
        seo:
          i % 2
            ? {
                metaTitle: text,
                metaDescription: null,
                ogImage: null,
                canonicalUrl: null,
                keywords: [text, 'k'],
              }
            : null,
        variants:
          i % 3 === 0
            ? [
                { key: 'short', title: text, excerpt: null, content: `  indented\n\ttab\ntrailing  \n\n` },
                { key: 'b-empty', title: null, excerpt: 'x', content: '' },
              ]
            : [],
        content: [
          `\nstarts with a blank line: ${text}`,
          `---\nlooks like a fence\n+++\n  indented\ntrailing space  \n\n\n`,
          '',
          `# ${text}\n\nno final newline`,
        ][i % 4],
        // Where a moved-in article lives, who wrote it and who may read it: kept by the round trip.
        path: i % 2 ? `/${2020 + i}/posts/tricky-${i}/` : null,
        section: i % 3 ? 'posts' : null,
        aliases: i % 2 ? [`/old/${i}/`, `/older/${i}.html`] : [],
        guid: i % 2 ? `https://old.example.org/p/${i}/` : null,
        visibility: (['public', 'members', 'paid'] as const)[i % 3],
        tiers: i % 3 === 2 ? ['supporter', `tier ${text}`] : [],
        authors:
          i % 4 === 1
            ? [
                {
                  name: `${text} author`,
                  slug: `a-${i}`,
                  image: null,
                  title: 'Editor',
                  url: 'https://old.example.org/a/',
                },
                {
                  name: 'Second',
                  slug: 'second',
                  image: 'https://images.example.com/s.png',
                  title: null,
                  url: null,
                },
              ]
            : undefined,
        coverImageAlt: i % 3 ? `alt of ${text}` : null,
      }),
    );
    articles.push(articleInput({ slug: '2024-01-15-jekyll-like', status: 'draft', publishedAt: null }));
    await importArticles(database.db, source.project, articles, [
      { name: 'Unused tag', color: '#123456', icon: 'star' },
      { name: 'Tag 1', color: null, icon: 'one' },
    ]);
    const { summary } = await roundTrip(database, app, source);
    assert.equal(summary.articles, tricky.length + 1);
    assert.deepEqual(summary.lossy, []);
  });

  test(`export [${dialect}]: a folder that is not empty, or an unknown project, is refused`, async () => {
    const source = await createTestProject(database.db);
    const dir = tempDir();
    await runCli(database.url, 'migrate');
    const full = await runCli(database.url, 'export', '--project', source.project.slug, dir);
    assert.equal(full.code, 0, full.stderr);
    const again = await runCli(database.url, 'export', '--project', source.project.slug, dir);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /^folio: .*not empty.*\n$/);
    const unknown = await runCli(
      database.url,
      'export',
      '--project',
      'no-such-project',
      join(tempDir(), 'x'),
    );
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /^folio: Project 'no-such-project' not found\n$/);
  });
}
