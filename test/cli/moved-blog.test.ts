// The CLI a blogger moving in uses: projects create/update with the site's settings, delete (only
// with --yes), and import with --site-url, --strict, --format and a summary of warnings by kind.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { filesText, warningsLine } from '../../src/cli/import-command.ts';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { factoryRow, insertRawPageViews } from '../analytics/support.ts';
import { articleInput, createTestDatabase, createTestKey, importArticles, postgresUrl } from '../helpers.ts';
import { createProject } from '../../src/projects/service.ts';
import { newDatabase, runCli, tempDir } from './support.ts';

const drops: Array<() => Promise<void>> = [];
after(async () => {
  for (const drop of drops) await drop();
});

/** A new database of each configured kind, as the CLI's DATABASE_URL. */
const databases: Array<{ name: string; url: () => Promise<string> }> = [
  { name: 'sqlite', url: async () => newDatabase() },
  ...(postgresUrl === null
    ? []
    : [
        {
          name: 'postgres',
          url: async () => {
            const database = await createTestDatabase('postgres', { migrate: false });
            drops.push(() => database.drop());
            return database.url;
          },
        },
      ]),
];

async function json(url: string, ...args: string[]): Promise<any> {
  const result = await runCli(url, ...args, '--json');
  assert.equal(result.code, 0, `folio ${args.join(' ')}: ${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout);
}

async function withDb<T>(url: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = openDatabase(url);
  try {
    await migrateToLatest(db);
    return await work(db);
  } finally {
    await db.close();
  }
}

function folder(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, ...name.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return dir;
}

const settingsOf = (project: any) => [
  project.siteUrl,
  project.urlPattern,
  project.timeZone,
  project.defaultAuthor,
  project.logoUrl,
];

for (const { name, url: newUrl } of databases) {
  describe(`folio projects and import for a moved blog [${name}]`, { concurrency: 3 }, () => {
    test("projects create takes the site settings; update changes only what is given, '' clears", async () => {
      const url = await newUrl();
      const created = await json(
        url,
        ...['projects', 'create', '--name', 'Harbour', '--slug', 'harbour'],
        ...['--site-url', 'https://notes.example.org', '--url-pattern', '/:year/:month/:slug/'],
        ...[
          '--time-zone',
          'Europe/Lisbon',
          '--author',
          'Rosa Quental',
          '--author-image',
          'https://img.example.org/rosa.jpg',
        ],
        ...['--logo-url', 'https://notes.example.org/logo.png'],
      );
      assert.deepEqual(settingsOf(created), [
        'https://notes.example.org',
        '/:year/:month/:slug/',
        'Europe/Lisbon',
        { name: 'Rosa Quental', image: 'https://img.example.org/rosa.jpg' },
        'https://notes.example.org/logo.png',
      ]);

      // The picture alone changes the default author's picture; nothing else moves.
      const pictureCleared = await json(
        url,
        'projects',
        'update',
        'harbour',
        '--author-image',
        '',
        '--name',
        'Harbour Notes',
      );
      assert.equal(pictureCleared.name, 'Harbour Notes');
      assert.deepEqual(settingsOf(pictureCleared), [
        'https://notes.example.org',
        '/:year/:month/:slug/',
        'Europe/Lisbon',
        { name: 'Rosa Quental', image: null },
        'https://notes.example.org/logo.png',
      ]);

      const cleared = await json(
        url,
        ...['projects', 'update', 'harbour', '--site-url', '', '--url-pattern', '', '--time-zone', ''],
        ...['--author', '', '--logo-url', ''],
      );
      assert.deepEqual(settingsOf(cleared), [null, '/:slug', 'UTC', null, null]);

      const refused = await runCli(
        url,
        'projects',
        'update',
        'harbour',
        '--url-pattern',
        '/posts/:id',
        '--time-zone',
        'Mars/Base',
        '--json',
      );
      assert.equal(refused.code, 1);
      const error = JSON.parse(refused.stdout);
      assert.deepEqual(
        error.issues.map((issue: { field: string }) => issue.field),
        ['urlPattern', 'timeZone'],
      );
      const [project] = await json(url, 'projects', 'list');
      assert.deepEqual(settingsOf(project), [null, '/:slug', 'UTC', null, null]);
    });

    test('projects delete refuses without --yes, saying what it would delete, and deletes everything with it', async () => {
      const url = await newUrl();
      await withDb(url, async (db) => {
        const project = await createProject(db, { name: 'Gone', slug: 'gone' });
        await createProject(db, { name: 'Stays', slug: 'stays' });
        await importArticles(db, project, [
          articleInput({ slug: 'a', tags: ['One'] }),
          articleInput({ slug: 'b', tags: ['One', 'Two'] }),
        ]);
        await createTestKey(db, project);
        const article = await db.kysely
          .selectFrom('articles')
          .select('id')
          .where('slug', '=', 'a')
          .executeTakeFirstOrThrow();
        await insertRawPageViews(
          db.kysely,
          [0, 1, 2].map((i) => ({ ...factoryRow(project, { slug: 'a' }, i), article_id: article.id })),
        );
      });
      const contents = { articles: 2, tags: 2, keys: 1, pageViews: 3 };

      const refused = await runCli(url, 'projects', 'delete', 'gone');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /would delete 2 articles, 2 tags, 1 API keys and 3 page views.*--yes/);
      const refusedJson = await runCli(url, 'projects', 'delete', 'gone', '--json');
      assert.deepEqual(JSON.parse(refusedJson.stdout).wouldDelete, contents);
      assert.equal((await json(url, 'projects', 'list')).length, 2);

      assert.deepEqual(await json(url, 'projects', 'delete', 'gone', '--yes'), {
        deleted: 'gone',
        ...contents,
      });
      assert.deepEqual(
        (await json(url, 'projects', 'list')).map((p: { slug: string }) => p.slug),
        ['stays'],
      );
      const left = await withDb(url, async (db) =>
        Promise.all(
          (['articles', 'tags', 'api_keys', 'page_view_rows'] as const).map(async (table) =>
            Number(
              (
                await db.kysely
                  .selectFrom(table)
                  .select((eb) => eb.fn.countAll().as('n'))
                  .executeTakeFirstOrThrow()
              ).n,
            ),
          ),
        ),
      );
      assert.deepEqual(left, [0, 0, 0, 0]);
    });

    test('import --site-url fills the project site URL, counts warnings by kind, and --strict refuses them', async () => {
      const url = await newUrl();
      await json(url, 'projects', 'create', '--name', 'Blog', '--slug', 'blog');
      const site = folder({
        'one.md': '---\ntitle: One\npublishedAt: 2024-01-01T00:00:00Z\n---\nOne.\n',
        'two.md': '---\ntitle: Two\npublishedAt: 2024-01-02T00:00:00Z\n---\nTwo.\n',
      });

      const strict = await runCli(
        url,
        'import',
        '--project',
        'blog',
        site,
        '--strict',
        '--site-url',
        'https://blog.example.com',
      );
      assert.equal(strict.code, 1);
      assert.match(strict.stderr, /^one\.md:1: no author/m);
      assert.match(strict.stderr, /Import refused: 2 problem\(s\); nothing was written/);
      assert.equal((await json(url, 'projects', 'list'))[0].siteUrl, null);

      const imported = await runCli(
        url,
        'import',
        '--project',
        'blog',
        site,
        '--site-url',
        'https://blog.example.com/',
      );
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /^2 created, .* 2 warning\(s\)\.$/m);
      assert.match(imported.stdout, /^warnings: default-author 2$/m);
      assert.match(imported.stdout, /^project settings taken from the site: siteUrl$/m);
      assert.match(imported.stderr, /^warning: two\.md:1: no author/m);
      assert.equal((await json(url, 'projects', 'list'))[0].siteUrl, 'https://blog.example.com');

      const again = await json(
        url,
        'import',
        '--project',
        'blog',
        site,
        '--site-url',
        'https://other.example.com',
      );
      assert.deepEqual(again.warningsByKind, { 'default-author': 2, 'project-setting-kept': 1 });
    });

    test('import refuses an unknown --format and a --site-url that is no http(s) URL', async () => {
      const url = await newUrl();
      await json(url, 'projects', 'create', '--name', 'Blog', '--slug', 'blog');
      const site = folder({ 'one.md': '---\ntitle: One\n---\nOne.\n' });
      const format = await runCli(url, 'import', '--project', 'blog', site, '--format', 'wordpress');
      assert.equal(format.code, 1);
      assert.match(
        format.stderr,
        /Allowed choices are folio, hugo, jekyll, eleventy, astro, nextjs, docusaurus/,
      );
      const siteUrl = await runCli(
        url,
        'import',
        '--project',
        'blog',
        site,
        '--site-url',
        'blog.example.com',
      );
      assert.equal(siteUrl.code, 1);
      assert.match(siteUrl.stderr, /--site-url 'blog\.example\.com' is not an absolute http\(s\) URL/);
    });
  });
}

test('the import summary lists warnings by kind and the files not imported with their reasons', () => {
  assert.equal(
    warningsLine({ 'unknown-shortcode': 1, 'default-author': 5 }),
    'default-author 5, unknown-shortcode 1',
  );
  assert.equal(
    filesText([
      { file: 'content/posts/a.md', kind: 'post' },
      { file: 'content/_index.md', kind: 'page', reason: 'a section list page' },
      { file: 'content/drafts/b.md', kind: 'draft' },
      { file: 'static/notes.txt', kind: 'skipped', reason: 'not Markdown' },
    ]),
    '\nfiles: 4 (post 1, page 1, draft 1, skipped 1)\n  page: content/_index.md (a section list page)\n  skipped: static/notes.txt (not Markdown)',
  );
  assert.equal(filesText(undefined), '');
});
