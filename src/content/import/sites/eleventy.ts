// Eleventy's layout (11ty.dev: permalinks, dates, collections, data cascade, front matter options,
// passthrough copy; the RSS plugin; 11ty/eleventy-base-blog): eleventy.config.js (or .eleventy.js)
// with `dir.input`; templates are the files of `templateFormats` under the input folder; the posts
// are the templates whose data cascade tags them with the collection the feed reads (`posts`,
// usually from a directory data file such as blog/blog.11tydata.js), less those excluded from
// collections. Paths are the input path without the input folder (`blog/x.md` → `/blog/x/`,
// `blog/x/x.md` and `blog/x/index.md` → `/blog/x/`), or `permalink`; `permalink: false` writes
// nothing. Dates are `date` (midnight UTC without a time) or the keywords `Last Modified`,
// `Created`, `git Last Modified`, `git Created`. Eleventy has no drafts, no future rule and no
// time zone; the base blog's drafts preprocessor is recognised in the config.
//
// The config and data files are JavaScript: they are read as data (js-static.ts), never run.
import { readdir, stat } from 'node:fs/promises';
import { join, posix, resolve } from 'node:path';
import { isObject } from '../check-kit.ts';
import { readText } from '../markdown-folder.ts';
import type { AuthorInput, ImportProblem, ReadOptions, SiteSettings } from '../records.ts';
import { firstFile, gitCommitTime, isFile, readConfigFile, siteUrlOf, slugOfSegment } from './config-file.ts';
import {
  at,
  callArguments,
  callsNamed,
  exportedNode,
  isComputed,
  type JsModule,
  parseJsModule,
  returnedObject,
  type StaticValue,
  staticValue,
  textOf,
  configNotRead,
  readJsModule,
} from './js-static.ts';
import type { Path } from '../check-kit.ts';
import type { SplitFile } from '../markdown-file.ts';
import type {
  Dialect,
  FieldNames,
  FileClass,
  Placement,
  SiteDoc,
  SiteProfile,
  SiteReader,
} from './profile.ts';
import { authorOf } from './site-article.ts';

type AnyNode = ReturnType<typeof callsNamed>[number];

export const ELEVENTY_CONFIG_FILES = [
  'eleventy.config.js',
  'eleventy.config.mjs',
  'eleventy.config.cjs',
  'eleventy.config.ts',
  'eleventy.config.mts',
  '.eleventy.js',
  '.eleventy.mjs',
  '.eleventy.cjs',
];
// 11ty.dev/docs/config/#template-formats: Eleventy 3's default list.
const DEFAULT_FORMATS = ['html', 'liquid', 'ejs', 'md', 'hbs', 'mustache', 'haml', 'pug', 'njk', '11ty.js'];
const LANGUAGES: Record<string, string> = {
  njk: 'Nunjucks',
  liquid: 'Liquid',
  html: 'HTML',
  md: 'Markdown',
  '11ty.js': 'JavaScript',
};
const DATA_FILE_RE = /\.11tydata\.(js|cjs|mjs|json)$/;

/** `blog/blog.11tydata.js`, `blog/x.11tydata.json`, and a folder's `blog/blog.json`. */
function isDataFile(file: string): boolean {
  if (DATA_FILE_RE.test(file)) return true;
  return file.endsWith('.json') && posix.basename(file, '.json') === posix.basename(posix.dirname(file));
}

/** A data file's name without its data suffix: `blog/blog.11tydata.js` and `blog/blog.json` → `blog`. */
function dataStem(file: string): string {
  return posix
    .basename(file)
    .replace(DATA_FILE_RE, '')
    .replace(/\.json$/, '');
}
const GLOBAL_DATA_NAMES = ['metadata', 'site'];
// The RSS plugin's feed and the base blog's tag list leave these out: they name collections, not topics.
const NOT_TAGS = ['all', 'post', 'posts'];

/** One data file of the cascade, read as data. */
interface DataFile {
  file: string;
  data: Record<string, StaticValue>;
}

interface EleventySite {
  /** Absolute, so that Git runs in the site's folder. */
  root: string;
  /** When the site was opened: the date of a file Git does not know yet (Eleventy takes the build time). */
  openedAt: string;
  settings: SiteSettings;
  /** The input folder under the root, with `/`; `''` for the root itself. */
  input: string;
  /** Folders Eleventy never reads as templates: includes, layouts, data, output. */
  hidden: string[];
  /** The entries of .eleventyignore (at the root and in the input folder), as globs under the root. */
  ignored: string[];
  formats: Set<string>;
  markdownEngine: Dialect | null;
  htmlEngine: Dialect | null;
  excerptSeparator: string | null;
  passthrough: string[];
  collection: string;
  /** The drafts preprocessor's reason, or null: `draft` means nothing to Eleventy. */
  draftRule: string | null;
  /** `*.11tydata.*` files by path. */
  dataFiles: Map<string, DataFile>;
  /** The image transform plugin (@11ty/eleventy-img) renames the images templates reference. */
  imageTransform: boolean;
  /** Names of the config's own shortcodes (addShortcode, addPairedShortcode …). */
  shortcodes: string[];
  /** Global data values templates may read (`metadata.title`). */
  variables: Record<string, string | number | boolean | null>;
  /** Each template's path, found by readDoc (permalink as written or the default). */
  paths: Map<string, string>;
  /** The creation time of each template without a date (Eleventy's default date), found by readDoc. */
  created: Map<string, string>;
}

