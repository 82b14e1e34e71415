// Hugo's layout (gohugo.io: configuration, permalinks, URLs, front matter, summaries, page
// bundles): hugo.toml (or config.toml, YAML, JSON) with `content/`; posts are the regular pages of
// the post sections; `_index.md` files are list pages; a folder with `index.md` is a page bundle
// whose other files are its resources. Paths follow [permalinks] with `:slug` = the slug field,
// else the title urlized; `url` replaces the path. Keys of the config and front matter are
// case-insensitive, as Hugo reads them.
import { readdir, readFile } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import { calendarDate, isTimeZone, urlPatternProblem } from '../../article-url.ts';
import { isObject, type Path } from '../check-kit.ts';
import type { AuthorInput, ImportProblem, ReadOptions, SiteSettings } from '../records.ts';
import type { TemplateContext } from '../templates/expand.ts';
import { splitFrontMatter } from '../markdown-file.ts';
import { authorOf } from './site-article.ts';
import { firstFile, isFolder, lastSegment, openSiteConfig, siteUrlOf, slugOfSegment } from './config-file.ts';
import type {
  ArticleFacts,
  FieldNames,
  FileClass,
  Placement,
  SiteDoc,
  SiteProfile,
  SiteReader,
} from './profile.ts';

const CONFIG_FILES = [
  'hugo.toml',
  'hugo.yaml',
  'hugo.yml',
  'hugo.json',
  'config.toml',
  'config.yaml',
  'config.yml',
  'config.json',
  'config/_default/hugo.toml',
  'config/_default/hugo.yaml',
  'config/_default/config.toml',
  'config/_default/config.yaml',
];
const MARKDOWN_RE = /\.(md|markdown|mdown)$/i;
// Formats Hugo renders through external helpers (or as is): reported, not imported.
const OTHER_CONTENT_RE = /\.(html?|org|adoc|asciidoc|pandoc|pdc|rst)$/i;
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const FIELDS: FieldNames = {
  title: ['title'],
  slug: ['slug'],
  publishedAt: ['date', 'publishDate', 'pubdate', 'published'],
  updatedAt: ['lastmod', 'modified'],
  excerpt: ['summary'],
  description: ['description'],
  coverImage: ['images', 'image', 'featured_image', 'featuredImage', 'cover', 'thumbnail'],
  tags: ['tags'],
  categories: ['categories'],
  authors: ['authors', 'author'],
  aliases: ['aliases'],
  guid: ['guid'],
  draft: ['draft'],
  published: [],
  own: ['url', 'expiryDate', 'unpublishdate', 'build'],
  ignored: {
    layout: 'a theme template name',
    type: 'a theme content type (which templates render the page)',
    weight: 'the order of the theme’s lists',
    menu: 'an entry of the theme’s menus',
    menus: 'an entry of the theme’s menus',
    toc: 'a theme switch (table of contents)',
    comments: 'a theme switch (comments)',
    showToc: 'a theme switch (table of contents)',
    math: 'a theme switch (math rendering)',
    linkTitle: 'the shorter title of the theme’s menus and lists',
    keywords: 'meta keywords of the theme’s head template',
    outputs: 'Hugo output formats',
    translationKey: 'links translations of one page',
    markup: 'the renderer Hugo picks (Markdown is assumed)',
  },
};

/** Config keys lowercased (Hugo reads them case-insensitively); values untouched except nested tables. */
function lowerKeys(value: unknown): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key.toLowerCase(), lowerKeys(inner)]),
  );
}

