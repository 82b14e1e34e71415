// A Ghost 5 export as a real blog has it (test/content/fixtures/real-blogs/ghost), compared with
// what Ghost itself publishes (its expected.json): every post's report line, status, URL, feed id,
// dates, excerpt, authors, tags, visibility and tiers, cover image, content, the warnings with
// their kind and line, and the summary by kind; then imported into a project, end to end.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { articleUrl } from '../../../src/content/article-url.ts';
import { MEMBERS_ONLY_MARKER } from '../../../src/content/import/ghost-html.ts';
import { readContentSource } from '../../../src/content/import/read-source.ts';
import type { ArticleInput, ContentSource, ImportProblem } from '../../../src/content/import/records.ts';
import { importContent } from '../../../src/content/import.ts';
import { createTestProject, describeEachDialect, getJson } from '../../helpers.ts';

const root = fileURLToPath(new URL('../fixtures/real-blogs/ghost/', import.meta.url));
const exportFile = join(root, 'export.json');

interface Strings {
  mustContain?: string[];
  mustNotContain?: string[];
}
interface ExpectedWarning {
  kind: string;
  at: string;
}
interface ExpectedFile {
  file: string;
  kind: string;
  reason?: string;
  status?: string;
  slug?: string;
  path?: string;
  url?: string;
  guid?: string;
  publishedAt?: string | null;
  updatedAt?: string;
  createdAt?: string;
  excerpt?: string | null;
  seo?: Record<string, string>;
  authors?: { name: string; slug: string; image: string | null; title: string | null; url: string | null }[];
  tags?: { name: string; slug: string }[];
  visibility?: string;
  tiers?: { slug: string; name: string }[] | null;
  coverImage?: string | null;
  coverImageAlt?: string;
  aliases?: string[];
  content?: Strings;
  publicContent?: Strings;
  warnings?: ExpectedWarning[];
}
interface Expected {
  importOptions: { siteUrl: string };
  settings: Record<string, { value: unknown }>;
  files: ExpectedFile[];
  summary: {
    files: number;
    posts: number;
    drafts: number;
    pages: number;
    scheduledAmongPosts: number;
    warningsByKind: Record<string, number>;
  };
}

const expected = JSON.parse(readFileSync(join(root, 'expected.json'), 'utf8')) as Expected;
const articleFiles = expected.files.filter((file) => file.kind === 'post' || file.kind === 'draft');

const at = (warning: ImportProblem): ExpectedWarning => ({
  kind: warning.kind ?? '',
  at: `${warning.file}:${warning.line}`,
});
const byAt = (a: ExpectedWarning, b: ExpectedWarning) =>
  a.at.localeCompare(b.at) || a.kind.localeCompare(b.kind);

/** The part of the content a public key may read: before the members-only divider. */
function teaser(content: string): string {
  const index = content.indexOf(MEMBERS_ONLY_MARKER);
  return index === -1 ? '' : content.slice(0, index);
}

function assertStrings(text: string, strings: Strings | undefined, what: string): void {
  for (const wanted of strings?.mustContain ?? [])
    assert.ok(text.includes(wanted), `${what} holds ${wanted}`);
  for (const unwanted of strings?.mustNotContain ?? []) {
    assert.ok(!text.includes(unwanted), `${what} does not hold ${unwanted}`);
  }
}