const FIELDS = (draftRule: string | null): FieldNames => ({
  title: ['title'],
  slug: [],
  publishedAt: ['date'],
  updatedAt: ['updated', 'lastModified', 'last_modified_at', 'lastmod'],
  excerpt: ['excerpt'],
  description: ['description'],
  coverImage: ['image', 'featuredImage', 'featured_image', 'cover', 'coverImage', 'ogImage'],
  tags: ['tags'],
  categories: [],
  authors: ['authors', 'author'],
  aliases: [],
  guid: ['guid'],
  draft: draftRule === null ? [] : ['draft'],
  published: [],
  own: ['permalink', 'eleventyExcludeFromCollections', 'templateEngineOverride'],
  ignored: {
    layout: 'a layout template name',
    eleventyNavigation: 'an entry of the eleventy-navigation plugin’s menus',
    eleventyComputed: 'values Eleventy computes at build time from the site’s code',
    pagination: 'a template paginating data, not an article',
    eleventyImport: 'which collections a template reads',
    ...(draftRule === null
      ? { draft: 'Eleventy has no drafts and this site’s config drops none: the post is published' }
      : {}),
  },
});

/** A string setting, or null; a computed one is warned about. */
function stringSetting(
  value: StaticValue | undefined,
  file: string,
  what: string,
  warnings: ImportProblem[],
): string | null {
  if (isComputed(value)) {
    warnings.push(configNotRead(file, value, what));
    return null;
  }
  return typeof value === 'string' ? value : null;
}

/** A data file's value: JSON, or a module's export (an object, or the object its function returns). */
async function readDataValue(
  root: string,
  file: string,
  warnings: ImportProblem[],
): Promise<Record<string, StaticValue>> {
  if (file.endsWith('.json')) {
    const read = await readConfigFile(root, file, warnings);
    return (read?.data ?? {}) as Record<string, StaticValue>;
  }
  const module = await readJsModule(root, file, warnings);
  if (module === null) return {};
  let node = exportedNode(module);
  if (node !== null) node = returnedObject(node) ?? node;
  const value = node === null ? null : staticValue(module, node);
  if (isComputed(value)) {
    warnings.push(configNotRead(file, value, 'the data file’s value'));
    return {};
  }
  return isObject(value) ? (value as Record<string, StaticValue>) : {};
}

/** The folder path `base/relative`, normalised under the root (`content/../_data` → `_data`). */
function under(base: string, relative: string): string {
  const joined = posix.normalize(posix.join(base === '' ? '.' : base, relative));
  return joined === '.' ? '' : joined.replace(/\/+$/, '');
}

interface ConfigValues {
  dir: Record<string, string>;
  formats: string[] | null;
  markdownEngine: StaticValue | undefined;
  htmlEngine: StaticValue | undefined;
}

/** `export const config = {…}`, the object the config function returns, and setInputDirectory(…) calls. */
function configValues(module: JsModule | null, file: string, warnings: ImportProblem[]): ConfigValues {
  const values: ConfigValues = { dir: {}, formats: null, markdownEngine: undefined, htmlEngine: undefined };
  if (module === null) return values;
  const exported = exportedNode(module);
  const sources = [exported === null ? null : returnedObject(exported), exportedNode(module, 'config')];
  for (const node of sources) {
    if (node === null) continue;
    const value = staticValue(module, node);
    for (const key of ['input', 'includes', 'layouts', 'data', 'output']) {
      const setting = stringSetting(at(value, 'dir', key), file, `dir.${key}`, warnings);
      if (setting !== null) values.dir[key] = setting;
    }
    const formats = at(value, 'templateFormats');
    if (Array.isArray(formats)) values.formats = formats.filter((f): f is string => typeof f === 'string');
    if (typeof formats === 'string') values.formats = formats.split(',').map((f) => f.trim());
    values.markdownEngine = at(value, 'markdownTemplateEngine') ?? values.markdownEngine;
    values.htmlEngine = at(value, 'htmlTemplateEngine') ?? values.htmlEngine;
  }
  const setters: Record<string, string> = {
    setInputDirectory: 'input',
    setIncludesDirectory: 'includes',
    setLayoutsDirectory: 'layouts',
    setDataDirectory: 'data',
    setOutputDirectory: 'output',
  };
  for (const call of callsNamed(module, Object.keys(setters))) {
    const key = setters[String((call['callee'] as { property: { name: string } }).property.name)];
    const setting = stringSetting(callArguments(module, call)[0], file, `dir.${key}`, warnings);
    if (setting !== null) values.dir[key] = setting;
  }
  for (const call of callsNamed(module, ['setTemplateFormats'])) {
    const [formats] = callArguments(module, call);
    if (Array.isArray(formats)) values.formats = formats.filter((f): f is string => typeof f === 'string');
    else if (typeof formats === 'string') values.formats = formats.split(',').map((f) => f.trim());
  }
  for (const call of callsNamed(module, ['setMarkdownTemplateEngine']))
    values.markdownEngine = callArguments(module, call)[0];
  return values;
}