/** Hugo's urlize: lowercased, spaces to hyphens, only letters, digits, marks and `._~+#-` kept. */
export function urlize(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[^\p{L}\p{N}\p{M}._~+#/-]/gu, '')
    .replace(/-{2,}/g, '-');
}

interface HugoSite {
  settings: SiteSettings;
  contentDir: string;
  /** Section → page permalink pattern. */
  permalinks: Map<string, string>;
  mainSections: string[] | null;
  templateOptions: TemplateContext['options'];
  /** Folder → the `cascade` values of its _index.md, which reach every page below it. */
  cascades: Map<string, Record<string, unknown>>;
}

function readPermalinks(config: Record<string, unknown>): Map<string, string> {
  const permalinks = new Map<string, string>();
  const table = config['permalinks'];
  if (!isObject(table)) return permalinks;
  for (const [key, value] of Object.entries(table)) {
    if (typeof value === 'string') permalinks.set(key, value);
  }
  // [permalinks.page] (Hugo 0.119+) wins over the older flat form.
  const pages = table['page'];
  if (isObject(pages))
    for (const [key, value] of Object.entries(pages))
      if (typeof value === 'string') permalinks.set(key, value);
  return permalinks;
}

function defaultAuthorOf(config: Record<string, unknown>): AuthorInput | null {
  const params = isObject(config['params']) ? config['params'] : {};
  const candidates = [params['author'], config['author']];
  for (const value of candidates) {
    if (typeof value === 'string' && value.trim() !== '') return authorOf(null, { name: value }, null);
    if (isObject(value)) {
      const author = authorOf(null, value, siteUrlOf(config['baseurl']));
      if (author !== null) return author;
    }
  }
  return null;
}

/** The Folio URL pattern a Hugo permalink gives, when only Folio's tokens appear in it. */
function folioPattern(pattern: string | undefined): string | null {
  if (pattern === undefined) return null;
  const folio = pattern.replace(/:slugorfilename|:slugorcontentbasename/g, ':slug');
  return urlPatternProblem(folio) === null ? folio : null;
}

async function openHugo(root: string, options: ReadOptions): Promise<SiteReader> {
  const problems: ImportProblem[] = [];
  const warnings: ImportProblem[] = [];
  // A site without a config file (a forced --format) reads with the generator's defaults.
  const configFile = await openSiteConfig(root, CONFIG_FILES, problems);
  const config = lowerKeys(configFile.data) as Record<string, unknown>;
  // The config's own URL wins over the import's: the old feed's ids were made with it.
  const siteUrl = siteUrlOf(config['baseurl']) ?? siteUrlOf(options.siteUrl);
  const zone = typeof config['timezone'] === 'string' ? config['timezone'] : null;
  if (zone !== null && !isTimeZone(zone)) {
    warnings.push({
      file: configFile.file,
      line: configFile.locate(['timeZone']),
      kind: 'invalid-time-zone',
      message: `timeZone ${JSON.stringify(zone)} is not an IANA time zone: dates without an offset are read in UTC`,
    });
  }
  const permalinks = readPermalinks(config);
  const params = isObject(config['params']) ? config['params'] : {};
  const main = params['mainsections'];
  const contentDir =
    typeof config['contentdir'] === 'string' ? config['contentdir'].replace(/^\/+|\/+$/g, '') : 'content';
  const site: HugoSite = {
    templateOptions: await templateOptionsOf(root, config),
    cascades: await readCascades(root, contentDir),
    contentDir,
    permalinks,
    mainSections: Array.isArray(main) ? main.filter((s): s is string => typeof s === 'string') : null,
    settings: {
      siteUrl,
      urlPattern: null,
      timeZone: zone !== null && isTimeZone(zone) ? zone : null,
      defaultAuthor: null,
      logoUrl: null,
    },
  };
  const defaultAuthor = defaultAuthorOf(config);
  site.settings.defaultAuthor =
    defaultAuthor === null ? null : { name: defaultAuthor.name, image: defaultAuthor.image };
  return hugoReader(site, defaultAuthor, problems, warnings);
}

/**
 * The `cascade` of every _index.md under the content folder (gohugo.io/content-management/front-matter/#cascade):
 * a map, or a list of maps; an entry aimed (`_target`, `target`) at other kinds than pages is left out.
 */
async function readCascades(root: string, contentDir: string): Promise<Map<string, Record<string, unknown>>> {
  const cascades = new Map<string, Record<string, unknown>>();
  const entries = await readdir(join(root, contentDir), { recursive: true }).catch(() => [] as string[]);
  for (const entry of entries) {
    const relative = entry.split(sep).join('/');
    if (!/(^|\/)_index\.(md|markdown)$/i.test(relative)) continue;
    const text = await readFile(join(root, contentDir, entry), 'utf8').catch(() => null);
    const split = text === null ? null : splitFrontMatter(relative, text);
    const raw = split === null ? undefined : (lowerKeys(split.data) as Record<string, unknown>)['cascade'];
    const values: Record<string, unknown> = {};
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      if (!isObject(item)) continue;
      const target = item['_target'] ?? item['target'];
      if (isObject(target) && target['kind'] !== undefined && target['kind'] !== 'page') continue;
      const { _target: _t, target: _u, ...rest } = item;
      Object.assign(values, rest);
    }
    if (Object.keys(values).length > 0) {
      const folder = posix.dirname(relative);
      cascades.set(folder === '.' ? contentDir : `${contentDir}/${folder}`, values);
    }
  }
  return cascades;
}

