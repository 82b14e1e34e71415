// Jekyll's layout (jekyllrb.com: posts, permalinks, front matter, configuration; jekyll-feed,
// jekyll-seo-tag, jekyll-redirect-from): _config.yml, _posts/YYYY-MM-DD-title.md, _drafts/,
// _data/authors.yml; any other Markdown or HTML file with front matter is a page, any other file
// a static file. Paths follow the `permalink` style (date parts in `timezone`), a post's own
// `permalink` wins; the feed id is jekyll-feed's `post.id` (dirname of the URL + the slug).
import { posix } from 'node:path';
import { calendarDate, isTimeZone, urlPatternProblem } from '../../article-url.ts';
import { isObject, type Path } from '../check-kit.ts';
import { parseIsoDate } from '../dates.ts';
import type { AuthorInput, ImportProblem, ReadOptions, SiteSettings } from '../records.ts';
import {
  absoluteOnSite,
  firstFile,
  openSiteConfig,
  readConfigFile,
  siteUrlOf,
  slugOfSegment,
} from './config-file.ts';
import type {
  ArticleFacts,
  FieldNames,
  FileClass,
  Placement,
  SiteDoc,
  SiteProfile,
  SiteReader,
} from './profile.ts';
import { authorOf } from './site-article.ts';

const CONFIG_FILES = ['_config.yml', '_config.yaml', '_config.toml'];
const AUTHOR_FILES = ['_data/authors.yml', '_data/authors.yaml', '_data/authors.json'];
const PAGE_RE = /\.(md|markdown|mkd|mkdn|html?)$/i;
const POST_NAME_RE = /^(\d{4}-\d{2}-\d{2})-(.+)\.[^.]+$/;
// jekyllrb.com/docs/permalinks/#built-in-formats
const STYLES: Record<string, string> = {
  date: '/:categories/:year/:month/:day/:title:output_ext',
  pretty: '/:categories/:year/:month/:day/:title/',
  ordinal: '/:categories/:year/:y_day/:title:output_ext',
  weekdate: '/:categories/:year/W:week/:short_day/:title:output_ext',
  none: '/:categories/:title:output_ext',
};
// Jekyll's default exclusions (Configuration Options, `exclude`), besides `_` and `.` entries.
const EXCLUDED = ['Gemfile', 'Gemfile.lock', 'node_modules', 'vendor', 'package.json', 'package-lock.json'];

const FIELDS: FieldNames = {
  title: ['title'],
  slug: ['slug'],
  publishedAt: ['date'],
  updatedAt: ['last_modified_at', 'last_modified', 'updated'],
  excerpt: ['excerpt'],
  description: ['description'],
  coverImage: ['image', 'featured_image', 'cover_image', 'feature_image'],
  tags: ['tags', 'tag'],
  categories: ['categories', 'category'],
  authors: ['authors', 'author'],
  aliases: ['redirect_from'],
  guid: ['guid'],
  draft: [],
  published: ['published'],
  own: ['permalink', 'excerpt_separator'],
  ignored: {
    layout: 'a theme template name',
    comments: 'a theme switch (comments)',
    sitemap: 'jekyll-sitemap’s switch',
    redirect_to: 'jekyll-redirect-from’s redirect page (not an article)',
    toc: 'a theme switch (table of contents)',
    share: 'a theme switch (share buttons)',
    header: 'the theme’s page header',
  },
};

interface JekyllSite {
  settings: SiteSettings;
  /** The permalink pattern with Jekyll's tokens. */
  permalink: string;
  style: string;
  separator: string;
  exclude: string[];
  /** The config's `collections` (other than posts), and whether Jekyll writes their documents out. */
  collections: Map<string, { output: boolean }>;
  /** _config.yml `defaults`: front-matter values by path and type, the more specific path last. */
  defaults: { path: string; type: string | null; values: Record<string, unknown> }[];
  /** `site.*` values a Liquid expression in a post may read. */
  variables: Record<string, string | number | boolean | null>;
}