describe('A Ghost 5 export read as Ghost publishes it', () => {
  let source: ContentSource;
  const article = (slug: string) => source.articles.find((a) => a.slug === slug)!;
  before(async () => {
    source = await readContentSource(exportFile, { siteUrl: expected.importOptions.siteUrl });
  });

  test('the site settings: the given site URL, Ghost’s /{slug}/ route, the time zone and logo', () => {
    assert.equal(source.generator, 'ghost');
    for (const [name, setting] of Object.entries(expected.settings)) {
      assert.deepEqual(source.settings?.[name as keyof ContentSource['settings']], setting.value, name);
    }
  });

  test('every post and page of the export is in the report, as a post, a draft or a page', () => {
    assert.deepEqual(
      source.files,
      expected.files.map(({ file, kind, reason }) => ({ file, kind, ...(reason ? { reason } : {}) })),
    );
    assert.deepEqual(
      source.articles.map((a) => a.file),
      articleFiles.map((file) => file.file),
    );
  });

  test('each post keeps its slug, status, path, URL, feed id and dates', () => {
    const settings = { url_pattern: source.settings!.urlPattern!, time_zone: source.settings!.timeZone! };
    for (const file of articleFiles) {
      const a = article(file.slug!);
      const scheduled = a.status === 'published' && a.publishedAt! > new Date().toISOString();
      assert.equal(scheduled ? 'scheduled' : a.status, file.status, file.slug);
      assert.equal(a.path, file.path, file.slug);
      if (file.url !== undefined) {
        const row = { slug: a.slug, path: a.path!, published_at: a.publishedAt, created_at: a.createdAt! };
        assert.equal(articleUrl(source.settings!.siteUrl!, settings, row), file.url, file.slug);
      }
      assert.equal(a.guid, file.guid, file.slug);
      assert.equal(a.publishedAt, file.publishedAt, file.slug);
      assert.equal(a.updatedAt, file.updatedAt, file.slug);
      if (file.createdAt !== undefined) assert.equal(a.createdAt, file.createdAt, file.slug);
      assert.deepEqual(a.aliases ?? [], file.aliases ?? [], file.slug);
    }
  });

  test('each post keeps its excerpt, SEO fields, cover image, authors in order and public tags with their slugs', () => {
    const tagSlugs = new Map(source.tags.map((tag) => [tag.name, tag.slug]));
    for (const file of articleFiles) {
      const a: ArticleInput = article(file.slug!);
      if (file.excerpt !== undefined) assert.equal(a.excerpt, file.excerpt, file.slug);
      for (const [field, value] of Object.entries(file.seo ?? {})) {
        assert.equal(a.seo?.[field as 'metaTitle'], value, `${file.slug} seo.${field}`);
      }
      if (file.coverImage !== undefined) assert.equal(a.coverImage, file.coverImage, file.slug);
      assert.equal(a.coverImageAlt ?? null, file.coverImageAlt ?? null, `${file.slug} coverImageAlt`);
      if (file.authors !== undefined) {
        assert.deepEqual(a.authors, file.authors, file.slug);
        // `author` is the primary one: the first of posts_authors.
        assert.deepEqual(a.author, { name: file.authors[0].name, image: file.authors[0].image }, file.slug);
      }
      if (file.tags !== undefined) {
        assert.deepEqual(
          a.tags.map((name) => ({ name, slug: tagSlugs.get(name) })),
          file.tags,
          file.slug,
        );
      }
    }
    assert.ok(!source.tags.some((tag) => tag.name.startsWith('#')), 'no internal tag is imported');
  });

  test('members, paid and tier posts keep their visibility and tiers, and their divider where Ghost cut the public part', () => {
    for (const file of articleFiles) {
      const a = article(file.slug!);
      if (file.visibility !== undefined) assert.equal(a.visibility, file.visibility, file.slug);
      if (file.tiers !== undefined) {
        assert.deepEqual(
          a.tiers,
          (file.tiers ?? []).map((tier) => tier.slug),
          file.slug,
        );
      }
      assertStrings(a.content, file.content, `${file.slug} content`);
      assertStrings(teaser(a.content), file.publicContent, `${file.slug} public part`);
    }
  });

  test('the warnings are those Ghost’s publishing implies, each with its kind and line, and the summary counts them', () => {
    const wanted = expected.files.flatMap((file) => file.warnings ?? []);
    assert.deepEqual(
      (source.warnings ?? []).map(at).sort(byAt),
      wanted.map(({ kind, at: where }) => ({ kind, at: where })).sort(byAt),
    );
    const kinds = (list: { kind?: string }[]) =>
      list.reduce<Record<string, number>>((counts, { kind }) => {
        counts[kind!] = (counts[kind!] ?? 0) + 1;
        return counts;
      }, {});
    assert.deepEqual(kinds(source.warnings ?? []), expected.summary.warningsByKind);

    const files = source.files ?? [];
    const now = new Date().toISOString();
    assert.deepEqual(
      {
        files: files.length,
        posts: files.filter((f) => f.kind === 'post').length,
        drafts: files.filter((f) => f.kind === 'draft').length,
        pages: files.filter((f) => f.kind === 'page').length,
        scheduledAmongPosts: source.articles.filter((a) => a.status === 'published' && a.publishedAt! > now)
          .length,
      },
      {
        files: expected.summary.files,
        posts: expected.summary.posts,
        drafts: expected.summary.drafts,
        pages: expected.summary.pages,
        scheduledAmongPosts: expected.summary.scheduledAmongPosts,
      },
    );
  });
});