function dialectOf(engine: StaticValue | undefined, fallback: Dialect | null): Dialect | null {
  if (engine === false) return null;
  if (engine === 'njk') return 'nunjucks';
  if (engine === 'liquid') return 'liquid';
  return fallback;
}

/** The RSS plugin's options: `addPlugin(feedPlugin, { collection, metadata })` (or the older rssPlugin with none). */
function feedOptions(module: JsModule | null): StaticValue | undefined {
  if (module === null) return undefined;
  for (const call of callsNamed(module, ['addPlugin'])) {
    const args = call['arguments'] as { type: string; name?: string }[];
    const options = callArguments(module, call)[1];
    const named = /feed|rss/i.test(args[0]?.name ?? '');
    if (named || at(options, 'collection') !== undefined) return options ?? {};
  }
  return undefined;
}

/** The config's words that Eleventy acts on, beyond `dir` and the template formats. */
function configRules(module: JsModule | null) {
  const rules = {
    excerptSeparator: null as string | null,
    passthrough: [] as string[],
    draftRule: null as string | null,
    shortcodes: [] as string[],
    imageTransform: false,
  };
  if (module === null) return rules;
  rules.imageTransform = callsNamed(module, ['addPlugin']).some((call) =>
    /ImageTransform|eleventy-?img/i.test(textOf(module, call)),
  );
  for (const call of callsNamed(module, ['setFrontMatterParsingOptions'])) {
    const options = callArguments(module, call)[0];
    // gray-matter's excerpt option; its separator defaults to `---`.
    if (at(options, 'excerpt') === true) {
      const separator = at(options, 'excerpt_separator');
      rules.excerptSeparator = typeof separator === 'string' ? separator : '---';
    }
  }
  for (const call of callsNamed(module, ['addPassthroughCopy'])) {
    const target = callArguments(module, call)[0];
    if (typeof target === 'string') rules.passthrough.push(target);
    else if (isObject(target)) rules.passthrough.push(...Object.keys(target));
  }
  for (const call of callsNamed(module, ['addPreprocessor'])) {
    // The base blog's `if (data.draft && …) return false`: drafts are left out of builds.
    if (/\.draft\b/.test(textOf(module, call)))
      rules.draftRule = 'draft: true: the drafts preprocessor drops it from builds (ELEVENTY_RUN_MODE=build)';
  }
  const shortcodeCalls = callsNamed(module, [
    'addShortcode',
    'addPairedShortcode',
    'addNunjucksShortcode',
    'addLiquidShortcode',
    'addAsyncShortcode',
  ]);
  for (const call of shortcodeCalls) {
    const name = callArguments(module, call)[0];
    if (typeof name === 'string') rules.shortcodes.push(name);
  }
  return rules;
}

/** Every `*.11tydata.*` file under the input folder. */
async function findDataFiles(root: string, input: string, hidden: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const walkFolder = async (relative: string): Promise<void> => {
    const entries = await readdir(relative === '' ? root : join(root, relative), {
      withFileTypes: true,
    }).catch(() => []);
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory() && !hidden.includes(child)) await walkFolder(child);
      else if (entry.isFile() && isDataFile(child)) found.push(child);
    }
  };
  await walkFolder(input);
  return found;
}

/** The global data the feed and templates use: `_data/metadata.*` (or `site.*`). */
async function globalData(root: string, dataDir: string, warnings: ImportProblem[]) {
  for (const name of GLOBAL_DATA_NAMES) {
    const candidates = ['js', 'mjs', 'cjs', 'json'].map((ext) => under(dataDir, `${name}.${ext}`));
    const file = await firstFile(root, candidates);
    if (file !== null) return { name, file, data: await readDataValue(root, file, warnings) };
  }
  return null;
}

function authorFrom(value: StaticValue | undefined, siteUrl: string | null): AuthorInput | null {
  if (typeof value === 'string' && value.trim() !== '')
    return authorOf(null, { name: value.trim() }, siteUrl);
  if (isObject(value) && !isComputed(value)) return authorOf(null, value, siteUrl);
  return null;
}