async function readAuthorsFile(
  root: string,
  siteUrl: string | null,
  problems: ImportProblem[],
): Promise<Map<string, AuthorInput>> {
  const authors = new Map<string, AuthorInput>();
  const name = await firstFile(root, AUTHOR_FILES);
  if (name === null) return authors;
  const file = await readConfigFile(root, name, problems);
  for (const [key, value] of Object.entries(file?.data ?? {})) {
    const author = isObject(value)
      ? authorOf(key, value, siteUrl)
      : typeof value === 'string'
        ? authorOf(key, { name: value }, siteUrl)
        : null;
    if (author !== null) authors.set(key, author);
  }
  return authors;
}

/** The site's author: a key of the authors file, a name, or `{ name, … }`. */
function siteAuthor(
  value: unknown,
  authors: ReadonlyMap<string, AuthorInput>,
  siteUrl: string | null,
): AuthorInput | null {
  if (typeof value === 'string' && value.trim() !== '')
    return authors.get(value.trim()) ?? authorOf(null, { name: value.trim() }, siteUrl);
  if (isObject(value)) return authorOf(null, value, siteUrl);
  return null;
}

/** Folio's pattern for Jekyll's, and why it is only approximate (null: exact). */
function folioPattern(permalink: string): { pattern: string | null; approximated: string | null } {
  let pattern = permalink.replace(/:title|:slug/g, ':slug').replace(/:output_ext/g, '.html');
  let approximated: string | null = null;
  if (pattern.includes(':categories')) {
    pattern = pattern.replace(/\/?:categories/g, '');
    approximated = `${permalink} contains :categories, which Folio's pattern lacks: posts with categories keep their own path`;
  }
  if (urlPatternProblem(pattern) !== null) {
    return {
      pattern: null,
      approximated: `${permalink} uses tokens Folio's pattern lacks: every post keeps its own path`,
    };
  }
  return { pattern, approximated };
}

