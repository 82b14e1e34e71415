// Reads a real-blog fixture (test/content/fixtures/real-blogs/<generator>) with readContentSource
// and compares what the reading stage holds with the fixture's expected.json: the file report,
// settings, each article's fields, warnings (kind and file:line) and the summary's counts.
//
// Left to the serving stage (checked by the import and SEO tests, not here): `url` when the site
// URL comes from the import's options rather than the source, `createdAt`/`updatedAt` when the
// source has none (the store defaults them to publishedAt, which is what is compared here), the
// RSS item (`rss`), the content a public key reads (`publicContent`) and tag slugs made unique
// within a project (-2 …). The fixture's own expected.json is not part of the site.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readContentSource } from '../../../../src/content/import/read-source.ts';
import type {
  ArticleInput,
  ContentSource,
  ImportProblem,
  ReadOptions,
} from '../../../../src/content/import/records.ts';
import { slugOfTagName } from '../../../../src/content/tag-slugs.ts';

export interface ExpectedFile {
  file: string;
  kind: string;
  status?: string;
  reason?: string;
  [field: string]: unknown;
}

export interface Expected {
  generator: string;
  importOptions?: Record<string, unknown>;
  settings: Record<string, { value: unknown }>;
  files: ExpectedFile[];
  siteWarnings?: { kind: string; at: string }[];
  summary: Record<string, unknown> & { warningsByKind: Record<string, number> };
}

/** The fixture's import options, less the `why` that explains them. */
function importOptionsOf(expected: Expected): ReadOptions {
  const { why: _why, ...options } = expected.importOptions ?? {};
  return options as ReadOptions;
}

