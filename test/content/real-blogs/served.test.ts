// Each real-blog fixture (test/content/fixtures/real-blogs) imported into a project and read back
// through the API, as a front end and a feed reader see it: every article's URL, path, former
// paths, authors and visibility; the RSS item of every published post with the link and feed id
// the old site's feed had; what a public key reads of a members-only post; its JSON-LD. The
// reading stage (file report, dates, warnings) is compared in test/content/import/real-blogs/.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../../src/app.ts';
import { importContent } from '../../../src/content/import.ts';
import { readContentSource } from '../../../src/content/import/read-source.ts';
import type { ReadOptions } from '../../../src/content/import/records.ts';
import {
  configuredDialects,
  createTestDatabase,
  createTestKey,
  createTestProject,
  getJson,
} from '../../helpers.ts';

interface Strings {
  mustContain?: string[];
  mustNotContain?: string[];
}

interface ExpectedFile {
  file: string;
  kind: string;
  status?: string;
  slug?: string;
  path?: string;
  url?: string;
  guid?: string;
  publishedAt?: string;
  aliases?: string[];
  authors?: unknown[];
  visibility?: string;
  rss?: Strings;
  publicContent?: Strings;
  jsonLd?: Record<string, unknown>;
}

interface Expected {
  importOptions?: { siteUrl?: string };
  files: ExpectedFile[];
}

/** The fixtures whose layout Folio reads; each is imported whole. */
const FIXTURES = [
  'ghost',
  'hugo',
  'jekyll',
  'eleventy',
  'astro',
  'docusaurus',
  'nextjs/tailwind-starter',
  'nextjs/blog-starter',
];

function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../fixtures/real-blogs/${name}`, import.meta.url));
}

async function sourcePath(name: string): Promise<string> {
  return name === 'ghost' ? `${fixturePath(name)}/export.json` : fixturePath(name);
}

function checkStrings(text: string, strings: Strings | undefined, what: string): void {
  for (const s of strings?.mustContain ?? [])
    assert.ok(text.includes(s), `${what} lacks ${JSON.stringify(s)}:\n${text}`);
  for (const s of strings?.mustNotContain ?? [])
    assert.ok(!text.includes(s), `${what} holds ${JSON.stringify(s)}:\n${text}`);
}

/** The RSS items by guid, each with its whole text. */
function rssItems(xml: string): Map<string, string> {
  const items = new Map<string, string>();
  for (const [item] of xml.matchAll(/<item>[\s\S]*?<\/item>/g)) {
    const guid = /<guid isPermaLink="false">([^<]*)<\/guid>/.exec(item)?.[1];
    if (guid !== undefined) items.set(guid.replace(/&amp;/g, '&'), item);
  }
  return items;
}

const SELECT = encodeURIComponent(
  JSON.stringify({ url: true, path: true, aliases: true, authors: true, visibility: true }),
);

/** Whether the post is in the feed now; undefined when its date comes from the file system or Git (fileTimes). */
function isLive(file: ExpectedFile): boolean | undefined {
  if (file.status !== 'published') return false;
  const at = Date.parse(file.publishedAt ?? '');
  return Number.isNaN(at) ? undefined : at <= Date.now();
}

for (const dialect of configuredDialects()) {
  for (const name of FIXTURES) {
    test(`a ${name} blog moved in [${dialect}]: URLs, former paths, authors, visibility, feed items and ids as the old site had them`, async (t) => {
      const expected = JSON.parse(await readFile(`${fixturePath(name)}/expected.json`, 'utf8')) as Expected;
      const database = await createTestDatabase(dialect);
      t.after(() => database.drop());
      const { project, headers } = await createTestProject(database.db);
      const publicKey = await createTestKey(database.db, project, { kind: 'public' });
      const options: ReadOptions = expected.importOptions?.siteUrl
        ? { siteUrl: expected.importOptions.siteUrl }
        : {};
      const source = await readContentSource(await sourcePath(name), options);
      await importContent(database.db, project.slug, source, { siteUrl: options.siteUrl });
      const app = await buildApp({ db: database.db });
      t.after(() => app.close());

      const rss = await app.inject({ method: 'GET', url: '/v1/seo/rss?limit=100', headers });
      assert.equal(rss.statusCode, 200, rss.body);
      const items = rssItems(rss.body);
      const articles = expected.files.filter((file) => file.slug !== undefined && file.kind !== 'page');
      for (const file of articles) {
        const read = await getJson(app, `/v1/articles/${file.slug}?select=${SELECT}`, headers);
        assert.equal(read.status, 200, `${file.file}: ${JSON.stringify(read.body)}`);
        const article = read.body.data;
        if (file.url !== undefined) assert.equal(article.url, file.url, file.file);
        // A null path is the reading stage's "no path of its own": the API then gives the pattern's.
        if (typeof file.path === 'string') assert.equal(article.path, file.path, file.file);
        if (file.aliases !== undefined) assert.deepEqual(article.aliases, file.aliases, file.file);
        if (file.authors !== undefined) assert.deepEqual(article.authors, file.authors, file.file);
        assert.equal(article.visibility, file.visibility ?? 'public', file.file);

        const item = file.guid === undefined ? undefined : items.get(file.guid);
        const live = isLive(file);
        if (live === true || (live === undefined && item !== undefined)) {
          assert.ok(item !== undefined, `${file.file}: no RSS item with guid ${file.guid}`);
          if (file.url !== undefined)
            assert.ok(item.includes(`<link>${file.url}</link>`), `${file.file}: ${item}`);
          checkStrings(item, file.rss, `${file.file} RSS item`);
        } else if (live === false) {
          assert.equal(item, undefined, `${file.file} is not live yet it is in the feed`);
        }
        if (file.publicContent !== undefined && live === true) {
          const asPublic = await getJson(app, `/v1/articles/${file.slug}`, publicKey.headers);
          checkStrings(asPublic.body.data.content, file.publicContent, `${file.file} public content`);
        }
        if (file.jsonLd !== undefined) {
          const seo = await getJson(app, `/v1/seo/article/${file.slug}`, headers);
          const jsonLd = seo.body.data.seo.structuredData;
          for (const [key, value] of Object.entries(file.jsonLd))
            assert.deepEqual(jsonLd[key], value, `${file.file} ${key}`);
        }
      }
    });
  }
}
