// Docusaurus's layout (docusaurus.io: the blog, the blog plugin's options and front matter, the
// authors and tags files; facebook/docusaurus plugin-content-blog blogUtils.ts and feed.ts):
// docusaurus.config.js (read statically, never run) with the classic preset's blog, docs and pages
// plugins. Posts are the Markdown and MDX files of the blog folder (a folder's index.md(x) too),
// at routeBasePath + the `slug` field, else `YYYY/MM/DD/name` from a dated file or folder name,
// else the file's path; the feed id is the post's absolute URL. `authors.yml` and `tags.yml` give
// the authors and the tags' labels and permalinks.
import { stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { isObject, type Path } from '../check-kit.ts';
import { parseIsoDate } from '../dates.ts';
import { readText } from '../markdown-folder.ts';
import type { AuthorInput, ImportProblem, ReadOptions, SiteSettings } from '../records.ts';
import { firstFile, gitCommitTime, readConfigFile, siteUrlOf, slugOfSegment } from './config-file.ts';
import { at, exportedNode, isComputed, parseJsModule, type StaticValue, staticValue } from './js-static.ts';
import type {
  ArticleFacts,
  FieldNames,
  FileClass,
  Placement,
  SiteDoc,
  SiteProfile,
  SiteReader,
} from './profile.ts';
import { authorOf, unknownAuthorKeys } from './site-article.ts';

const ASSET_NOTE = 'Docusaurus publishes a co-located file under /assets/ with a hashed name';
const CONFIG_FILES = [
  'docusaurus.config.js',
  'docusaurus.config.mjs',
  'docusaurus.config.cjs',
  'docusaurus.config.ts',
  'docusaurus.config.mts',
];
const CONTENT_RE = /\.mdx?$/i;
const IMAGE_RE = /\.(png|jpe?g|gif|svg|webp|avif|ico)$/i;
// blogUtils.ts DATE_FILENAME_REGEX: a date anywhere in the path under the blog folder.
const DATE_FILENAME_RE = /^(.*?)(\d{4}[-/]\d{1,2}[-/]\d{1,2})[-/]?(.*?)(?:\/index)?\.mdx?$/i;
// The plugins' default `exclude`: partials and tests are never pages or posts.
const EXCLUDED_RE = /(^|\/)_[^/]*(\/|$)|(^|\/)__tests__\/|\.test\.[jt]sx?$/;
// Docusaurus's default truncateMarker: /<!--\s*truncate\s*-->|\{\/\*\s*truncate\s*\*\/\}/.
const TRUNCATE_RE = /<!--\s*truncate\s*-->|\{\/\*\s*truncate\s*\*\/\}/;

const FIELDS: FieldNames = {
  title: ['title'],
  slug: ['slug'],
  publishedAt: ['date'],
  updatedAt: ['last_update.date'],
  lastUpdatedBy: ['last_update.author'],
  excerpt: [],
  description: ['description'],
  coverImage: ['image'],
  tags: ['tags'],
  categories: [],
  authors: ['authors', 'author'],
  aliases: [],
  guid: [],
  draft: ['draft'],
  published: [],
  own: ['unlisted'],
  ignored: {
    title_meta: 'the title of the page’s <title> only (Folio has one title)',
    sidebar_label: 'the label of the theme’s blog sidebar',
    hide_table_of_contents: 'a theme switch (table of contents)',
    toc_min_heading_level: 'a theme setting (table of contents)',
    toc_max_heading_level: 'a theme setting (table of contents)',
    keywords: 'meta keywords of the theme’s head',
    author_title: 'the legacy single-author field: only `authors` entries carry a title',
    author_url: 'the legacy single-author field: only `authors` entries carry a URL',
    author_image_url: 'the legacy single-author field: only `authors` entries carry a picture',
    authorURL: 'the legacy single-author field: only `authors` entries carry a URL',
    authorImageURL: 'the legacy single-author field: only `authors` entries carry a picture',
    authorTitle: 'the legacy single-author field: only `authors` entries carry a title',
  },
};

interface DocusaurusSite {
  root: string;
  settings: SiteSettings;
  blogDir: string;
  routeBasePath: string;
  /** False with `blog: false`: the site publishes no blog, so its blog folder holds no post. */
  blogEnabled: boolean;
  docsDir: string | null;
  docsRoute: string;
  pagesDir: string;
  trailingSlash: boolean;
  authorsFile: string;
  tagsFile: string;
  tags: Map<string, { name: string; slug: string }>;
}

/** `/blog/` → `blog`; `/` → `` (a blog at the site root). */
function routeOf(value: StaticValue | undefined, fallback: string): string {
  return typeof value === 'string' ? value.replace(/^\/+|\/+$/g, '') : fallback;
}

/** A `config-not-read` warning for a value the config computes that the import needed. */
function computedWarning(file: string, key: string, value: StaticValue | undefined): ImportProblem[] {
  if (!isComputed(value)) return [];
  return [
    {
      file,
      line: value.line,
      kind: 'config-not-read',
      message: `${key} is computed (${value.text.slice(0, 60)}): the config is never run, so Docusaurus's default is used`,
    },
  ];
}

/** The options of the classic preset's plugin (`blog`, `docs`) or of the plugin itself; false: disabled. */
function pluginOptions(config: StaticValue, presetKey: string, plugin: string): StaticValue | undefined {
  for (const preset of asList(at(config, 'presets'))) {
    const [name, options] = Array.isArray(preset) ? preset : [preset, undefined];
    if (name === 'classic' || name === '@docusaurus/preset-classic') return at(options, presetKey);
  }
  for (const entry of asList(at(config, 'plugins'))) {
    const [name, options] = Array.isArray(entry) ? entry : [entry, undefined];
    if (name === plugin || name === `@docusaurus/${plugin}`) return options ?? {};
  }
  return undefined;
}

function asList(value: StaticValue | undefined): StaticValue[] {
  return Array.isArray(value) ? value : [];
}

interface ConfigValues {
  config: StaticValue;
  file: string;
  warnings: ImportProblem[];
  problems: ImportProblem[];
}

async function readConfig(root: string): Promise<ConfigValues> {
  const file = (await firstFile(root, CONFIG_FILES)) ?? CONFIG_FILES[0];
  const problems: ImportProblem[] = [];
  const text = await readText(join(root, file), file, problems);
  if (text === null) return { config: {}, file, warnings: [], problems: [] };
  const parsed = parseJsModule(file, text);
  if ('problem' in parsed) return { config: {}, file, warnings: [parsed.problem], problems: [] };
  const node = exportedNode(parsed.module);
  if (node === null) {
    const warning = {
      file,
      line: 1,
      kind: 'config-not-read',
      message: 'no exported config object found: Docusaurus’s defaults are used',
    };
    return { config: {}, file, warnings: [warning], problems: [] };
  }
  return { config: staticValue(parsed.module, node), file, warnings: [], problems };
}

async function openDocusaurus(root: string, options: ReadOptions): Promise<SiteReader> {
  const { config, file, warnings, problems } = await readConfig(root);
  const blog = pluginOptions(config, 'blog', 'plugin-content-blog') ?? {};
  const docs = pluginOptions(config, 'docs', 'plugin-content-docs') ?? {};
  const pages = pluginOptions(config, 'pages', 'plugin-content-pages') ?? {};
  for (const [key, value] of [
    ['url', at(config, 'url')],
    ['baseUrl', at(config, 'baseUrl')],
    ['trailingSlash', at(config, 'trailingSlash')],
    ['blog.path', at(blog, 'path')],
    ['blog.routeBasePath', at(blog, 'routeBasePath')],
    ['blog.authorsMapPath', at(blog, 'authorsMapPath')],
    ['blog.tags', at(blog, 'tags')],
  ] as const)
    warnings.push(...computedWarning(file, key, value));
  const url = siteUrlOf(at(config, 'url')) ?? siteUrlOf(options.siteUrl);
  const baseUrl = routeOf(at(config, 'baseUrl'), '');
  const siteUrl = url === null ? null : baseUrl === '' ? url : `${url}/${baseUrl}`;
  const blogDir = routeOf(at(blog, 'path'), 'blog');
  const routeBasePath = routeOf(at(blog, 'routeBasePath'), 'blog');
  const trailingSlash = at(config, 'trailingSlash') === true;
  const site: DocusaurusSite = {
    root,
    settings: {
      siteUrl,
      urlPattern: `/${routeBasePath === '' ? '' : `${routeBasePath}/`}:year/:month/:day/:slug${trailingSlash ? '/' : ''}`,
      timeZone: 'UTC',
      defaultAuthor: null,
      // The navbar logo is a theme image, not a publisher logo: none is taken.
      logoUrl: null,
    },
    blogDir,
    blogEnabled: blog !== false,
    routeBasePath,
    docsDir: docs === false ? null : routeOf(at(docs, 'path'), 'docs'),
    docsRoute: routeOf(at(docs, 'routeBasePath'), 'docs'),
    pagesDir: routeOf(at(pages, 'path'), 'src/pages'),
    trailingSlash,
    authorsFile: posix.join(blogDir, routeOf(at(blog, 'authorsMapPath'), 'authors.yml')),
    tagsFile: posix.join(blogDir, at(blog, 'tags') === null ? '' : routeOf(at(blog, 'tags'), 'tags.yml')),
    tags: new Map(),
  };
  const authors = await readAuthors(root, site, problems);
  site.tags = await readTags(root, site, problems);
  return docusaurusReader(site, authors, problems, warnings);
}

async function readAuthors(
  root: string,
  site: DocusaurusSite,
  problems: ImportProblem[],
): Promise<Map<string, AuthorInput>> {
  const authors = new Map<string, AuthorInput>();
  if ((await firstFile(root, [site.authorsFile])) === null) return authors;
  const file = await readConfigFile(root, site.authorsFile, problems);
  for (const [key, value] of Object.entries(file?.data ?? {})) {
    const author = isObject(value) ? authorOf(key, value, site.settings.siteUrl) : null;
    if (author !== null) authors.set(key, author);
  }
  return authors;
}

/** tags.yml: key → { label, permalink }; the label is the name, the permalink (no leading `/`) the slug. */
async function readTags(
  root: string,
  site: DocusaurusSite,
  problems: ImportProblem[],
): Promise<Map<string, { name: string; slug: string }>> {
  const tags = new Map<string, { name: string; slug: string }>();
  if (!site.tagsFile.endsWith('.yml') && !site.tagsFile.endsWith('.yaml')) return tags;
  if ((await firstFile(root, [site.tagsFile])) === null) return tags;
  const file = await readConfigFile(root, site.tagsFile, problems);
  for (const [key, value] of Object.entries(file?.data ?? {})) {
    const entry = isObject(value) ? value : {};
    const label = typeof entry['label'] === 'string' ? entry['label'] : key;
    const permalink = typeof entry['permalink'] === 'string' ? entry['permalink'] : `/${key}`;
    tags.set(key, { name: label, slug: slugOfSegment(permalink.replace(/^\/+|\/+$/g, '')) ?? key });
  }
  return tags;
}

/** The file's path under a folder, or null when it is elsewhere. */
function under(folder: string, file: string): string | null {
  if (folder === '') return file;
  return file.startsWith(`${folder}/`) ? file.slice(folder.length + 1) : null;
}

function classifyDocusaurus(site: DocusaurusSite, file: string): FileClass {
  const inBlog = under(site.blogDir, file);
  if (inBlog !== null && !site.blogEnabled && CONTENT_RE.test(file))
    return {
      kind: 'skipped',
      reason: 'the blog plugin is disabled (blog: false): Docusaurus publishes no post',
    };
  if (inBlog !== null) {
    if (file === site.authorsFile) return { kind: 'skipped', reason: 'authors map: read for author details' };
    if (file === site.tagsFile) return { kind: 'skipped', reason: 'tags map: read for tag names and slugs' };
    if (EXCLUDED_RE.test(inBlog))
      return { kind: 'skipped', reason: 'excluded by the blog plugin (a name starting with _, a test)' };
    if (CONTENT_RE.test(file)) return { kind: 'article' };
    if (IMAGE_RE.test(file))
      return {
        kind: 'skipped',
        reason: 'co-located image: published by Docusaurus under /assets/, referenced by URL',
      };
    return { kind: 'skipped', reason: 'a co-located file of the blog: not a post' };
  }
  const inDocs = site.docsDir === null ? null : under(site.docsDir, file);
  if (inDocs !== null && CONTENT_RE.test(file) && !EXCLUDED_RE.test(inDocs))
    return { kind: 'page', reason: 'documentation of the docs plugin, not the blog' };
  if (inDocs !== null) return { kind: 'skipped', reason: 'a file of the docs plugin: not a post' };
  if (file.startsWith('versioned_docs/'))
    return CONTENT_RE.test(file)
      ? { kind: 'page', reason: 'an older version of the documentation (versioned_docs/), not the blog' }
      : { kind: 'ignore' };
  if (file.startsWith('i18n/'))
    return CONTENT_RE.test(file)
      ? { kind: 'skipped', reason: 'a translation (i18n/): Folio imports the default locale only' }
      : { kind: 'ignore' };
  const inPages = under(site.pagesDir, file);
  if (inPages !== null && CONTENT_RE.test(file) && !EXCLUDED_RE.test(inPages))
    return { kind: 'page', reason: 'a standalone page of the pages plugin' };
  if (inPages !== null)
    return {
      kind: 'skipped',
      reason: 'a React page or a module of the pages plugin: application code, not a post',
    };
  return { kind: 'ignore' };
}

/** `/blog` + `/guides/setup` → `/blog/guides/setup`, with a trailing slash when the site asks for it. */
function joinRoute(site: DocusaurusSite, route: string, slug: string): string {
  const path = `/${route}/${slug}`.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  if (path === '') return '/';
  return site.trailingSlash ? `${path}/` : path;
}

/** The blog's slug of a file: `YYYY/MM/DD/<folder><name>` for a dated name, else its path. */
function fileSlug(relative: string): { slug: string; date: string | null } {
  const match = DATE_FILENAME_RE.exec(relative);
  if (match) {
    const [, folder, date, text] = match;
    const [year, month, day] = date.split(/[-/]/);
    const iso = `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
    // The slug keeps the date as written (`2024-4-2` gives 2024/4/2), the date is padded to read it.
    return { slug: `${date.replace(/-/g, '/')}/${folder}${text}`, date: iso };
  }
  return { slug: relative.replace(/(?:\/index)?\.mdx?$/i, ''), date: null };
}

function placeDocusaurus(site: DocusaurusSite, doc: SiteDoc, facts: ArticleFacts): Placement {
  const relative = under(site.blogDir, doc.file) ?? doc.file;
  const own = facts.slug !== null && facts.slug.trim() !== '' ? facts.slug.trim() : null;
  // A blog slug starting with `/` is still under the blog's route (blogUtils: normalizeUrl([baseUrl, routeBasePath, slug])).
  const path = joinRoute(site, site.routeBasePath, own ?? fileSlug(relative).slug);
  const slugFrom: Path = own !== null ? ['slug'] : [];
  const siteUrl = site.settings.siteUrl;
  return {
    path,
    slugFrom,
    fallbackSlug: slugOfSegment(posix.basename(path)) ?? 'post',
    // feed.ts: the item id is the post's absolute permalink.
    guid: siteUrl === null ? null : `${siteUrl}${path}`,
    section: null,
  };
}

/** A docs page's path: routeBasePath + `slug` (absolute or beside the file) or `id`, else the file's path. */
function docsPath(site: DocusaurusSite, doc: SiteDoc | null, relative: string): string {
  const folder = posix.dirname(relative) === '.' ? '' : posix.dirname(relative);
  // Number prefixes (`01-intro`) order the sidebar and leave the URL.
  const clean = (part: string) => part.replace(/^\d+[-_.]/, '');
  const base = posix.basename(relative).replace(/\.mdx?$/i, '');
  const slug = doc?.data['slug'];
  const id = doc?.data['id'];
  const folders = folder === '' ? [] : folder.split('/').map(clean);
  if (typeof slug === 'string' && slug.startsWith('/')) return joinRoute(site, site.docsRoute, slug);
  const last = typeof slug === 'string' ? slug : typeof id === 'string' ? id : clean(base);
  const parts =
    /^(index|readme)$/i.test(last) || last === posix.basename(folder) ? folders : [...folders, last];
  return joinRoute(site, site.docsRoute, parts.join('/'));
}

function pagePath(site: DocusaurusSite, doc: SiteDoc | null, file: string): string | null {
  const inDocs = site.docsDir === null ? null : under(site.docsDir, file);
  if (inDocs !== null) return docsPath(site, doc, inDocs);
  const inPages = under(site.pagesDir, file);
  if (inPages === null) return null;
  const slug = doc?.data['slug'];
  if (typeof slug === 'string') return joinRoute(site, '', slug);
  return joinRoute(site, '', inPages.replace(/(?:^|\/)index\.mdx?$/i, '').replace(/\.mdx?$/i, ''));
}

/**
 * Front-matter tags written as objects (`{ label, permalink }`, the inline form of tags.yml entries)
 * become their label, and the label's slug the permalink, so that the shared flow reads names.
 */
function inlineTagObjects(
  doc: SiteDoc,
  tags: Map<string, { name: string; slug: string }>,
  labels: Map<string, { name: string; slug: string }>,
): void {
  const written = doc.data['tags'];
  if (!Array.isArray(written)) return;
  doc.data['tags'] = written.map((tag) => {
    if (!isObject(tag) || typeof tag['label'] !== 'string') return tag;
    const name = tag['label'];
    const permalink = typeof tag['permalink'] === 'string' ? tag['permalink'] : name;
    const slug = slugOfSegment(permalink.replace(/^\/+|\/+$/g, '')) ?? name;
    if (!labels.has(name.toLowerCase()) && !tags.has(name)) labels.set(name.toLowerCase(), { name, slug });
    return name;
  });
}

/**
 * A post without a `title` field takes its first `# heading` as its title, which Docusaurus then
 * leaves out of the content (blogUtils.ts: frontMatter.title ?? contentTitle); the heading's line is
 * blanked so that the body keeps its line numbers.
 */
function titleFromHeading(doc: SiteDoc): void {
  if (doc.key('title') !== undefined) return;
  const lines = doc.body.split('\n');
  const at = lines.findIndex((line) => /^#\s+\S/.test(line));
  // Only a heading before any other text is the content title.
  if (at < 0 || lines.slice(0, at).some((line) => line.trim() !== '' && !/^(import|export)\s/.test(line)))
    return;
  doc.data['title'] = lines[at].replace(/^#\s+/, '').replace(/\s+#*\s*$/, '');
  const key = doc.key;
  doc.key = (name) => (name === 'title' ? 'title' : key(name));
  lines[at] = '';
  doc.body = lines.join('\n');
}

/**
 * A post with neither a `date` field nor a dated name: blogUtils.ts dates it by the file's first Git
 * commit, else its creation time. The date found is kept for fileDate (the import fixes it from now
 * on); a warning says where it came from.
 */
async function undatedPost(
  site: DocusaurusSite,
  doc: SiteDoc,
  found: Map<string, string>,
): Promise<ImportProblem[]> {
  if (doc.data['date'] !== undefined && doc.data['date'] !== null) return [];
  if (fileSlug(under(site.blogDir, doc.file) ?? doc.file).date !== null) return [];
  const path = join(site.root, ...doc.file.split('/'));
  const committed = await gitCommitTime(site.root, path, 'created');
  const fromGit = committed !== null;
  found.set(doc.file, committed ?? (await stat(path)).birthtime.toISOString());
  const source = fromGit ? 'its first Git commit' : 'the file’s creation time (no Git history)';
  return [
    {
      file: doc.file,
      line: 1,
      kind: 'date-from-file',
      message: `no date field and no date in the file name: dated by ${source}, as Docusaurus does, and fixed at this import`,
    },
  ];
}

function docusaurusReader(
  site: DocusaurusSite,
  authors: Map<string, AuthorInput>,
  problems: ImportProblem[],
  warnings: ImportProblem[],
): SiteReader {
  const fileDates = new Map<string, string>();
  const labels = new Map([...site.tags.values()].map((tag) => [tag.name.toLowerCase(), tag]));
  const roots = [
    site.blogDir,
    site.pagesDir,
    ...(site.docsDir === null ? [] : [site.docsDir, 'versioned_docs']),
    'i18n',
  ];
  return {
    settings: site.settings,
    warnings,
    problems,
    roots: [...new Set(roots)],
    skipEntry: (path) => path === 'node_modules' || path === 'build',
    classify: (file) => classifyDocusaurus(site, file),
    readDoc: async (doc, kind) => {
      inlineTagObjects(doc, site.tags, labels);
      if (kind.kind === 'article') titleFromHeading(doc);
      if (kind.kind !== 'article') return { kind, warnings: [] };
      const warnings = [
        ...unknownAuthorKeys(doc, 'authors', authors, site.authorsFile),
        ...(await undatedPost(site, doc, fileDates)),
      ];
      return { kind, warnings };
    },
    fields: FIELDS,
    // Neither generator gives files values under their own front matter.
    cascade: () => ({}),
    caseInsensitiveKeys: false,
    dialects: (doc) => (/\.mdx$/i.test(doc.file) ? ['mdx'] : []),
    templateOptions: () => ({}),
    authors,
    defaultAuthor: null,
    // blogUtils.ts: a date in the file or folder name is midnight UTC; else Git or the file (undatedPost).
    fileDate: (file) => {
      const date = fileSlug(under(site.blogDir, file) ?? file).date;
      return date === null ? (fileDates.get(file) ?? null) : parseIsoDate(date, 'UTC');
    },
    excerptSeparator: (doc) => TRUNCATE_RE.exec(doc.body)?.[0] ?? null,
    dividerFirst: true,
    exclusion: (doc) =>
      doc.data['unlisted'] === true
        ? {
            kind: 'excluded',
            reason:
              'unlisted: true: built and reachable by URL, but left out of the blog list, the sitemap and the feeds',
            path: ['unlisted'],
          }
        : null,
    reasons: {
      draft: 'draft: true: left out of production builds',
      unpublished: 'published: false',
      // The blog plugin publishes a future-dated post at once.
      future: null,
    },
    place: (doc, facts) => placeDocusaurus(site, doc, facts),
    page: (doc, file, reason) => ({ kind: 'page', reason, path: pagePath(site, doc, file) }),
    refCandidates: (target, from) => [posix.normalize(posix.join(posix.dirname(from), target))],
    tagOf: (written) => {
      const known = site.tags.get(written) ?? labels.get(written.toLowerCase());
      return known ?? { name: written, slug: null };
    },
    assetNote: `${ASSET_NOTE}; the link is resolved against the article’s URL, which works only where the file is served beside the article`,
    processedImages: () => ASSET_NOTE,
  };
}

async function detectDocusaurus(root: string): Promise<boolean> {
  return (await firstFile(root, CONFIG_FILES)) !== null;
}

export const docusaurusProfile: SiteProfile = {
  name: 'docusaurus',
  detect: detectDocusaurus,
  open: openDocusaurus,
};