export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/real-blogs/${name}`, import.meta.url));
}

async function loadExpected(name: string): Promise<Expected> {
  return JSON.parse(await readFile(`${fixturePath(name)}/expected.json`, 'utf8')) as Expected;
}

const at = (warning: ImportProblem) => `${warning.file}:${warning.line}`;
const sorted = (list: string[]) => [...list].sort();

/** The status the fixture names: `scheduled` is published with a future date. */
function statusOf(article: ArticleInput): string {
  if (
    article.status === 'published' &&
    article.publishedAt !== null &&
    Date.parse(article.publishedAt) > Date.now()
  ) {
    return 'scheduled';
  }
  return article.status;
}

function tagsOf(source: ContentSource, article: ArticleInput) {
  return article.tags.map((name) => {
    const declared = source.tags.find((tag) => tag.name.toLowerCase() === name.toLowerCase());
    return { name, slug: declared?.slug ?? slugOfTagName(name) };
  });
}

/** The article's fields in the fixture's names, as the reading stage holds them. */
function actualFields(source: ContentSource, article: ArticleInput): Record<string, unknown> {
  const siteUrl = source.settings?.siteUrl ?? null;
  return {
    status: statusOf(article),
    slug: article.slug,
    path: article.path ?? null,
    url: siteUrl !== null && article.path ? `${siteUrl}${article.path}` : undefined,
    guid: article.guid ?? null,
    publishedAt: article.publishedAt,
    updatedAt: article.updatedAt ?? article.publishedAt,
    createdAt: article.createdAt ?? article.publishedAt,
    excerpt: article.excerpt,
    seo: { metaDescription: article.seo?.metaDescription ?? null },
    authors: article.authors ?? [],
    tags: tagsOf(source, article),
    visibility: article.visibility ?? 'public',
    tiers: article.tiers ?? [],
    coverImage: article.coverImage,
    aliases: article.aliases ?? [],
  };
}

const COMPARED = [
  'status',
  'slug',
  'path',
  'url',
  'guid',
  'publishedAt',
  'updatedAt',
  'createdAt',
  'excerpt',
  'authors',
  'tags',
  'visibility',
  'tiers',
  'coverImage',
  'aliases',
];

function checkContent(article: ArticleInput, expected: ExpectedFile): void {
  const content = expected['content'] as { mustContain?: string[]; mustNotContain?: string[] } | undefined;
  for (const text of content?.mustContain ?? [])
    assert.ok(article.content.includes(text), `content lacks ${JSON.stringify(text)}:\n${article.content}`);
  for (const text of content?.mustNotContain ?? [])
    assert.ok(!article.content.includes(text), `content holds ${JSON.stringify(text)}:\n${article.content}`);
}

function warningsAt(source: ContentSource, file: string): string[] {
  return (source.warnings ?? [])
    .filter((warning) => warning.file === file)
    .map((warning) => `${warning.kind ?? '(no kind)'} ${at(warning)}`);
}

function expectedWarnings(list: { kind: string; at: string }[] | undefined): string[] {
  return (list ?? []).map((w) => `${w.kind} ${w.at}`);
}

/** Counts of the file report and the warnings by kind, in the fixture's summary names. */
function summaryOf(source: ContentSource) {
  const files = (source.files ?? []).filter((f) => f.file !== 'expected.json');
  const count = (kind: string) => files.filter((f) => f.kind === kind).length;
  const byKind: Record<string, number> = {};
  for (const warning of source.warnings ?? []) {
    const kind = warning.kind ?? '(no kind)';
    byKind[kind] = (byKind[kind] ?? 0) + 1;
  }
  return {
    files: files.length,
    posts: count('post'),
    drafts: count('draft'),
    pages: count('page'),
    skipped: count('skipped'),
    excluded: count('excluded'),
    scheduledAmongPosts: source.articles.filter((a) => statusOf(a) === 'scheduled').length,
    warningsByKind: byKind,
  };
}

/**
 * Registers the fixture's tests: one per aspect, each over every file of the fixture. `prepare`
 * runs before the import, to pin what the fixture's `fileTimes` say and to fill in the values only
 * the test can know (a file's first commit).
 */
export function describeFixture(
  name: string,
  { prepare }: { prepare?: (expected: Expected, root: string) => Promise<void> } = {},
): void {
  let loaded: Promise<{ source: ContentSource; expected: Expected }> | undefined;
  const load = () =>
    (loaded ??= loadExpected(name).then(async (expected) => ({
      expected: (await prepare?.(expected, fixturePath(name)), expected),
      source: await readContentSource(fixturePath(name), importOptionsOf(expected)),
    })));

  test(`${name}: the layout is recognised and every file is reported with its kind and reason`, async () => {
    const { source, expected } = await load();
    assert.equal(source.generator, expected.generator);
    const files = (source.files ?? []).filter((f) => f.file !== 'expected.json');
    assert.deepEqual(
      sorted(files.map((f) => `${f.file} ${f.kind}`)),
      sorted(expected.files.map((f) => `${f.file} ${f.kind}`)),
    );
    for (const want of expected.files) {
      const got = files.find((f) => f.file === want.file);
      // The fixture's reason is the start of the report's (which may add what Folio did about it).
      if (want.reason !== undefined)
        assert.ok(
          got?.reason?.startsWith(want.reason),
          `${want.file}: reason ${JSON.stringify(got?.reason)} does not start with ${JSON.stringify(want.reason)}`,
        );
      if (want.kind === 'page' && 'path' in want)
        assert.equal(got?.path, want['path'], `${want.file}: page path`);
    }
  });

  test(`${name}: settings come from the site's configuration`, async () => {
    const { source, expected } = await load();
    for (const [key, { value }] of Object.entries(expected.settings)) {
      assert.deepEqual(
        (source.settings as Record<string, unknown> | undefined)?.[key] ?? null,
        value,
        `settings.${key}`,
      );
    }
  });

  test(`${name}: every post and draft holds the generator's path, dates, excerpt, authors, tags, cover and feed id`, async () => {
    const { source, expected } = await load();
    for (const want of expected.files.filter((f) => ['post', 'draft', 'excluded'].includes(f.kind))) {
      const article = source.articles.find((a) => a.file === want.file);
      assert.ok(article, `${want.file} is not imported`);
      const got = actualFields(source, article);
      for (const key of COMPARED) {
        if (key in want && !(key === 'url' && got['url'] === undefined))
          assert.deepEqual(got[key], want[key], `${want.file}: ${key}`);
      }
      const seo = want['seo'] as { metaDescription?: string } | undefined;
      if (seo?.metaDescription !== undefined)
        assert.equal(article.seo?.metaDescription, seo.metaDescription, `${want.file}: seo`);
    }
  });

  test(`${name}: each file's warnings are reported with their kind and file:line, the site's too`, async () => {
    const { source, expected } = await load();
    for (const want of expected.files) {
      const list = want['warnings'] as { kind: string; at: string }[] | undefined;
      assert.deepEqual(
        sorted(warningsAt(source, want.file)),
        sorted(expectedWarnings(list)),
        `${want.file}: warnings`,
      );
    }
    const siteFiles = new Set((expected.siteWarnings ?? []).map((w) => w.at.replace(/:\d+$/, '')));
    const bySite = [...siteFiles].flatMap((file) => warningsAt(source, file));
    assert.deepEqual(sorted(bySite), sorted(expectedWarnings(expected.siteWarnings)), 'site warnings');
  });

  test(`${name}: the summary counts files by kind and warnings by kind`, async () => {
    const { source, expected } = await load();
    const got = summaryOf(source);
    for (const key of ['files', 'posts', 'drafts', 'pages', 'skipped', 'excluded', 'scheduledAmongPosts']) {
      assert.equal(got[key as keyof typeof got], expected.summary[key] ?? 0, `summary.${key}`);
    }
    const wanted = expected.summary.warningsByKind;
    assert.deepEqual(got.warningsByKind, wanted);
  });

  test(`${name}: stored content is what the generator renders (template syntax expanded, dividers out)`, async () => {
    const { source, expected } = await load();
    for (const want of expected.files.filter((f) => f['content'] !== undefined)) {
      const article = source.articles.find((a) => a.file === want.file);
      assert.ok(article, `${want.file} is not imported`);
      checkContent(article, want);
    }
  });
}