async function openJekyll(root: string, options: ReadOptions): Promise<SiteReader> {
  const problems: ImportProblem[] = [];
  const warnings: ImportProblem[] = [];
  // A site without a config file (a forced --format) reads with the generator's defaults.
  const configFile = await openSiteConfig(root, CONFIG_FILES, problems);
  const config = configFile.data;
  // The config's own URL wins over the import's: the old feed's ids were made with it.
  const url = siteUrlOf(config['url']) ?? siteUrlOf(options.siteUrl);
  const baseurl =
    typeof config['baseurl'] === 'string' ? config['baseurl'].replace(/^\/*/, '/').replace(/\/+$/, '') : '';
  const siteUrl = url === null ? null : `${url}${baseurl === '/' ? '' : baseurl}`;
  const zone = typeof config['timezone'] === 'string' ? config['timezone'] : null;
  if (zone !== null && !isTimeZone(zone)) {
    warnings.push({
      file: configFile.file,
      line: configFile.locate(['timezone']),
      kind: 'invalid-time-zone',
      message: `timezone ${JSON.stringify(zone)} is not an IANA time zone: dates are read in UTC`,
    });
  }
  const style = typeof config['permalink'] === 'string' ? config['permalink'] : 'date';
  const permalink = STYLES[style] ?? style;
  const folio = folioPattern(permalink);
  if (folio.approximated !== null) {
    warnings.push({
      file: configFile.file,
      line: configFile.locate(['permalink']),
      kind: 'url-pattern-approximated',
      message: `permalink: ${folio.approximated}`,
    });
  }
  const authors = await readAuthorsFile(root, siteUrl, problems);
  const defaultAuthor = siteAuthor(config['author'], authors, siteUrl);
  const logo =
    typeof config['logo'] === 'string' && config['logo'].trim() !== ''
      ? absoluteOnSite(config['logo'].trim(), siteUrl)
      : null;
  const site: JekyllSite = {
    settings: {
      siteUrl,
      urlPattern: folio.pattern,
      timeZone: zone !== null && isTimeZone(zone) ? zone : null,
      defaultAuthor: defaultAuthor === null ? null : { name: defaultAuthor.name, image: defaultAuthor.image },
      logoUrl: logo,
    },
    permalink,
    style,
    separator: typeof config['excerpt_separator'] === 'string' ? config['excerpt_separator'] : '\n\n',
    variables: siteVariables(config, siteUrl, url, baseurl),
    defaults: readDefaults(config['defaults']),
    collections: readCollections(config['collections']),
    exclude: Array.isArray(config['exclude'])
      ? config['exclude'].filter((e): e is string => typeof e === 'string')
      : [],
  };
  return jekyllReader(site, authors, defaultAuthor, problems, warnings);
}

function readCollections(value: unknown): JekyllSite['collections'] {
  const collections: JekyllSite['collections'] = new Map();
  if (Array.isArray(value)) {
    for (const name of value) if (typeof name === 'string') collections.set(name, { output: false });
  } else if (isObject(value)) {
    for (const [name, options] of Object.entries(value)) {
      collections.set(name, { output: isObject(options) && options['output'] === true });
    }
  }
  collections.delete('posts');
  return collections;
}

function readDefaults(value: unknown): JekyllSite['defaults'] {
  if (!Array.isArray(value)) return [];
  const defaults: JekyllSite['defaults'] = [];
  for (const item of value) {
    if (!isObject(item) || !isObject(item['values'])) continue;
    const scope = isObject(item['scope']) ? item['scope'] : {};
    const path = typeof scope['path'] === 'string' ? scope['path'].replace(/^\/+|\/+$/g, '') : '';
    const type = typeof scope['type'] === 'string' ? scope['type'] : null;
    defaults.push({ path, type, values: item['values'] });
  }
  // Jekyll lets the most specific scope win: a longer path, then a scope with a type.
  return defaults.sort(
    (a, b) => a.path.length - b.path.length || Number(a.type !== null) - Number(b.type !== null),
  );
}

/** The `defaults` values that apply to a file (jekyllrb.com/docs/configuration/front-matter-defaults/). */
function defaultsFor(site: JekyllSite, file: string): Record<string, unknown> {
  const parts = file.split('/');
  const type = parts.includes('_posts') ? 'posts' : parts[0] === '_drafts' ? 'drafts' : 'pages';
  const values: Record<string, unknown> = {};
  for (const scope of site.defaults) {
    const typeMatches =
      scope.type === null || scope.type === type || (type === 'drafts' && scope.type === 'posts');
    const pattern = new RegExp(
      `^${scope.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`,
    );
    if (typeMatches && (scope.path === '' || pattern.test(file))) Object.assign(values, scope.values);
  }
  return values;
}

/** The config's plain values as Liquid's `site.<key>`; `site.url` and `site.baseurl` as Jekyll normalises them. */
function siteVariables(
  config: Record<string, unknown>,
  siteUrl: string | null,
  url: string | null,
  baseurl: string,
) {
  const variables: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(config)) {
    if (['string', 'number', 'boolean'].includes(typeof value))
      variables[`site.${key}`] = value as string | number | boolean;
  }
  variables['site.url'] = url ?? (siteUrl === null ? null : siteUrl);
  variables['site.baseurl'] = baseurl === '/' ? '' : baseurl;
  return variables;
}

/**
 * What Jekyll never reads: `_` entries (layouts, includes, data, the built _site) except _posts,
 * a top-level _drafts and the config's collections, its default exclusions and the config's `exclude`.
 */
function skipJekyll(site: JekyllSite, path: string, isDirectory: boolean): boolean {
  const parts = path.split('/');
  const name = parts.at(-1) ?? '';
  if (name.startsWith('_')) {
    if (!isDirectory) return true;
    const collection = parts.length === 1 && site.collections.has(name.slice(1));
    return !(name === '_posts' || (name === '_drafts' && parts.length === 1) || collection);
  }
  const excluded = [...EXCLUDED, ...site.exclude].map((pattern) => pattern.replace(/\/+$/, ''));
  return excluded.some((pattern) => path === pattern || path.startsWith(`${pattern}/`));
}

function classifyJekyll(site: JekyllSite, file: string): FileClass {
  const parts = file.split('/');
  const collection = parts[0].startsWith('_') ? site.collections.get(parts[0].slice(1)) : undefined;
  if (collection !== undefined && parts[0] !== '_posts' && parts[0] !== '_drafts') {
    const name = parts[0].slice(1);
    return collection.output
      ? { kind: 'page', reason: `a document of the ${name} collection: not a post` }
      : { kind: 'skipped', reason: `a document of the ${name} collection, which the site does not output` };
  }
  const postsAt = parts.indexOf('_posts');
  const name = parts.at(-1) ?? '';
  if (postsAt >= 0 && PAGE_RE.test(name)) {
    if (POST_NAME_RE.test(name)) return { kind: 'article' };
    return {
      kind: 'skipped',
      reason: 'in _posts/ but not named YYYY-MM-DD-title: Jekyll does not read it as a post',
    };
  }
  if (parts[0] === '_drafts' && PAGE_RE.test(name)) {
    return {
      kind: 'article',
      draftReason: "in _drafts/: rendered only with --drafts, then dated by the file's modification time",
    };
  }
  if (PAGE_RE.test(name)) return { kind: 'page', reason: 'a page outside _posts' };
  return { kind: 'skipped', reason: 'static file, copied as-is by Jekyll; referenced by URL' };
}

/** Categories for the URL: the folders above _posts, then the front matter's, lowercased, each once. */
function categoriesOf(doc: SiteDoc): string[] {
  const folders = doc.file.split('/');
  const fromFolders = folders.slice(0, Math.max(0, folders.indexOf('_posts')));
  const fromMatter: string[] = [];
  for (const name of ['categories', 'category']) {
    const value = doc.data[name];
    if (typeof value === 'string') fromMatter.push(...value.split(/\s+/));
    else if (Array.isArray(value))
      fromMatter.push(...value.filter((v) => typeof v === 'string' || typeof v === 'number').map(String));
  }
  return [...new Set([...fromFolders, ...fromMatter].filter((c) => c !== '').map((c) => c.toLowerCase()))];
}

/** The file name's slug: `2024-01-15-sourdough-starter.md` → `sourdough-starter`; a draft's whole name. */
function fileSlug(file: string): string {
  const name = posix.basename(file);
  return POST_NAME_RE.exec(name)?.[2] ?? name.replace(/\.[^.]+$/, '');
}

/** Jekyll's slugify in its `pretty` mode, cased (the :title placeholder). */
function prettySlug(text: string): string {
  return text.replace(/[^\p{L}\p{N}._~!$&'()+,;=@]+/gu, '-').replace(/^-+|-+$/g, '');
}

function fillPattern(
  pattern: string,
  doc: SiteDoc,
  facts: ArticleFacts,
  zone: string,
  publishedAt: string,
): string {
  const date = calendarDate(publishedAt, zone);
  const title = prettySlug(facts.slug ?? fileSlug(doc.file));
  const start = Date.UTC(Number(date.year), 0, 1);
  const yDay = String(
    Math.floor((Date.UTC(Number(date.year), Number(date.month) - 1, Number(date.day)) - start) / 86_400_000) +
      1,
  ).padStart(3, '0');
  const tokens: Record<string, string> = {
    categories: categoriesOf(doc).join('/'),
    year: date.year,
    short_year: date.year.slice(2),
    month: date.month,
    i_month: String(Number(date.month)),
    day: date.day,
    i_day: String(Number(date.day)),
    y_day: yDay,
    title,
    slug: title,
    output_ext: '.html',
  };
  const filled = pattern.replace(/:([a-z_]+)/g, (whole, token: string) => tokens[token] ?? whole);
  return `/${filled}`.replace(/\/{2,}/g, '/');
}

function placeJekyll(site: JekyllSite, doc: SiteDoc, facts: ArticleFacts): Placement {
  const own = doc.data['permalink'];
  const zone = site.settings.timeZone ?? 'UTC';
  const fallbackSlug = slugOfSegment(fileSlug(doc.file)) ?? 'post';
  let path: string | null = null;
  let slugFrom: Path = facts.slug !== null ? ['slug'] : [];
  if (typeof own === 'string' && own.trim() !== '') {
    path =
      facts.publishedAt === null
        ? `/${own.trim()}`.replace(/\/{2,}/g, '/')
        : fillPattern(own.trim(), doc, facts, zone, facts.publishedAt);
    slugFrom = ['permalink'];
  } else if (facts.publishedAt !== null) {
    path = fillPattern(site.permalink, doc, facts, zone, facts.publishedAt);
  }
  const siteUrl = site.settings.siteUrl;
  let guid: string | null = null;
  if (path !== null && siteUrl !== null) {
    // Document#id: File.join(File.dirname(url), data["slug"] || basename); Ruby's dirname ignores a trailing slash.
    const folder = posix.dirname(path.replace(/\/+$/, '') || '/');
    guid = `${siteUrl}${posix.join(folder, facts.slug ?? fileSlug(doc.file))}`;
  }
  return { path, slugFrom, fallbackSlug, guid, section: null };
}

function jekyllReader(
  site: JekyllSite,
  authors: Map<string, AuthorInput>,
  defaultAuthor: AuthorInput | null,
  problems: ImportProblem[],
  warnings: ImportProblem[],
): SiteReader {
  const zone = site.settings.timeZone ?? undefined;
  return {
    settings: site.settings,
    warnings,
    problems,
    roots: [''],
    skipEntry: (path, isDirectory) => skipJekyll(site, path, isDirectory),
    classify: (file) => classifyJekyll(site, file),
    fields: FIELDS,
    cascade: (file) => defaultsFor(site, file),
    caseInsensitiveKeys: false,
    dialects: () => ['liquid'],
    templateOptions: (doc) => ({
      variables: {
        ...site.variables,
        'page.title': typeof doc.data['title'] === 'string' ? doc.data['title'] : null,
      },
    }),
    authors,
    defaultAuthor,
    fileDate: (file) => {
      const match = POST_NAME_RE.exec(posix.basename(file));
      return match && file.split('/').includes('_posts') ? parseIsoDate(match[1], zone) : null;
    },
    excerptSeparator: (doc) => {
      const own = doc.data['excerpt_separator'];
      return typeof own === 'string' ? own : site.separator;
    },
    dividerFirst: false,
    exclusion: () => null,
    reasons: {
      draft: 'draft: true',
      unpublished: 'published: false: Jekyll renders it only with --unpublished',
      future:
        'future date: Jekyll leaves it out (future defaults to false) until a build after that date; stored published with that date (scheduled)',
    },
    place: (doc, facts) => placeJekyll(site, doc, facts),
    page: (doc, file, reason) => {
      if (doc === null)
        return {
          kind: 'skipped',
          reason: 'static file (no front matter), copied as-is by Jekyll; referenced by URL',
          path: null,
        };
      const layout = doc.data['layout'];
      const own = doc.data['permalink'];
      const base = file.replace(/\.[^.]+$/, '');
      let path: string;
      if (typeof own === 'string' && own.trim() !== '') path = `/${own.trim()}`.replace(/\/{2,}/g, '/');
      else if (posix.basename(base) === 'index')
        path = `/${posix.dirname(base) === '.' ? '' : `${posix.dirname(base)}/`}`;
      else path = site.style === 'pretty' ? `/${base}/` : `/${base}.html`;
      const home = layout === 'home' && path === '/';
      return { kind: 'page', reason: home ? 'the home page (layout: home lists the posts)' : reason, path };
    },
    refCandidates: (target) => {
      const clean = target.trim().replace(/^\/+/, '');
      return [clean, `_posts/${clean}`, `_posts/${clean}.md`, `_posts/${clean}.markdown`];
    },
  };
}

/**
 * _config.yml: every Jekyll site has one. A bare _posts/ folder stays Folio's own folder, which
 * already reads dated post names (and Next.js's blog starter keeps its posts in _posts/ too);
 * --format jekyll reads it as Jekyll.
 */
async function detectJekyll(root: string): Promise<boolean> {
  return (await firstFile(root, CONFIG_FILES)) !== null;
}

export const jekyllProfile: SiteProfile = { name: 'jekyll', detect: detectJekyll, open: openJekyll };