async function openEleventy(root: string, _options: ReadOptions): Promise<SiteReader> {
  const warnings: ImportProblem[] = [];
  const configName = await firstFile(root, ELEVENTY_CONFIG_FILES);
  const module = configName === null ? null : await readJsModule(root, configName, warnings);
  const values = configValues(module, configName ?? ELEVENTY_CONFIG_FILES[0], warnings);
  const input = under('', values.dir['input'] ?? '.');
  const hidden = [
    under(input, values.dir['includes'] ?? '_includes'),
    ...(values.dir['layouts'] === undefined ? [] : [under(input, values.dir['layouts'])]),
    under(input, values.dir['data'] ?? '_data'),
    under('', values.dir['output'] ?? '_site'),
  ];
  const rules = configRules(module);
  const feed = feedOptions(module);
  const data = await globalData(root, hidden[hidden.length - 2], warnings);
  const feedFile = configName ?? ELEVENTY_CONFIG_FILES[0];
  // The feed's own metadata is what the old feed published; the site data is the fallback.
  const base = stringSetting(at(feed, 'metadata', 'base'), feedFile, 'the feed’s metadata.base', warnings);
  const dataUrl = data === null ? null : stringSetting(at(data.data, 'url'), data.file, 'url', warnings);
  const siteUrl = siteUrlOf(base) ?? siteUrlOf(dataUrl);
  const defaultAuthor =
    authorFrom(at(feed, 'metadata', 'author'), siteUrl) ??
    (data === null ? null : authorFrom(at(data.data, 'author'), siteUrl));
  const collection = at(feed, 'collection', 'name');
  const dataFiles = new Map<string, DataFile>();
  for (const file of await findDataFiles(root, input, hidden))
    dataFiles.set(file, { file, data: await readDataValue(root, file, warnings) });
  const site: EleventySite = {
    root: resolve(root),
    openedAt: new Date().toISOString(),
    settings: {
      siteUrl,
      urlPattern: null,
      // Eleventy reads a date without a zone as UTC and has no time zone setting.
      timeZone: 'UTC',
      defaultAuthor: defaultAuthor === null ? null : { name: defaultAuthor.name, image: defaultAuthor.image },
      logoUrl: null,
    },
    input,
    hidden,
    ignored: await ignoreList(root, input),
    formats: new Set(values.formats ?? DEFAULT_FORMATS),
    markdownEngine: dialectOf(values.markdownEngine, 'liquid'),
    htmlEngine: dialectOf(values.htmlEngine, 'liquid'),
    ...rules,
    collection: typeof collection === 'string' ? collection : 'posts',
    dataFiles,
    variables: data === null ? {} : variablesOf(data.name, data.data),
    paths: new Map(),
    created: new Map(),
  };
  site.settings.urlPattern = urlPatternOf(site);
  return eleventyReader(site, defaultAuthor, warnings);
}

function variablesOf(name: string, data: Record<string, StaticValue>) {
  const variables: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(data)) {
    if (['string', 'number', 'boolean'].includes(typeof value)) variables[`${name}.${key}`] = value as string;
  }
  return variables;
}

/** The folders whose directory data file tags their templates with the feed's collection. */
function taggingFolders(site: EleventySite): string[] {
  return [...site.dataFiles.values()]
    .filter((file) => isDirectoryDataFile(file.file) && tagsOf(file.data['tags']).includes(site.collection))
    .map((file) => posix.dirname(file.file));
}

/** `/blog/:slug/` when one folder's data file makes the posts (Eleventy's default output path). */
function urlPatternOf(site: EleventySite): string | null {
  const folders = taggingFolders(site);
  if (folders.length !== 1) return null;
  const relative = inputRelative(site, `${folders[0]}/x`);
  const folder = posix.dirname(relative);
  return folder === '.' ? '/:slug/' : `/${folder}/:slug/`;
}

function isDirectoryDataFile(file: string): boolean {
  return dataStem(file) === posix.basename(posix.dirname(file));
}

function tagsOf(value: StaticValue | undefined): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((tag): tag is string => typeof tag === 'string');
  return [];
}

function inputRelative(site: EleventySite, file: string): string {
  return site.input === '' ? file : file.slice(site.input.length + 1);
}

/** A template's extension among the template formats (`11ty.js` before `js`), or null. */
function formatOf(site: EleventySite, file: string): string | null {
  const name = posix.basename(file);
  if (name.endsWith('.11ty.js')) return site.formats.has('11ty.js') ? '11ty.js' : null;
  const ext = posix.extname(name).slice(1).toLowerCase();
  return site.formats.has(ext) ? ext : null;
}