/** The cascaded values a file receives: from the content root's _index.md down to its nearest one (the nearer wins). */
function cascadeFor(site: HugoSite, file: string): Record<string, unknown> {
  const folders: string[] = [];
  for (let folder = posix.dirname(file); folder !== '.' && folder !== ''; folder = posix.dirname(folder)) {
    folders.unshift(folder);
    if (folder === site.contentDir) break;
  }
  return Object.assign({}, ...folders.map((folder) => site.cascades.get(folder) ?? {}));
}

/** Names of the site's own shortcodes: templates under layouts/ of the site and of its theme. */
async function siteShortcodes(root: string, config: Record<string, unknown>): Promise<string[]> {
  const theme = Array.isArray(config['theme']) ? config['theme'][0] : config['theme'];
  const folders = ['layouts/_shortcodes', 'layouts/shortcodes'];
  if (typeof theme === 'string') folders.push(...folders.map((folder) => `themes/${theme}/${folder}`));
  const names = new Set<string>();
  for (const folder of folders) {
    const entries = await readdir(join(root, ...folder.split('/'))).catch(() => []);
    for (const entry of entries) if (/\.(html|md)$/.test(entry)) names.add(entry.replace(/\..*$/, ''));
  }
  return [...names].sort();
}

/** Hugo's privacy settings for embeds, the site's shortcodes, and params a `param` shortcode may read. */
async function templateOptionsOf(
  root: string,
  config: Record<string, unknown>,
): Promise<TemplateContext['options']> {
  const privacy = isObject(config['privacy']) ? config['privacy'] : {};
  const youtube = isObject(privacy['youtube']) ? privacy['youtube'] : {};
  const vimeo = isObject(privacy['vimeo']) ? privacy['vimeo'] : {};
  const params = isObject(config['params']) ? config['params'] : {};
  const variables: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(params)) {
    if (['string', 'number', 'boolean'].includes(typeof value))
      variables[key] = value as string | number | boolean;
  }
  return {
    youtubePrivacyEnhanced: youtube['privacyenhanced'] === true,
    vimeoDnt: vimeo['enablednt'] === true,
    siteShortcodes: await siteShortcodes(root, config),
    variables,
  };
}

/** The post sections: params.mainSections, else those with a permalink, else the one with the most pages (Hugo's default). */
function postSections(site: HugoSite, files: ReadonlySet<string>): string[] {
  if (site.mainSections !== null) return site.mainSections;
  const withPermalinks = [...site.permalinks.keys()].filter(
    (key) => key !== 'page' && key !== 'section' && key !== 'term' && key !== 'taxonomy',
  );
  if (withPermalinks.length > 0) return withPermalinks;
  const counts = new Map<string, number>();
  for (const file of files) {
    const parts = underContent(site, file)?.split('/') ?? [];
    if (parts.length >= 2 && MARKDOWN_RE.test(file) && !/^_index\./.test(parts.at(-1) ?? '')) {
      counts.set(parts[0], (counts.get(parts[0]) ?? 0) + 1);
    }
  }
  const best = [...counts].sort((a, b) => b[1] - a[1])[0];
  return best === undefined ? [] : [best[0]];
}

function underContent(site: HugoSite, file: string): string | null {
  const prefix = site.contentDir === '' ? '' : `${site.contentDir}/`;
  return file.startsWith(prefix) ? file.slice(prefix.length) : null;
}

/** The folder of the nearest page bundle holding `file` (a folder with index.md or _index.md), or null. */
function bundleOf(site: HugoSite, file: string, files: ReadonlySet<string>): string | null {
  let folder = posix.dirname(file);
  while (folder !== '.' && folder !== site.contentDir && folder !== '') {
    for (const name of ['index.md', 'index.markdown', '_index.md', '_index.markdown']) {
      if (files.has(`${folder}/${name}`)) return `${folder}/${name}`;
    }
    folder = posix.dirname(folder);
  }
  return null;
}