describeEachDialect('A Ghost 5 export imported into a project', (ctx) => {
  test('the articles are stored with their paths, feed ids, visibility, tiers, authors and dates, and a re-import keeps them', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: expected.importOptions.siteUrl });
    const source = await readContentSource(exportFile, { siteUrl: expected.importOptions.siteUrl });
    const summary = await importContent(ctx.db, project.slug, source, {
      now: new Date('2026-11-01T00:00:00Z'),
    });
    assert.deepEqual(
      summary.changes.created,
      articleFiles.map((file) => file.slug),
    );
    const stored = async () =>
      ctx.db.kysely
        .selectFrom('articles')
        .select([
          'slug',
          'path',
          'guid',
          'visibility',
          'tiers',
          'authors',
          'author_name',
          'created_at',
          'updated_at',
        ])
        .where('project_id', '=', project.id)
        .orderBy('slug')
        .execute();
    const rows = await stored();
    for (const file of articleFiles) {
      const row = rows.find((r) => r.slug === file.slug)!;
      assert.equal(row.path, file.path, file.slug);
      assert.equal(row.guid, file.guid, file.slug);
      assert.equal(row.visibility, file.visibility ?? 'public', file.slug);
      assert.deepEqual(
        JSON.parse(row.tiers),
        (file.tiers ?? []).map((tier) => tier.slug),
        file.slug,
      );
      if (file.authors !== undefined) {
        assert.deepEqual(JSON.parse(row.authors), file.authors, file.slug);
        assert.equal(row.author_name, file.authors[0].name, file.slug);
      }
      assert.equal(new Date(row.updated_at).toISOString(), file.updatedAt, file.slug);
      if (file.createdAt !== undefined) {
        assert.equal(new Date(row.created_at).toISOString(), file.createdAt, file.slug);
      }
    }

    const list = await getJson(
      ctx.app,
      '/v1/articles?limit=20&select={"status":true,"publishedAt":true}',
      headers,
    );
    assert.equal(list.status, 200);
    assert.deepEqual(
      Object.fromEntries(list.body.data.map((a: { slug: string; status: string }) => [a.slug, a.status])),
      Object.fromEntries(articleFiles.map((file) => [file.slug, file.status])),
    );
    const one = await getJson(
      ctx.app,
      '/v1/articles/caledonian-sleeper?select={"html":true,"author":true,"coverImage":true}',
      headers,
    );
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data.author, {
      name: 'Callum Reid',
      image: 'https://images.example.net/callum.png',
    });
    assert.equal(
      one.body.data.coverImage,
      'https://gazette.example.net/content/images/2024/06/highlands.jpg',
    );
    assert.match(
      one.body.data.html,
      /<img src="https:\/\/gazette\.example\.net\/content\/images\/2024\/06\/berth\.jpg"/,
    );

    // Feed ids and dates are fixed once stored: an unchanged re-import changes nothing.
    const again = await importContent(ctx.db, project.slug, source, {
      now: new Date('2026-11-02T00:00:00Z'),
    });
    assert.equal(again.unchanged, articleFiles.length);
    assert.deepEqual(await stored(), rows);
  });
});
