// Astro's layout (docs.astro.build: content collections, the glob and file loaders, images in
// collections, RSS, MDX; withastro/astro examples/blog): astro.config.mjs (`site`, `base`),
// src/content.config.ts (or the older src/content/config.ts) defining collections; the posts are
// the entries of the blog collection (the one the feed reads), each with an id: its `slug` field,
// else its path under the loader's base without extension, each segment slugged. The site's own
// routes decide the URL: the feed's `link` (`/blog/${post.id}/` in the starter) gives the pattern,
// else the collection's dynamic route. src/pages holds pages and endpoints, public/ files served as
// they are, src/assets images published under hashed names. Astro has no drafts, no future rule
// and no time zone: a `draft` field counts when the site's getCollection filter reads it.
//
// The config files are JavaScript or TypeScript: they are read as data (js-static.ts), never run.
import { readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { isObject } from '../check-kit.ts';
import { parseIsoDate } from '../dates.ts';
import { readText } from '../markdown-folder.ts';
import type { AuthorInput, ImportProblem, ReadOptions, SiteSettings } from '../records.ts';
import { parse as parseYaml } from 'yaml';
import { firstFile, siteUrlOf, slugOfSegment } from './config-file.ts';
import {
  at,
  calleeName,
  callArguments,
  callsNamed,
  exportedNode,
  isComputed,
  type JsModule,
  staticValue,
  textOf,
  walk,
  configNotRead,
  readJsModule,
} from './js-static.ts';
import type { FieldNames, FileClass, Placement, SiteDoc, SiteProfile, SiteReader } from './profile.ts';
import { authorOf } from './site-article.ts';

type AnyNode = ReturnType<typeof callsNamed>[number];

export const ASTRO_CONFIG_FILES = [
  'astro.config.mjs',
  'astro.config.js',
  'astro.config.ts',
  'astro.config.mts',
  'astro.config.cjs',
];
const COLLECTION_FILES = [
  'src/content.config.ts',
  'src/content.config.mts',
  'src/content.config.js',
  'src/content.config.mjs',
  'src/content/config.ts',
  'src/content/config.mts',
  'src/content/config.js',
  'src/content/config.mjs',
];
const ENTRY_RE = /\.(md|mdx|markdown)$/i;
const IMAGE_RE = /\.(png|jpe?g|gif|webp|avif|svg|tiff?)$/i;
const PAGE_CONTENT_RE = /\.(md|mdx|markdown|html)$/i;
const ENDPOINT_RE = /\.(js|mjs|ts|mts)$/i;
const DATE_FIELDS = ['pubDate', 'date', 'publishDate', 'publishedAt', 'published'];
const UPDATE_FIELDS = ['updatedDate', 'updated', 'lastmod', 'modified', 'updatedAt'];
const IMAGE_FIELDS = ['heroImage', 'image', 'cover', 'coverImage', 'ogImage', 'featuredImage'];

/** A collection of src/content.config.ts, as far as it can be read. */
interface Collection {
  name: string;
  /** The glob loader's base (or the older src/content/<name>), under the root; null for a file loader. */
  base: string | null;
  /** Glob patterns under the base; those starting with `!` leave files out. */
  pattern: string[];
  /** The file loader's file. */
  file: string | null;
  /** Schema fields that reference another collection: field → collection. */
  references: Map<string, string>;
  /** Schema fields validated by image(): their relative paths are astro:assets imports. */
  imageFields: Set<string>;
}

interface AstroSite {
  settings: SiteSettings;
  collections: Collection[];
  blog: Collection | null;
  /** The path pattern with `:slug` standing for the entry id (which may hold `/`). */
  pattern: string;
  feedFile: string | null;
  /** The getCollection filter that reads `draft`, as written; null: `draft` means nothing to Astro. */
  draftFilter: string | null;
  /** The collections whose entries are an article's authors. */
  authorCollections: Set<string>;
}

/** `site` and `base` of astro.config.*: the site URL with its base path. */
function siteUrlFrom(module: JsModule | null, file: string, warnings: ImportProblem[]): string | null {
  if (module === null) return null;
  const node = exportedNode(module);
  const config = node === null ? undefined : staticValue(module, node);
  const site = at(config, 'site');
  const base = at(config, 'base');
  for (const [value, what] of [
    [site, 'site'],
    [base, 'base'],
  ] as const) {
    if (isComputed(value)) warnings.push(configNotRead(file, value, what));
  }
  const url = siteUrlOf(site);
  if (url === null) return null;
  const path = typeof base === 'string' ? base.replace(/^\/*/, '/').replace(/\/+$/, '') : '';
  return `${url}${path === '/' ? '' : path}`;
}

/** The names each collection is declared under: `const blog = defineCollection(…)` or `{ blog: defineCollection(…) }`. */
function collectionCalls(module: JsModule): Map<string, AnyNode> {
  const calls = new Map<string, AnyNode>();
  for (const node of walk(module.program)) {
    const init = (node.type === 'VariableDeclarator' ? node['init'] : node['value']) as AnyNode | undefined;
    if (init?.type !== 'CallExpression' || calleeName(init) !== 'defineCollection') continue;
    const id = (node.type === 'VariableDeclarator' ? node['id'] : node['key']) as AnyNode;
    if (typeof id['name'] === 'string') calls.set(id['name'], init);
  }
  // `export const collections = { posts: blog }` renames a local collection.
  const exported = exportedNode(module, 'collections') as AnyNode | null;
  if (exported?.type !== 'ObjectExpression') return calls;
  const named = new Map<string, AnyNode>();
  for (const property of exported['properties'] as AnyNode[]) {
    const key = (property['key'] as AnyNode)?.['name'] as string | undefined;
    const value = property['value'] as AnyNode | undefined;
    const local = value?.type === 'Identifier' ? calls.get(value['name'] as string) : undefined;
    const inline = value?.type === 'CallExpression' ? value : undefined;
    if (key !== undefined && (local ?? inline) !== undefined) named.set(key, (local ?? inline) as AnyNode);
  }
  return named.size > 0 ? named : calls;
}

/** The schema's fields that reference a collection or take an image(). */
function schemaFields(module: JsModule, options: AnyNode) {
  const references = new Map<string, string>();
  const imageFields = new Set<string>();
  const schema = (options['properties'] as AnyNode[]).find(
    (p) => (p['key'] as AnyNode)?.['name'] === 'schema',
  );
  if (schema === undefined) return { references, imageFields };
  for (const node of walk(schema['value'] as AnyNode)) {
    if (node.type !== 'Property') continue;
    const key = (node['key'] as AnyNode)['name'] ?? (node['key'] as AnyNode)['value'];
    if (typeof key !== 'string') continue;
    const text = textOf(module, node['value'] as AnyNode);
    const reference = /\breference\(\s*['"]([^'"]+)['"]/.exec(text);
    if (reference !== null) references.set(key, reference[1]);
    if (/\bimage\(\)/.test(text)) imageFields.add(key);
  }
  return { references, imageFields };
}

/** One collection's loader: glob({ base, pattern }), file(path), or the older src/content/<name>. */
function collectionOf(
  module: JsModule,
  name: string,
  call: AnyNode,
  warnings: ImportProblem[],
): Collection | null {
  const options = (call['arguments'] as AnyNode[])[0];
  if (options?.type !== 'ObjectExpression') return null;
  const collection: Collection = {
    name,
    base: `src/content/${name}`,
    pattern: ['**/*.{md,mdx,markdown}'],
    file: null,
    ...schemaFields(module, options),
  };
  const loader = (options['properties'] as AnyNode[]).find(
    (p) => (p['key'] as AnyNode)?.['name'] === 'loader',
  );
  const loaderCall = loader?.['value'] as AnyNode | undefined;
  if (loaderCall === undefined) return collection;
  const args = loaderCall.type === 'CallExpression' ? callArguments(module, loaderCall) : [];
  const kind = loaderCall.type === 'CallExpression' ? calleeName(loaderCall) : null;
  if (kind === 'glob') {
    const base = at(args[0], 'base');
    const pattern = at(args[0], 'pattern');
    for (const [value, what] of [
      [base, 'base'],
      [pattern, 'pattern'],
    ] as const)
      if (isComputed(value))
        warnings.push(configNotRead(module.file, value, `the ${name} collection’s glob ${what}`));
    collection.base = typeof base === 'string' ? posix.normalize(base).replace(/^\.\/?|\/+$/g, '') : null;
    if (typeof pattern === 'string') collection.pattern = [pattern];
    else if (Array.isArray(pattern))
      collection.pattern = pattern.filter((p): p is string => typeof p === 'string');
    return collection.base === null ? null : collection;
  }
  if (kind === 'file' && typeof args[0] === 'string') {
    return { ...collection, base: null, file: posix.normalize(args[0]).replace(/^\.\//, '') };
  }
  warnings.push({
    file: module.file,
    line: loaderCall.loc?.start.line ?? 1,
    kind: 'config-not-read',
    message: `the ${name} collection’s loader is not glob() or file(): its entries cannot be found without running it`,
  });
  return null;
}

async function readCollections(root: string, warnings: ImportProblem[]): Promise<Collection[]> {
  const file = await firstFile(root, COLLECTION_FILES);
  const module = file === null ? null : await readJsModule(root, file, warnings);
  if (module === null) return [];
  const collections: Collection[] = [];
  for (const [name, call] of collectionCalls(module)) {
    const collection = collectionOf(module, name, call, warnings);
    if (collection !== null) collections.push(collection);
  }
  return collections;
}

/** Every file under src/pages, with `/`. */
async function pageFiles(root: string, folder = 'src/pages'): Promise<string[]> {
  const entries = await readdir(join(root, ...folder.split('/')), { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const child = `${folder}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await pageFiles(root, child)));
    else if (entry.isFile()) files.push(child);
  }
  return files;
}

/** The feed endpoint: src/pages/rss.xml.js or another `*.xml.js|ts` page. */
function feedFileOf(pages: readonly string[]): string | null {
  return pages.find((file) => /\.xml\.(js|mjs|ts|mts)$/.test(file)) ?? null;
}

/** A link written as `/blog/${post.id}/` or `'/blog/' + post.slug + '/'`: the pattern with `:slug`, or null. */
function linkPattern(module: JsModule, node: AnyNode): string | null {
  const isId = (expression: AnyNode) => /\.(id|slug)$/.test(textOf(module, expression));
  if (node.type === 'TemplateLiteral') {
    const quasis = (node['quasis'] as AnyNode[]).map((q) => (q['value'] as { cooked: string }).cooked);
    const expressions = node['expressions'] as AnyNode[];
    if (!expressions.every(isId)) return null;
    return quasis.map((text, i) => (i < expressions.length ? `${text}:slug` : text)).join('');
  }
  if (node.type === 'BinaryExpression' && node['operator'] === '+') {
    const left = linkPattern(module, node['left'] as AnyNode);
    const right = linkPattern(module, node['right'] as AnyNode);
    return left === null || right === null ? null : left + right;
  }
  if (node.type === 'Literal' && typeof node['value'] === 'string') return node['value'];
  if (isId(node)) return ':slug';
  return null;
}

interface FeedFacts {
  collection: string | null;
  title: string | null;
  /** The title as an imported constant (`SITE_TITLE` from '../consts'): its name and module. */
  titleImport: { name: string; from: string } | null;
  pattern: string | null;
  patternLine: number;
  filter: string | null;
}

/** What the feed endpoint says: the collection it reads, its title, each item's link and the filter. */
function feedFacts(module: JsModule | null): FeedFacts {
  const facts: FeedFacts = {
    collection: null,
    title: null,
    titleImport: null,
    pattern: null,
    patternLine: 1,
    filter: null,
  };
  if (module === null) return facts;
  for (const call of callsNamed(module, ['getCollection'])) {
    const [name] = callArguments(module, call);
    if (typeof name === 'string') facts.collection ??= name;
    const filter = (call['arguments'] as AnyNode[])[1];
    if (filter !== undefined && /\bdraft\b/.test(textOf(module, filter)))
      facts.filter = filterText(module, filter);
  }
  for (const call of callsNamed(module, ['rss'])) {
    const title = at(callArguments(module, call)[0], 'title');
    if (typeof title === 'string') facts.title = title;
    if (isComputed(title)) facts.titleImport = importOf(module, title.text);
  }
  for (const node of walk(module.program)) {
    if (node.type !== 'Property' || (node['key'] as AnyNode)['name'] !== 'link') continue;
    facts.pattern = linkPattern(module, node['value'] as AnyNode);
    facts.patternLine = node.loc?.start.line ?? 1;
    if (facts.pattern !== null) break;
  }
  return facts;
}

/** Where a name is imported from: `import { SITE_TITLE } from '../consts'` → the module path. */
function importOf(module: JsModule, name: string): { name: string; from: string } | null {
  for (const node of (module.program as unknown as { body: AnyNode[] }).body) {
    if (node.type !== 'ImportDeclaration') continue;
    const from = (node['source'] as AnyNode)['value'];
    const specifier = (node['specifiers'] as AnyNode[]).find(
      (s) => (s['local'] as AnyNode)['name'] === name && s.type === 'ImportSpecifier',
    );
    if (specifier !== undefined && typeof from === 'string' && from.startsWith('.')) {
      const imported = (specifier['imported'] as AnyNode)['name'];
      return { name: String(imported), from: posix.join(posix.dirname(module.file), from) };
    }
  }
  return null;
}

/** A constant a relative module exports as a literal (`export const SITE_TITLE = 'Astro Blog'`), or null. */
async function importedConstant(root: string, imported: { name: string; from: string } | null) {
  if (imported === null) return null;
  const extensions = ['', '.ts', '.js', '.mjs', '.mts'];
  const file = await firstFile(
    root,
    extensions.map((ext) => `${imported.from}${ext}`),
  );
  const module = file === null ? null : await readJsModule(root, file, []);
  const node = module === null ? null : exportedNode(module, imported.name);
  const value = module === null || node === null ? null : staticValue(module, node);
  return typeof value === 'string' ? value : null;
}

/** `({ data }) => data.draft !== true` → `data.draft !== true`. */
function filterText(module: JsModule, node: AnyNode): string {
  const body = node['body'] as AnyNode | undefined;
  return textOf(module, body !== undefined && body.type !== 'BlockStatement' ? body : node).replace(
    /\s+/g,
    ' ',
  );
}

/** A getCollection filter that reads `draft` in a page of the site (when the feed has none). */
async function pageFilter(root: string, pages: readonly string[]): Promise<string | null> {
  for (const file of pages.filter((page) => /\.(astro|js|ts|mjs)$/.test(page))) {
    const text = (await readText(join(root, ...file.split('/')), file, [])) ?? '';
    const match = /getCollection\([^,)]+,\s*\(?\{?\s*\w*\s*\}?\)?\s*=>\s*([^)]*\bdraft\b[^)]*)\)/.exec(text);
    if (match !== null) return match[1].trim().replace(/\s+/g, ' ');
  }
  return null;
}

/** The collection's dynamic route (src/pages/blog/[...slug].astro): `/blog/:slug/`. */
function routePattern(pages: readonly string[]): { pattern: string; file: string } | null {
  const route = pages.find((file) => /\/\[(\.\.\.)?(slug|id)\]\.astro$/.test(file));
  if (route === undefined) return null;
  const folder = posix.dirname(route).slice('src/pages'.length);
  return { pattern: `${folder}/:slug/`, file: route };
}

/** The authors of a file loader's JSON or YAML: a list of `{ id, … }` or an object by id. */
async function readAuthors(
  root: string,
  collection: Collection,
  siteUrl: string | null,
  warnings: ImportProblem[],
): Promise<Map<string, AuthorInput>> {
  const authors = new Map<string, AuthorInput>();
  if (collection.file === null) return authors;
  const text = await readText(join(root, ...collection.file.split('/')), collection.file, warnings);
  let data: unknown = null;
  try {
    // JSON is YAML to this parser; a list of `{ id }` or an object by id, as the file loader reads them.
    data = text === null ? null : parseYaml(text);
  } catch (error) {
    warnings.push({
      file: collection.file,
      line: 1,
      kind: 'config-not-read',
      message: `cannot be read (${(error as Error).message.split('\n')[0]}): its authors are not used`,
    });
  }
  const entries: [string, unknown][] = Array.isArray(data)
    ? data.map((item) => [String(isObject(item) ? (item['id'] ?? item['slug'] ?? '') : ''), item])
    : Object.entries(isObject(data) ? data : {});
  for (const [key, value] of entries) {
    if (key === '' || !isObject(value)) continue;
    // Astro's starters call the picture `avatar` and the title `role`.
    const author = authorOf(key, { ...value, title: value['title'] ?? value['role'] }, siteUrl);
    if (author !== null) authors.set(key, author);
  }
  return authors;
}

async function openAstro(root: string, _options: ReadOptions): Promise<SiteReader> {
  const warnings: ImportProblem[] = [];
  const configName = await firstFile(root, ASTRO_CONFIG_FILES);
  const config = configName === null ? null : await readJsModule(root, configName, warnings);
  const siteUrl = siteUrlFrom(config, configName ?? ASTRO_CONFIG_FILES[0], warnings);
  const collections = await readCollections(root, warnings);
  const pages = await pageFiles(root);
  const feedFile = feedFileOf(pages);
  const feed = feedFacts(feedFile === null ? null : await readJsModule(root, feedFile, warnings));
  feed.title ??= await importedConstant(root, feed.titleImport);
  const blogName =
    feed.collection ?? ['blog', 'posts', 'post'].find((n) => collections.some((c) => c.name === n));
  const blog =
    collections.find((c) => c.name === blogName) ?? collections.find((c) => c.base !== null) ?? null;
  const pattern = patternOf(feed, feedFile, pages, blog, warnings);
  const site: AstroSite = {
    settings: {
      siteUrl,
      urlPattern: /^\/[^:]*:slug\/?$/.test(pattern) ? pattern : null,
      // Astro has no time zone setting; z.coerce.date reads ISO dates as UTC.
      timeZone: 'UTC',
      defaultAuthor: null,
      logoUrl: null,
    },
    collections,
    blog,
    pattern,
    feedFile,
    draftFilter: feed.filter ?? (await pageFilter(root, pages)),
    authorCollections: new Set(blog === null ? [] : blog.references.values()),
  };
  const authors = new Map<string, AuthorInput>();
  for (const collection of collections.filter((c) => site.authorCollections.has(c.name)))
    for (const [key, author] of await readAuthors(root, collection, siteUrl, warnings))
      authors.set(key, author);
  // Without a site author, an entry without authors gets the project's name, which is the feed's title.
  const projectName =
    feed.title === null
      ? null
      : {
          name: feed.title,
          slug: slugOfSegment(feed.title) ?? 'author',
          image: null,
          title: null,
          url: null,
        };
  return astroReader(site, authors, projectName, warnings);
}

function patternOf(
  feed: FeedFacts,
  feedFile: string | null,
  pages: readonly string[],
  blog: Collection | null,
  warnings: ImportProblem[],
): string {
  if (feed.pattern !== null && feed.pattern.startsWith('/')) return feed.pattern;
  const route = routePattern(pages);
  const fallback = route?.pattern ?? `/${blog?.name ?? 'blog'}/:slug/`;
  warnings.push({
    file: feedFile ?? route?.file ?? 'src/pages',
    line: feed.patternLine,
    kind: 'url-pattern-approximated',
    message: `the feed’s item link cannot be read: paths are taken as ${fallback}${route === null ? '' : ` (the route ${route.file})`}`,
  });
  return fallback;
}

/** github-slugger, as Astro slugs each segment of an entry's path. */
function githubSlug(segment: string): string {
  return segment
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The path under a collection's base, or null when the file is not one of its entries. */
function entryOf(collection: Collection, file: string): string | null {
  if (collection.base === null) return null;
  const prefix = collection.base === '' ? '' : `${collection.base}/`;
  if (!file.startsWith(prefix)) return null;
  const relative = file.slice(prefix.length);
  const positive = collection.pattern.filter((p) => !p.startsWith('!'));
  const negative = collection.pattern.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  const matches = (patterns: string[]) => patterns.some((p) => posix.matchesGlob(relative, p));
  return matches(positive) && !matches(negative) ? relative : null;
}

function classifyAstro(site: AstroSite, file: string): FileClass {
  const [top] = file.split('/');
  if (top === 'public')
    return { kind: 'skipped', reason: `public/ file, served at ${file.slice('public'.length)}` };
  if (site.blog !== null && entryOf(site.blog, file) !== null && ENTRY_RE.test(file))
    return { kind: 'article' };
  for (const collection of site.collections) {
    if (collection.file === file)
      return {
        kind: 'skipped',
        reason: site.authorCollections.has(collection.name)
          ? `the ${collection.name} collection: read for author details`
          : `the ${collection.name} collection: not the blog, not imported`,
      };
    if (collection !== site.blog && entryOf(collection, file) !== null)
      return {
        kind: 'skipped',
        reason: `an entry of the ${collection.name} collection, not the blog: not imported`,
      };
  }
  if (file.startsWith('src/pages/')) return pageClass(site, file);
  if (IMAGE_RE.test(file))
    return { kind: 'skipped', reason: 'processed by astro:assets, published under a hashed name' };
  const under = site.collections.find((c) => c.base !== null && file.startsWith(`${c.base}/`));
  if (under !== undefined && ENTRY_RE.test(file))
    return {
      kind: 'skipped',
      reason: `under the ${under.name} collection's base but left out by its glob pattern: Astro does not read it`,
    };
  if (file.startsWith('src/content/') && ENTRY_RE.test(file))
    return {
      kind: 'skipped',
      reason: "under src/content but matched by no collection's loader: Astro does not read it",
    };
  // Components, layouts, styles and code.
  return { kind: 'ignore' };
}

function pageClass(site: AstroSite, file: string): FileClass {
  if (file === site.feedFile) return { kind: 'skipped', reason: 'an endpoint (the feed), not content' };
  if (ENDPOINT_RE.test(file)) return { kind: 'skipped', reason: 'an endpoint, not content' };
  if (/\[.*\]/.test(file))
    return { kind: 'skipped', reason: 'a dynamic route: it renders collection entries' };
  if (PAGE_CONTENT_RE.test(file) || file.endsWith('.astro'))
    return { kind: 'page', reason: 'a file-based route in src/pages, not a collection entry' };
  return { kind: 'skipped', reason: 'a file in src/pages that is not a route' };
}

/** A page's route: src/pages/about.md → /about, src/pages/docs/index.md → /docs. */
function routeOf(file: string): string {
  const route = file
    .slice('src/pages'.length)
    .replace(/\.[^/.]+$/, '')
    .replace(/\/index$/, '');
  return route === '' ? '/' : route;
}

function entryId(site: AstroSite, doc: SiteDoc): string {
  const slug = doc.data['slug'];
  if (typeof slug === 'string' && slug.trim() !== '') return slug.trim().replace(/^\/+|\/+$/g, '');
  const relative = (site.blog === null ? null : entryOf(site.blog, doc.file)) ?? posix.basename(doc.file);
  return relative
    .replace(/\.[^/.]+$/, '')
    .split('/')
    .map(githubSlug)
    .join('/')
    .replace(/(^|\/)index$/, '');
}

function placeAstro(site: AstroSite, doc: SiteDoc): Placement {
  const id = entryId(site, doc);
  const path = site.pattern.replace(':slug', id).replace(/\/{2,}/g, '/');
  const siteUrl = site.settings.siteUrl;
  return {
    path,
    slugFrom: doc.data['slug'] === undefined ? [] : ['slug'],
    fallbackSlug: slugOfSegment(posix.basename(id)) ?? 'post',
    // @astrojs/rss writes the item's absolute link as its guid.
    guid: siteUrl === null ? null : `${siteUrl}${path}`,
    section: null,
  };
}

/**
 * Dates that z.coerce.date (new Date) reads in the build machine's zone are warned about: a string
 * that is not ISO 8601, or an ISO date-time without an offset. Folio reads them in UTC.
 */
function ambiguousDates(doc: SiteDoc, warnings: ImportProblem[]): void {
  for (const key of [...DATE_FIELDS, ...UPDATE_FIELDS]) {
    const value = doc.data[key];
    if (typeof value !== 'string') continue;
    const text = value.trim();
    const isoDay = /^\d{4}-\d{2}-\d{2}$/.test(text);
    const isoWithZone = parseIsoDate(text) !== null && /([zZ]|[+-]\d{2}:?\d{2})$/.test(text);
    if (isoDay || isoWithZone) continue;
    warnings.push({
      file: doc.file,
      line: doc.locate([key]),
      kind: 'ambiguous-date',
      message: `${key} ${JSON.stringify(text)} has no zone and is not an ISO 8601 date: Astro reads it in the zone of the machine that builds the site; Folio reads it in UTC`,
    });
  }
}

/** A relative cover image is an astro:assets import, published under a hashed name: no URL can be kept. */
function assetImages(site: AstroSite, doc: SiteDoc, warnings: ImportProblem[]): void {
  const fields = new Set([...IMAGE_FIELDS, ...(site.blog?.imageFields ?? [])]);
  for (const key of fields) {
    const value = doc.data[key];
    const src = isObject(value) ? value['src'] : value;
    if (typeof src !== 'string' || /^([a-z][a-z0-9+.-]*:|\/)/i.test(src.trim())) continue;
    warnings.push({
      file: doc.file,
      line: doc.locate([key]),
      kind: 'asset-not-public',
      message: `${key} ${JSON.stringify(src)} is an image import: Astro publishes it under a hashed /_astro/ name the source does not hold, so it is not kept as the cover image`,
    });
    delete doc.data[key];
  }
}

const FIELDS = (draft: boolean): FieldNames => ({
  title: ['title'],
  slug: ['slug'],
  publishedAt: DATE_FIELDS,
  updatedAt: UPDATE_FIELDS,
  excerpt: ['excerpt'],
  description: ['description'],
  coverImage: IMAGE_FIELDS,
  tags: ['tags'],
  categories: ['categories'],
  authors: ['authors', 'author'],
  aliases: [],
  guid: ['guid'],
  draft: draft ? ['draft'] : [],
  published: [],
  own: [],
  ignored: {
    layout: 'a layout component',
    heroImageAlt: 'the hero image’s alternative text (Folio keeps none for a cover)',
    ...(draft ? {} : { draft: 'no getCollection filter of the site reads it: Astro publishes the entry' }),
  },
});

function astroReader(
  site: AstroSite,
  authors: Map<string, AuthorInput>,
  projectName: AuthorInput | null,
  warnings: ImportProblem[],
): SiteReader {
  const draft = site.draftFilter !== null;
  return {
    settings: site.settings,
    warnings,
    problems: [],
    // A glob loader's base may lie outside src/ (`content/posts`).
    roots: ['src', 'public', ...site.collections.flatMap((c) => (c.base === null ? [] : [c.base]))],
    skipEntry: () => false,
    classify: (file) => classifyAstro(site, file),
    // Astro's schema defaults are the only values an entry gets besides its own.
    cascade: () => ({}),
    readDoc: async (doc, kind) => {
      const found: ImportProblem[] = [];
      if (kind.kind === 'article') {
        ambiguousDates(doc, found);
        assetImages(site, doc, found);
      }
      return { kind, warnings: found };
    },
    fields: FIELDS(draft),
    caseInsensitiveKeys: false,
    dialects: (doc) => (doc.file.endsWith('.mdx') ? ['mdx'] : []),
    processedImages: () =>
      'Astro’s image pipeline (astro:assets) publishes a relative Markdown image under a hashed /_astro/ name',
    templateOptions: () => ({}),
    authors,
    defaultAuthor: projectName,
    fileDate: () => null,
    excerptSeparator: () => null,
    dividerFirst: false,
    exclusion: () => null,
    reasons: {
      draft: `draft: true; the site's getCollection filter (${site.draftFilter ?? ''}) keeps it out of pages and the feed`,
      unpublished: 'published: false',
      future: null,
    },
    place: (doc) => placeAstro(site, doc),
    page: (_doc, file, reason) => ({ kind: 'page', reason, path: routeOf(file) }),
    refCandidates: () => [],
  };
}

async function detectAstro(root: string): Promise<boolean> {
  return (await firstFile(root, ASTRO_CONFIG_FILES)) !== null;
}

export const astroProfile: SiteProfile = { name: 'astro', detect: detectAstro, open: openAstro };