function classifyHugo(
  site: HugoSite,
  file: string,
  files: ReadonlySet<string>,
  sections: () => string[],
): FileClass {
  const relative = underContent(site, file);
  if (relative === null) return { kind: 'ignore' };
  const parts = relative.split('/');
  const name = parts.at(-1) ?? '';
  if (/^_index\.(md|markdown)$/i.test(name)) {
    if (parts.length === 1) {
      return {
        kind: 'skipped',
        reason:
          'home page list (_index.md of the content root): Hugo renders it as a list of posts, not an article',
      };
    }
    return {
      kind: 'skipped',
      reason: `section list page (_index.md of section ${parts.slice(0, -1).join('/')})`,
    };
  }
  if (MARKDOWN_RE.test(name)) {
    const leafBundle = /^index\./i.test(name);
    // A top-level bundle (content/about/index.md) belongs to the home section, not a section "about".
    const section = parts.length >= (leafBundle ? 3 : 2) ? parts[0] : null;
    const posts = sections();
    if (section !== null && posts.includes(section)) return { kind: 'article' };
    const where =
      posts.length === 0
        ? 'any post section'
        : `the ${posts.join(' and ')} section${posts.length > 1 ? 's' : ''}`;
    return { kind: 'page', reason: `a regular page outside ${where}: not a post` };
  }
  const bundle = bundleOf(site, file, files);
  if (bundle !== null)
    return { kind: 'skipped', reason: `page resource of ${bundle}: referenced by URL, not copied` };
  if (OTHER_CONTENT_RE.test(name)) {
    return { kind: 'skipped', reason: `content in ${posix.extname(name)} format: only Markdown is imported` };
  }
  return {
    kind: 'skipped',
    reason: 'a file in the content folder outside any page bundle: referenced by URL, not copied',
  };
}

/** The file's name for :filename: the bundle folder's for index.md, else the file name without extension. */
function fileName(file: string): string {
  const base = posix.basename(file).replace(/\.[^.]+$/, '');
  return base === 'index' ? posix.basename(posix.dirname(file)) : base;
}

function fillPermalink(
  pattern: string,
  doc: SiteDoc,
  facts: ArticleFacts,
  site: HugoSite,
  relative: string,
): string {
  const zone = site.settings.timeZone ?? 'UTC';
  const date = facts.publishedAt === null ? null : calendarDate(facts.publishedAt, zone);
  const slug = facts.slug !== null && facts.slug.trim() !== '' ? urlize(facts.slug) : urlize(facts.title);
  const name = fileName(doc.file);
  const folders = relative.split('/').slice(0, /^index\./i.test(posix.basename(relative)) ? -2 : -1);
  const tokens: Record<string, string> = {
    year: date?.year ?? '0001',
    month: date?.month ?? '01',
    monthname: date === null ? 'January' : MONTH_NAMES[Number(date.month) - 1],
    day: date?.day ?? '01',
    section: folders[0] ?? '',
    sections: folders.join('/'),
    title: urlize(facts.title),
    slug,
    filename: name,
    contentbasename: name,
    slugorfilename: facts.slug !== null ? slug : name,
    slugorcontentbasename: facts.slug !== null ? slug : name,
  };
  const filled = pattern.replace(/:([a-z]+)/g, (whole, token: string) => tokens[token] ?? whole);
  return normalisePath(filled);
}

/** A leading `/`, no doubled slashes. */
function normalisePath(path: string): string {
  return `/${path}`.replace(/\/{2,}/g, '/');
}

function placeHugo(site: HugoSite, doc: SiteDoc, facts: ArticleFacts): Placement {
  const relative = underContent(site, doc.file) ?? doc.file;
  const parts = relative.split('/');
  const section = parts.length >= 2 ? parts[0] : null;
  const urlKey = doc.key('url');
  const url = urlKey === undefined ? undefined : doc.data[urlKey];
  let path: string | null;
  let slugFrom: Path;
  let fallbackSlug = slugOfSegment(fileName(doc.file)) ?? 'post';
  if (typeof url === 'string' && url.trim() !== '') {
    path = normalisePath(url.trim());
    slugFrom = [urlKey as string];
  } else {
    const pattern =
      (section !== null ? site.permalinks.get(section) : undefined) ??
      (section === null ? '/:slugorfilename/' : '/:sections/:slugorfilename/');
    path = fillPermalink(pattern, doc, facts, site, relative);
    const usesTitle = /:slug\b|:title\b/.test(pattern) || (facts.slug !== null && /:slugor/.test(pattern));
    slugFrom = usesTitle ? [doc.key(facts.slug !== null ? 'slug' : 'title') ?? 'title'] : [];
    // Without a date, Hugo would write year 0001 into the path: the article gets the project's
    // pattern once Folio dates it, and keeps the slug the pattern's last segment gives.
    if (facts.publishedAt === null && /:(year|month|monthname|day)\b/.test(pattern)) {
      fallbackSlug = slugOfSegment(lastSegment(path)) ?? fallbackSlug;
      path = null;
    }
  }
  const siteUrl = site.settings.siteUrl;
  return {
    path,
    slugFrom,
    fallbackSlug,
    // Hugo's RSS template: <guid>{{ .Permalink }}</guid>.
    guid: siteUrl === null || path === null ? null : `${siteUrl}${path}`,
    section,
  };
}