/** .eleventyignore's lines (11ty.dev/docs/ignores): paths or globs, relative to the folder holding the file. */
async function ignoreList(root: string, input: string): Promise<string[]> {
  const entries: string[] = [];
  for (const folder of [...new Set(['', input])]) {
    const file = folder === '' ? '.eleventyignore' : `${folder}/.eleventyignore`;
    const text = await readText(join(root, ...file.split('/')), file, []).catch(() => null);
    for (const line of (text ?? '').split('\n')) {
      const entry = line.trim();
      if (entry === '' || entry.startsWith('#') || entry.startsWith('!')) continue;
      entries.push(under(folder, entry.replace(/^\.\//, '')));
    }
  }
  return entries;
}

function ignoredBy(site: EleventySite, file: string): string | undefined {
  return site.ignored.find(
    (entry) => file === entry || file.startsWith(`${entry}/`) || posix.matchesGlob(file, entry),
  );
}

function classifyEleventy(site: EleventySite, file: string): FileClass {
  if (site.input !== '' && !file.startsWith(`${site.input}/`)) return { kind: 'ignore' };
  const ignored = ignoredBy(site, file);
  if (ignored !== undefined)
    return { kind: 'skipped', reason: `listed in .eleventyignore (${ignored}): Eleventy does not read it` };
  // With the root as input, the site's own code sits beside its templates.
  if (ELEVENTY_CONFIG_FILES.includes(file) || /^package(-lock)?\.json$/.test(file)) return { kind: 'ignore' };
  if (isDataFile(file)) {
    const data = site.dataFiles.get(file)?.data ?? {};
    const keys = Object.entries(data).map(([key, value]) =>
      key === 'tags' ? `tags: ${tagsOf(value).join(', ')}` : key,
    );
    const which = isDirectoryDataFile(file)
      ? `every file in ${posix.dirname(file)}`
      : `${posix.dirname(file)}/${dataStem(file)}.*`;
    return {
      kind: 'skipped',
      reason: `${isDirectoryDataFile(file) ? 'directory' : 'template'} data file: read for the data cascade (${keys.join(', ')}) of ${which}`,
    };
  }
  // What a template is depends on its data (tags, permalink, exclusion): readDoc decides.
  // What a template is depends on its data (tags, permalink, exclusion): readDoc decides once its
  // front matter is read. Without front matter (which Eleventy does not need) it stays a page.
  const format = formatOf(site, file);
  if (format !== null) return { kind: 'page', reason: templateWithoutMatter(site, file, format) };
  const copied = site.passthrough.find((written) => {
    const pattern = written.replace(/^\.\/|\/+$/g, '');
    return file === pattern || posix.matchesGlob(file, pattern) || file.startsWith(`${pattern}/`);
  });
  if (copied !== undefined)
    return { kind: 'skipped', reason: `passthrough copy (${copied}): referenced by URL` };
  if (site.imageTransform && /\.(png|jpe?g|gif|webp|avif|svg)$/i.test(file)) {
    return {
      kind: 'skipped',
      reason:
        'an image for the image transform (@11ty/eleventy-img): published under generated names where a template uses it',
    };
  }
  return {
    kind: 'skipped',
    reason: 'neither a template nor a passthrough copy: Eleventy leaves it out of the site',
  };
}

/** The data files of a template's cascade, the nearest last: directory data files from the input down, then its own. */
function cascadeOf(site: EleventySite, file: string): DataFile[] {
  const files: DataFile[] = [];
  const folders = posix.dirname(file).split('/');
  for (let depth = 1; depth <= folders.length; depth++) {
    const folder = folders.slice(0, depth).join('/');
    if (site.input !== '' && folder.length < site.input.length) continue;
    const name = posix.basename(folder);
    for (const suffix of ['json', '11tydata.json', '11tydata.js', '11tydata.cjs', '11tydata.mjs']) {
      const found = site.dataFiles.get(`${folder}/${name}.${suffix}`);
      if (found !== undefined) files.push(found);
    }
  }
  const stem = file.replace(/\.[^/.]+$/, '').replace(/\.11ty$/, '');
  for (const ext of ['json', 'js', 'cjs', 'mjs']) {
    const own = site.dataFiles.get(`${stem}.11tydata.${ext}`);
    if (own !== undefined) files.push(own);
  }
  return files;
}

/**
 * The values the data files give a template, the nearest winning, `tags` merged as Eleventy merges
 * arrays; a value the data file computes is left out (it is not known without running it).
 */
function cascadeValues(site: EleventySite, file: string): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const tags: string[] = [];
  for (const data of cascadeOf(site, file)) {
    for (const [key, value] of Object.entries(data.data)) {
      if (isComputed(value)) continue;
      if (key === 'tags') tags.push(...tagsOf(value));
      else values[key] = value;
    }
  }
  if (tags.length > 0) values['tags'] = [...new Set(tags)];
  return values;
}

/** The input path as Eleventy writes it: `blog/x.md` → `/blog/x/`, `blog/x/x.md` and `blog/x/index.md` → `/blog/x/`. */
function defaultPath(site: EleventySite, file: string): string {
  const relative = inputRelative(site, file)
    .replace(/\.11ty\.js$/, '')
    .replace(/\.[^/.]+$/, '');
  const name = posix.basename(relative);
  const folder = posix.dirname(relative);
  const same = name === 'index' || name === posix.basename(folder);
  const path = same ? folder : relative;
  return path === '.' ? '/' : `/${path}/`;
}

/** A permalink as a path: `/notes/compost/`, `404.html` → `/404.html`, `/x/index.html` → `/x/`. */
function permalinkPath(value: string): string {
  return `/${value.trim()}`.replace(/\/{2,}/g, '/').replace(/\/index\.html?$/, '/');
}

const PERMALINK_VARIABLE_RE = /\{\{-?\s*([^}]*?)\s*-?\}\}/g;

/** A permalink template's few variables (page.fileSlug, page.filePathStem, title | slugify); null when another is used. */
function fillPermalink(site: EleventySite, doc: SiteDoc, template: string): string | null {
  const relative = inputRelative(site, doc.file).replace(/\.[^/.]+$/, '');
  const stem = posix.basename(relative);
  const fileSlug =
    stem === 'index' ? posix.basename(posix.dirname(relative)) : stem.replace(/^\d{4}-\d{2}-\d{2}-/, '');
  const title = typeof doc.data['title'] === 'string' ? doc.data['title'] : '';
  const values: Record<string, string> = {
    'page.fileSlug': fileSlug,
    'page.filePathStem': `/${relative}`,
    'title | slugify': slugOfSegment(title) ?? '',
    'title | slug': slugOfSegment(title) ?? '',
  };
  let unknown = false;
  const filled = template.replace(PERMALINK_VARIABLE_RE, (_, expression: string) => {
    const value = values[expression.replace(/\s+/g, ' ')];
    if (value === undefined) unknown = true;
    return value ?? '';
  });
  return unknown || /\{%/.test(filled) ? null : filled;
}

/** A template's cascade: front matter over its data files; `tags` merged. */
function templateData(site: EleventySite, doc: SiteDoc) {
  const cascade = cascadeOf(site, doc.file);
  const pick = (key: string): unknown => {
    if (doc.data[key] !== undefined) return doc.data[key];
    for (const file of [...cascade].reverse()) if (file.data[key] !== undefined) return file.data[key];
    return undefined;
  };
  const tags = new Set([
    ...cascade.flatMap((file) => tagsOf(file.data['tags'])),
    ...tagsOf(doc.data['tags'] as StaticValue),
  ]);
  const exclude = pick('eleventyExcludeFromCollections');
  const excluded = exclude === true || (Array.isArray(exclude) && exclude.includes(site.collection));
  return { pick, tags, excluded, cascade };
}

/** Date keywords (11ty.dev/docs/dates): their value from the file or Git, and why it is unstable. */
async function keywordDate(
  site: EleventySite,
  file: string,
  keyword: string,
): Promise<{ iso: string; why: string } | null> {
  const path = join(site.root, ...file.split('/'));
  const now = site.openedAt;
  switch (keyword.trim().toLowerCase()) {
    case 'last modified':
      return {
        iso: (await stat(path)).mtime.toISOString(),
        why: 'date: Last Modified is the file’s modification time, which changes with every checkout or copy',
      };
    case 'created':
      return {
        iso: (await stat(path)).birthtime.toISOString(),
        why: 'date: Created is the file’s creation time, which changes with every checkout or copy',
      };
    case 'git last modified':
      return {
        iso: (await gitCommitTime(site.root, path, 'modified')) ?? now,
        why: 'date: git Last Modified is the file’s last commit (the import time outside a Git work tree)',
      };
    case 'git created':
      return {
        iso: (await gitCommitTime(site.root, path, 'created')) ?? now,
        why: 'date: git Created is the file’s first commit (the import time outside a Git work tree or before the file is committed)',
      };
    default:
      return null;
  }
}

/** The date keywords replaced by the dates they stand for; a template without a date takes its creation time. */
async function resolveDate(site: EleventySite, doc: SiteDoc, warnings: ImportProblem[]): Promise<void> {
  const key = 'date';
  const value = doc.data[key];
  const warnAt = (line: number, message: string) =>
    warnings.push({ file: doc.file, line, kind: 'unstable-date', message });
  if (typeof value === 'string') {
    const keyword = await keywordDate(site, doc.file, value);
    if (keyword === null) return;
    doc.data[key] = keyword.iso;
    warnAt(doc.locate([key]), `${keyword.why}: read as ${keyword.iso}`);
  } else if (value === undefined && eleventyFileDate(doc.file) === null) {
    const created = await keywordDate(site, doc.file, 'Created');
    if (created === null) return;
    site.created.set(doc.file, created.iso);
    warnAt(
      1,
      `no date: Eleventy dates it by the file’s creation time, which changes with every checkout or copy: read as ${created.iso}`,
    );
  }
}

/** A date at the start of the file name (`2024-01-20-title.md`), which Eleventy reads as the page date. */
function eleventyFileDate(file: string): string | null {
  const match = /^(\d{4}-\d{2}-\d{2})/.exec(posix.basename(file));
  return match === null ? null : `${match[1]}T00:00:00.000Z`;
}

/** What a template is, from its cascade: a post, a page, or nothing written. */
async function readTemplate(
  site: EleventySite,
  doc: SiteDoc,
): Promise<{ kind: FileClass; warnings: ImportProblem[] }> {
  const warnings: ImportProblem[] = [];
  const { pick, tags, excluded } = templateData(site, doc);
  const permalink = pick('permalink');
  if (permalink === false)
    return {
      kind: {
        kind: 'skipped',
        reason: 'permalink: false: Eleventy writes no file (the template is data only)',
      },
      warnings,
    };
  let path = defaultPath(site, doc.file);
  if (typeof permalink === 'string') {
    const filled = fillPermalink(site, doc, permalink);
    if (filled === null) {
      warnings.push({
        file: doc.file,
        line: doc.locate(['permalink']),
        kind: 'permalink-template',
        message: `permalink ${JSON.stringify(permalink)} uses template values the import cannot compute: the default path ${path} is kept`,
      });
    } else path = permalinkPath(filled);
  }
  site.paths.set(doc.file, path);
  const name = posix.basename(doc.file);
  if (/^404\./.test(name) || /^\/404(\.html|\/)$/.test(path)) {
    const how = typeof permalink === 'string' ? `: permalink ${permalink}` : '';
    return {
      kind: { kind: 'skipped', reason: `404 page${how}${excluded ? ', excluded from collections' : ''}` },
      warnings,
    };
  }
  const format = formatOf(site, doc.file) ?? 'md';
  if (tags.has(site.collection) && format !== '11ty.js') {
    await resolveDate(site, doc, warnings);
    if (Array.isArray(doc.data['tags']) || typeof doc.data['tags'] === 'string') {
      // A string is one tag in Eleventy; the collection's own name is not a topic.
      doc.data['tags'] = tagsOf(doc.data['tags'] as StaticValue).filter((tag) => !NOT_TAGS.includes(tag));
    }
    return { kind: { kind: 'article' }, warnings };
  }
  if (pick('pagination') !== undefined) {
    const reason = 'a paginated template (pagination): one page per item of its data, not a post';
    return { kind: { kind: 'page', reason }, warnings };
  }
  return {
    kind: { kind: 'page', reason: pageReason(site, doc.body, path, format, excluded) },
    warnings,
  };
}

/** The report's reason for a template without front matter, from its folders' data alone. */
function templateWithoutMatter(site: EleventySite, file: string, format: string): string {
  const tagged = cascadeOf(site, file).some((data) => tagsOf(data.data['tags']).includes(site.collection));
  if (tagged && format !== '11ty.js')
    return `tagged ${site.collection} by its folder's data but without front matter: no title to import it with`;
  return pageReason(site, null, defaultPath(site, file), format, false);
}

function pageReason(
  site: EleventySite,
  body: string | null,
  path: string,
  format: string,
  excluded: boolean,
): string {
  if (path === '/') {
    const listing = body?.includes('collections.') === true ? 'listing ' : '';
    return `the home page, a ${LANGUAGES[format] ?? format} ${listing}template${excluded ? ' excluded from collections' : ''}`;
  }
  const folders = taggingFolders(site);
  return folders.length > 0
    ? `outside ${folders.join(' and ')}: not tagged ${site.collection}`
    : `not tagged ${site.collection}: not a post`;
}

function placeEleventy(site: EleventySite, doc: SiteDoc): Placement {
  const path = site.paths.get(doc.file) ?? defaultPath(site, doc.file);
  const siteUrl = site.settings.siteUrl;
  return {
    path,
    slugFrom: doc.data['permalink'] === undefined ? [] : ['permalink'],
    fallbackSlug: slugOfSegment(posix.basename(doc.file).replace(/\.[^.]+$/, '')) ?? 'post',
    // The RSS plugin's entry id is the absolute post URL.
    guid: siteUrl === null ? null : `${siteUrl}${path}`,
    section: null,
  };
}

/** The template languages of a file's body: `templateEngineOverride`, else the config's engine for its format. */
function dialectsOf(site: EleventySite, doc: SiteDoc): Dialect[] {
  const override = doc.data['templateEngineOverride'];
  if (typeof override === 'string') {
    return override
      .split(',')
      .map((engine) => dialectOf(engine.trim() as StaticValue, null))
      .filter((dialect): dialect is Dialect => dialect !== null);
  }
  const format = formatOf(site, doc.file);
  const dialect =
    format === 'md'
      ? site.markdownEngine
      : format === 'html'
        ? site.htmlEngine
        : dialectOf(format ?? '', null);
  return dialect === null ? [] : [dialect];
}

function eleventyReader(
  site: EleventySite,
  defaultAuthor: AuthorInput | null,
  warnings: ImportProblem[],
): SiteReader {
  return {
    settings: site.settings,
    warnings,
    problems: [],
    roots: [site.input],
    skipEntry: (path, isDirectory) => isDirectory && (site.hidden.includes(path) || path === 'node_modules'),
    classify: (file) => classifyEleventy(site, file),
    cascade: (file) => cascadeValues(site, file),
    readDoc: (doc) => readTemplate(site, doc),
    splitDoc: jsFrontMatter,
    processedImages: () =>
      site.imageTransform
        ? 'the image transform (@11ty/eleventy-img) publishes it under a generated name'
        : null,
    fields: FIELDS(site.draftRule),
    caseInsensitiveKeys: false,
    dialects: (doc) => dialectsOf(site, doc),
    templateOptions: (doc) => ({
      siteShortcodes: site.shortcodes,
      variables: {
        ...site.variables,
        title: typeof doc.data['title'] === 'string' ? doc.data['title'] : null,
        'page.url': site.paths.get(doc.file) ?? null,
      },
    }),
    authors: new Map(),
    defaultAuthor,
    fileDate: (file) => eleventyFileDate(file) ?? site.created.get(file) ?? null,
    excerptSeparator: () => site.excerptSeparator,
    dividerFirst: true,
    exclusion: (doc) => {
      if (!templateData(site, doc).excluded) return null;
      const path = site.paths.get(doc.file) ?? defaultPath(site, doc.file);
      return {
        kind: 'excluded',
        reason: `eleventyExcludeFromCollections: true: Eleventy writes ${path} but leaves it out of every collection, so out of the post list and the feed`,
        path:
          doc.data['eleventyExcludeFromCollections'] === undefined ? [] : ['eleventyExcludeFromCollections'],
      };
    },
    reasons: {
      draft: site.draftRule ?? 'draft: true',
      unpublished: 'published: false',
      future: null,
    },
    place: (doc) => placeEleventy(site, doc),
    page: (doc, file, reason) => ({
      kind: 'page',
      reason,
      path: site.paths.get(file) ?? defaultPath(site, file),
    }),
    refCandidates: (target) => {
      const clean = target.trim().replace(/^\/+/, '');
      return [clean, `${site.input}/${clean}`].filter((candidate) => candidate !== '');
    },
  };
}

const JS_FENCE_RE = /^---\s*(js|javascript)\s*$/;

/**
 * `---js` front matter (11ty.dev/docs/data-frontmatter/#java-script-front-matter): its top-level
 * declarations (`const title = "…"`) or, in the older form, one object literal, read as data. A
 * value the code computes (a function, an expression) is left out: Eleventy would run it.
 */
function jsFrontMatter(file: string, text: string): SplitFile | null {
  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  if (!JS_FENCE_RE.test(lines[0] ?? '')) return null;
  const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === '---');
  const failed = (line: number, message: string): SplitFile => ({
    data: {},
    locate: () => 1,
    body: '',
    bodyLine: 1,
    problems: [{ file, line, message }],
  });
  if (close === -1) return failed(1, 'front matter is not closed: no "---" line after "---js"');
  const code = lines.slice(1, close).join('\n');
  let parsed = parseJsModule(file, code);
  if ('problem' in parsed) parsed = parseJsModule(file, `(${code}\n)`);
  if ('problem' in parsed)
    return failed(parsed.problem.line + 1, `JavaScript front matter ${parsed.problem.message}`);
  const { data, lines: fieldLines } = jsDeclarations(parsed.module);
  let body = lines.slice(close + 1).join('\n');
  let bodyLine = close + 2;
  if (body.startsWith('\n')) {
    body = body.slice(1);
    bodyLine++;
  }
  const locate = (path: Path) => 1 + (fieldLines.get(String(path[0])) ?? 0);
  return { data, locate, body, bodyLine, problems: [] };
}

/** The literal values of a module's top-level declarations, or of its one object literal, with their lines. */
function jsDeclarations(module: JsModule) {
  const data: Record<string, unknown> = {};
  const lines = new Map<string, number>();
  const keep = (name: string, value: StaticValue, line: number) => {
    if (isComputed(value)) return;
    data[name] = value;
    lines.set(name, line);
  };
  for (const statement of (module.program as unknown as { body: AnyNode[] }).body) {
    const declarators =
      statement.type === 'VariableDeclaration' ? (statement['declarations'] as AnyNode[]) : [];
    for (const declarator of declarators) {
      const id = declarator['id'] as AnyNode;
      const init = declarator['init'] as AnyNode | null;
      if (id.type !== 'Identifier' || init === null) continue;
      keep(String(id['name']), staticValue(module, init), declarator.loc?.start.line ?? 0);
    }
    const expression = statement['expression'] as AnyNode | undefined;
    if (statement.type === 'ExpressionStatement' && expression?.type === 'ObjectExpression') {
      for (const property of expression['properties'] as AnyNode[]) {
        const key = property['key'] as AnyNode | undefined;
        const name = key?.['name'] ?? key?.['value'];
        if (typeof name === 'string')
          keep(name, staticValue(module, property['value'] as AnyNode), property.loc?.start.line ?? 0);
      }
    }
  }
  return { data, lines };
}

async function detectEleventy(root: string): Promise<boolean> {
  for (const name of ELEVENTY_CONFIG_FILES) if (await isFile(join(root, name))) return true;
  return false;
}

export const eleventyProfile: SiteProfile = { name: 'eleventy', detect: detectEleventy, open: openEleventy };