function hugoExclusion(doc: SiteDoc): { kind: 'draft' | 'excluded'; reason: string } | null {
  const buildKey = doc.key('build');
  const build = buildKey === undefined ? undefined : doc.data[buildKey];
  if (isObject(build) && String(build['list']).toLowerCase() === 'never') {
    return {
      kind: 'excluded',
      reason: 'build.list = never: Hugo renders it but keeps it out of lists and feeds',
    };
  }
  const expiryKey = doc.key('expiryDate') ?? doc.key('unpublishdate');
  const expiry = expiryKey === undefined ? undefined : doc.data[expiryKey];
  const time =
    expiry instanceof Date ? expiry.getTime() : typeof expiry === 'string' ? Date.parse(expiry) : NaN;
  if (!Number.isNaN(time) && time <= Date.now()) {
    return { kind: 'draft', reason: `${expiryKey} has passed: Hugo no longer builds it` };
  }
  return null;
}

function hugoReader(
  site: HugoSite,
  defaultAuthor: AuthorInput | null,
  problems: ImportProblem[],
  warnings: ImportProblem[],
): SiteReader {
  let sections: string[] | null = null;
  let fileSet: ReadonlySet<string> = new Set();
  const postSectionList = () => (sections ??= postSections(site, fileSet));
  return {
    settings: site.settings,
    warnings,
    problems,
    roots: [site.contentDir],
    skipEntry: () => false,
    classify: (file, files) => {
      if (fileSet !== files) {
        fileSet = files;
        sections = null;
        const posts = postSectionList();
        const found = new Set(posts.map((section) => folioPattern(site.permalinks.get(section))));
        // One pattern for every post section becomes the project's URL pattern.
        site.settings.urlPattern = found.size === 1 ? ([...found][0] ?? null) : null;
      }
      return classifyHugo(site, file, files, postSectionList);
    },
    fields: FIELDS,
    cascade: (file) => cascadeFor(site, file),
    caseInsensitiveKeys: true,
    dialects: () => ['hugo'],
    templateOptions: () => site.templateOptions,
    authors: new Map(),
    defaultAuthor,
    fileDate: () => null,
    excerptSeparator: () => '<!--more-->',
    dividerFirst: true,
    exclusion: hugoExclusion,
    reasons: {
      draft: 'draft: true: Hugo builds it only with --buildDrafts',
      unpublished: 'published: false',
      future:
        'future date: Hugo leaves it out of the build (buildFuture defaults to false) until the date passes; stored published with that date (scheduled)',
    },
    place: (doc, facts) => placeHugo(site, doc, facts),
    page: (doc, file, reason) => {
      const relative = underContent(site, file) ?? file;
      const urlKey = doc?.key('url');
      const url = urlKey === undefined ? undefined : doc?.data[urlKey];
      const folders = relative.split('/').slice(0, /^index\./i.test(posix.basename(relative)) ? -2 : -1);
      const slugKey = doc?.key('slug');
      const slug = slugKey === undefined ? undefined : doc?.data[slugKey];
      const last = typeof slug === 'string' ? urlize(slug) : fileName(file);
      const path =
        typeof url === 'string' ? normalisePath(url) : normalisePath(`${[...folders, last].join('/')}/`);
      return { kind: 'page', reason, path };
    },
    refCandidates: (target, from) => {
      const clean = target.replace(/^\/+/, '').replace(/#.*$/, '');
      const here = posix.dirname(from);
      const bases = [`${site.contentDir}/${clean}`, `${here}/${clean}`];
      return bases.flatMap((base) => [base, `${base}.md`, `${base}/index.md`, `${base}/_index.md`]);
    },
  };
}

async function detectHugo(root: string): Promise<boolean> {
  return (await firstFile(root, CONFIG_FILES)) !== null && (await isFolder(`${root}/content`));
}

export const hugoProfile: SiteProfile = { name: 'hugo', detect: detectHugo, open: openHugo };
