// Next.js blogs, in the two layouts its starters use:
// - timlrx/tailwind-nextjs-starter-blog: contentlayer.config.ts (read statically, never run)
//   defines a Blog document type over `blog/**/*.mdx` and an Authors type over `authors/**/*.mdx`
//   under `contentDirPath` (`data`); data/siteMetadata.js gives siteUrl and siteLogo. A post is
//   served by app/blog/[...slug] at `/blog/<path under data/blog>` (no trailing slash), its feed
//   guid is `${siteUrl}/blog/${slug}` (scripts/rss.mjs), tag pages use github-slugger, `draft:
//   true` is left out of production, and a post without `authors` shows the `default` author.
// - vercel/next.js examples/blog-starter: `_posts/*.md` read by src/lib/api.ts, served at
//   `/posts/<file name>`, with `excerpt`, `coverImage`, `author: { name, picture }` and
//   `ogImage: { url }`; no drafts, no feed and no site URL (the import's siteUrl option gives it).
import { readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Path } from '../check-kit.ts';
import { readText } from '../markdown-folder.ts';
import { splitFrontMatter } from '../markdown-file.ts';
import type { AuthorInput, ImportProblem, ReadOptions, SiteSettings } from '../records.ts';
import { slugOfTagName } from '../../tag-slugs.ts';
import { absoluteOnSite, firstFile, isFolder, siteUrlOf, slugOfSegment } from './config-file.ts';
import {
  at,
  callArguments,
  callsNamed,
  exportedNode,
  isComputed,
  type JsModule,
  returnedObject,
  type StaticValue,
  staticValue,
  readJsModule,
} from './js-static.ts';
import type { FieldNames, FileClass, Placement, SiteDoc, SiteProfile, SiteReader } from './profile.ts';
import { authorOf, unknownAuthorKeys } from './site-article.ts';

const CONTENTLAYER_FILES = [
  'contentlayer.config.ts',
  'contentlayer.config.js',
  'contentlayer.config.mjs',
  'contentlayer.config.mts',
];
const NEXT_MARKERS = ['next.config.js', 'next.config.mjs', 'next.config.ts', 'src/lib/api.ts'];
const CODE_RE = /\.(c|m)?(j|t)sx?$|\.(css|scss|sass|less)$/i;
// The starter's slug rule (contentlayer.config.ts computedFields.slug), written as the starter writes it.
const STARTER_SLUG_RULES = [
  "(doc) => doc._raw.flattenedPath.replace(/^.+?(\\/)/, '')",
  '(doc) => doc._raw.flattenedPath.replace(/^.+?(\\/)/, "")',
];
// The author file's profile links, in the order the starter's author layout shows them.
const PROFILE_LINKS = ['github', 'twitter', 'x', 'linkedin', 'bluesky', 'mastodon', 'website'];

const TAILWIND_FIELDS: FieldNames = {
  title: ['title'],
  slug: [],
  publishedAt: ['date'],
  updatedAt: ['lastmod'],
  excerpt: ['summary'],
  description: [],
  coverImage: ['images'],
  canonicalUrl: ['canonicalUrl'],
  tags: ['tags'],
  categories: [],
  authors: ['authors'],
  aliases: [],
  guid: [],
  draft: ['draft'],
  published: [],
  own: [],
  ignored: {
    layout: 'the starter’s post layout (PostLayout, PostSimple, PostBanner)',
    bibliography: 'a citation file the starter renders with rehype-citation',
  },
};

const STARTER_FIELDS: FieldNames = {
  title: ['title'],
  slug: [],
  publishedAt: ['date'],
  updatedAt: [],
  excerpt: ['excerpt'],
  description: [],
  coverImage: ['coverImage'],
  ogImage: ['ogImage'],
  tags: [],
  categories: [],
  authors: ['author'],
  aliases: [],
  guid: [],
  draft: [],
  published: [],
  own: [],
  ignored: { preview: 'the starter’s preview-mode flag, which no page reads' },
};

interface NextSite {
  flavour: 'contentlayer' | 'blog-starter';
  settings: SiteSettings;
  /** The posts' folder (`data/blog`, `_posts`), its extensions, and whether sub-folders hold posts. */
  postsDir: string;
  extensions: string[];
  nested: boolean;
  /** The route the posts are served under (`/blog`, `/posts`). */
  route: string;
  authorsDir: string | null;
  /** The content root of Contentlayer: other Markdown there belongs to no document type. */
  contentDir: string | null;
}

/** A string value the import needs; a computed one is warned `config-not-read` at its line. */
function literal(
  value: StaticValue | undefined,
  file: string,
  key: string,
  warnings: ImportProblem[],
): string | null {
  if (isComputed(value)) {
    warnings.push({
      file,
      line: value.line,
      kind: 'config-not-read',
      message: `${key} is computed (${value.text.slice(0, 60)}): the config is never run, so it is not known`,
    });
    return null;
  }
  return typeof value === 'string' ? value : null;
}

/** `blog/**\/*.mdx` → the folder, the extensions, whether sub-folders count; null for other globs. */
export function globParts(pattern: string): { dir: string; extensions: string[]; nested: boolean } | null {
  const match = /^(?:\.\/)?((?:[^*{}/]+\/)*)(\*\*\/)?\*\.(\{[a-z0-9,]+\}|[a-z0-9]+)$/i.exec(pattern);
  if (!match) return null;
  const extensions = match[3].replace(/[{}]/g, '').split(',');
  return { dir: match[1].replace(/\/$/, ''), extensions, nested: match[2] !== undefined };
}

interface DocumentType {
  name: string;
  pattern: string | null;
  line: number;
  slugRule: StaticValue | undefined;
}

type AstNode = Parameters<typeof staticValue>[1];

/** The initial value of a top-level `const name = …` (exported or not), or null. */
function topLevelConst(module: JsModule, name: string): AstNode | null {
  const body = (module.program as unknown as { body: Array<Record<string, unknown>> }).body;
  for (let statement of body) {
    if (statement['type'] === 'ExportNamedDeclaration' && statement['declaration'])
      statement = statement['declaration'] as Record<string, unknown>;
    if (statement['type'] !== 'VariableDeclaration') continue;
    for (const declarator of statement['declarations'] as Array<Record<string, unknown>>) {
      if ((declarator['id'] as { name?: string }).name === name && declarator['init'])
        return declarator['init'] as AstNode;
    }
  }
  return null;
}

/** A type's `computedFields.slug.resolve`: written in place, or in the constant it names (`computedFields,`). */
function ownSlugRule(module: JsModule, fields: StaticValue | undefined): StaticValue | undefined {
  if (!isComputed(fields)) return at(fields, 'slug', 'resolve');
  const named = /^[A-Za-z_$][\w$]*$/.test(fields.text) ? topLevelConst(module, fields.text) : null;
  return named === null ? undefined : at(staticValue(module, named), 'slug', 'resolve');
}

/** The document types of contentlayer.config: name, file pattern and the computed slug's rule. */
function documentTypes(module: JsModule): DocumentType[] {
  // The starter keeps slug and path in a module constant spread into each type (`...computedFields`).
  const shared = topLevelConst(module, 'computedFields');
  const sharedRule = shared === null ? undefined : at(staticValue(module, shared), 'slug', 'resolve');
  return callsNamed(module, ['defineDocumentType']).map((call) => {
    const [definition] = call['arguments'] as AstNode[];
    const object = definition === undefined ? null : (returnedObject(definition) ?? definition);
    const value = object === null ? {} : staticValue(module, object);
    const name = at(value, 'name');
    const pattern = at(value, 'filePathPattern');
    return {
      name: typeof name === 'string' ? name : '',
      pattern: typeof pattern === 'string' ? pattern : null,
      line: call.loc?.start.line ?? 1,
      slugRule: ownSlugRule(module, at(value, 'computedFields')) ?? sharedRule,
    };
  });
}

/** The Blog and Authors types of a Contentlayer site, with its content root and warnings. */
async function readContentlayer(
  root: string,
  file: string,
  warnings: ImportProblem[],
): Promise<Pick<NextSite, 'postsDir' | 'extensions' | 'nested' | 'authorsDir' | 'contentDir'>> {
  const defaults = { postsDir: 'data/blog', extensions: ['mdx'], nested: true, authorsDir: 'data/authors' };
  const module = await readJsModule(root, file, warnings);
  if (module === null) return { ...defaults, contentDir: 'data' };
  const [source] = callsNamed(module, ['makeSource']).map((call) => callArguments(module, call)[0]);
  const contentDir = literal(at(source, 'contentDirPath'), file, 'contentDirPath', warnings) ?? 'data';
  const types = documentTypes(module);
  const blog = types.find((type) => /^(blog|post)s?$/i.test(type.name));
  const authors = types.find((type) => /^authors?$/i.test(type.name));
  const blogGlob = blog?.pattern === null || blog === undefined ? null : globParts(blog.pattern);
  const authorsGlob = authors?.pattern == null ? null : globParts(authors.pattern);
  if (blog !== undefined && blogGlob === null) {
    warnings.push({
      file,
      line: blog.line,
      kind: 'config-not-read',
      message: `the Blog type's filePathPattern is not a folder glob Folio reads: blog/**/*.mdx is assumed`,
    });
  }
  const rule = blog?.slugRule;
  if (isComputed(rule) && !STARTER_SLUG_RULES.includes(rule.text.replace(/\s+/g, ' ').trim())) {
    warnings.push({
      file,
      line: rule.line,
      kind: 'config-not-read',
      message: `the Blog slug is computed by code Folio does not run (${rule.text.slice(0, 60)}): the starter's rule, the path under the posts folder, is assumed`,
    });
  }
  const under = (dir: string) => posix.join(contentDir, dir);
  return {
    postsDir: under(blogGlob?.dir ?? 'blog'),
    extensions: blogGlob?.extensions ?? defaults.extensions,
    nested: blogGlob?.nested ?? true,
    authorsDir: under(authorsGlob?.dir ?? 'authors'),
    contentDir,
  };
}

/** data/siteMetadata.js: siteUrl, siteLogo and the site's author name. */
async function readSiteMetadata(root: string, contentDir: string, warnings: ImportProblem[]) {
  const names = ['js', 'mjs', 'cjs', 'ts'].map((ext) => posix.join(contentDir, `siteMetadata.${ext}`));
  const file = await firstFile(root, names);
  if (file === null) return { siteUrl: null, logo: null, author: null };
  const module = await readJsModule(root, file, warnings);
  const node = module === null ? null : exportedNode(module);
  const value = module === null || node === null ? {} : staticValue(module, node);
  return {
    siteUrl: literal(at(value, 'siteUrl'), file, 'siteUrl', warnings),
    logo: literal(at(value, 'siteLogo'), file, 'siteLogo', warnings),
    author: literal(at(value, 'author'), file, 'author', warnings),
  };
}

/** The author files by key (their path under the authors folder): avatar, occupation, first profile link. */
async function readAuthorFiles(
  root: string,
  site: NextSite,
  files: readonly string[],
): Promise<Map<string, AuthorInput>> {
  const authors = new Map<string, AuthorInput>();
  const dir = site.authorsDir;
  if (dir === null) return authors;
  for (const file of files.filter((f) => f.startsWith(`${dir}/`) && /\.mdx?$/i.test(f))) {
    const text = await readText(join(root, ...file.split('/')), file, []);
    if (text === null) continue;
    const { data, problems } = splitFrontMatter(file, text);
    if (problems.length > 0) continue;
    const key = file.slice(dir.length + 1).replace(/\.mdx?$/i, '');
    const link = Object.keys(data).find(
      (name) => PROFILE_LINKS.includes(name) && typeof data[name] === 'string',
    );
    const author = authorOf(
      key,
      { ...data, url: link === undefined ? null : data[link] },
      site.settings.siteUrl,
    );
    if (author !== null) authors.set(key, author);
  }
  return authors;
}

/** github-slugger's slug (lowercase, punctuation dropped, spaces to hyphens), else Folio's own. */
export function githubSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
  // A slug Folio cannot hold (an underscore, a doubled hyphen) is derived Folio's way instead.
  return /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug) ? slug : slugOfTagName(name);
}

async function openNext(root: string, options: ReadOptions): Promise<SiteReader> {
  const warnings: ImportProblem[] = [];
  const config = await firstFile(root, CONTENTLAYER_FILES);
  const settings: SiteSettings = {
    siteUrl: null,
    urlPattern: null,
    timeZone: 'UTC',
    defaultAuthor: null,
    logoUrl: null,
  };
  let site: NextSite;
  if (config !== null) {
    const layout = await readContentlayer(root, config, warnings);
    const meta = await readSiteMetadata(root, layout.contentDir ?? 'data', warnings);
    settings.siteUrl = siteUrlOf(meta.siteUrl) ?? siteUrlOf(options.siteUrl);
    settings.logoUrl = meta.logo === null ? null : absoluteOnSite(meta.logo, settings.siteUrl);
    settings.urlPattern = '/blog/:slug';
    site = { flavour: 'contentlayer', settings, route: '/blog', ...layout };
    return nextReader(root, site, meta.author, warnings);
  }
  settings.siteUrl = siteUrlOf(options.siteUrl);
  settings.urlPattern = '/posts/:slug';
  if (settings.siteUrl === null) {
    warnings.push({
      file: '_posts',
      line: 1,
      kind: 'site-url-missing',
      message:
        'the blog starter holds no site URL: paths, images and feed ids stay relative until one is given (--site-url)',
    });
  }
  site = {
    flavour: 'blog-starter',
    settings,
    postsDir: '_posts',
    extensions: ['md'],
    nested: false,
    route: '/posts',
    authorsDir: null,
    contentDir: null,
  };
  return nextReader(root, site, null, warnings);
}

/** The post's path under the posts folder, without extension, or null when it is not a post. */
function postName(site: NextSite, file: string): string | null {
  if (!file.startsWith(`${site.postsDir}/`)) return null;
  const relative = file.slice(site.postsDir.length + 1);
  const extension = posix.extname(relative).slice(1).toLowerCase();
  if (!site.extensions.includes(extension)) return null;
  if (!site.nested && relative.includes('/')) return null;
  return relative.slice(0, -(extension.length + 1)).replace(/\/index$/, '');
}

function classifyNext(site: NextSite, file: string): FileClass {
  if (!file.includes('/')) return { kind: 'ignore' };
  if (postName(site, file) !== null) return { kind: 'article' };
  if (site.authorsDir !== null && file.startsWith(`${site.authorsDir}/`) && /\.mdx?$/i.test(file)) {
    const about =
      file === `${site.authorsDir}/default.mdx` ? ' (also rendered as /about by the starter)' : '';
    return { kind: 'skipped', reason: `author profile${about}: read for author details, not a post` };
  }
  if (file.startsWith('public/'))
    return { kind: 'skipped', reason: 'public/ file: served as is from the site root; referenced by URL' };
  if (file.startsWith(`${site.postsDir}/`))
    return {
      kind: 'skipped',
      reason: `not a ${site.extensions.join(' or ')} file the starter reads as a post`,
    };
  if (site.contentDir !== null && file.startsWith(`${site.contentDir}/`)) {
    if (/\.mdx?$/i.test(file))
      return {
        kind: 'skipped',
        reason: 'Markdown of no document type of contentlayer.config: not read by the site',
      };
    // siteMetadata.js, headerNavLinks.ts, projectsData.ts: the site's settings and menus.
    return { kind: 'ignore' };
  }
  if (CODE_RE.test(file)) return { kind: 'skipped', reason: 'application code' };
  return { kind: 'skipped', reason: 'a file of the application: not content' };
}

function placeNext(site: NextSite, doc: SiteDoc): Placement {
  const name = postName(site, doc.file) ?? posix.basename(doc.file).replace(/\.[^.]+$/, '');
  const path = `${site.route}/${name}`;
  const siteUrl = site.settings.siteUrl;
  const slugFrom: Path = [];
  return {
    path,
    slugFrom,
    fallbackSlug: slugOfSegment(posix.basename(name)) ?? 'post',
    // The tailwind starter's feed: <guid>${siteUrl}/blog/${slug}</guid>; the blog starter has no
    // feed, so a migrated post's guid is its URL.
    guid: siteUrl === null ? null : `${siteUrl}${path}`,
    section: null,
  };
}

async function nextReader(
  root: string,
  site: NextSite,
  authorName: string | null,
  warnings: ImportProblem[],
): Promise<SiteReader> {
  let authors = new Map<string, AuthorInput>();
  let defaultAuthor: AuthorInput | null = null;
  const contentlayer = site.flavour === 'contentlayer';
  const reader: SiteReader = {
    settings: site.settings,
    warnings,
    problems: [],
    roots: [''],
    skipEntry: (path, isDirectory) => isDirectory && ['out', 'build', 'dist', 'coverage'].includes(path),
    classify: (file) => classifyNext(site, file),
    fields: contentlayer ? TAILWIND_FIELDS : STARTER_FIELDS,
    // Neither generator gives files values under their own front matter.
    cascade: () => ({}),
    caseInsensitiveKeys: false,
    dialects: (doc) => (/\.mdx$/i.test(doc.file) ? ['mdx'] : []),
    templateOptions: () => ({}),
    authors,
    defaultAuthor,
    fileDate: () => null,
    excerptSeparator: () => null,
    dividerFirst: false,
    exclusion: () => null,
    reasons: {
      draft: 'draft: true: left out of production builds, the feed and tag counts',
      unpublished: 'published: false',
      // Neither starter holds back a future-dated post.
      future: null,
    },
    place: (doc) => placeNext(site, doc),
    page: (_doc, _file, reason) => ({ kind: 'page', reason, path: null }),
    refCandidates: (target, from) => [posix.normalize(posix.join(posix.dirname(from), target))],
    tagOf: contentlayer ? (written) => ({ name: written, slug: githubSlug(written) }) : undefined,
  };
  if (contentlayer) {
    reader.readDoc = async (doc, kind) => ({
      kind,
      warnings:
        kind.kind === 'article' ? unknownAuthorKeys(doc, 'authors', authors, `${site.authorsDir}/`) : [],
    });
    const files = await listAuthorFiles(root, site);
    authors = await readAuthorFiles(root, site, files);
    // The starter's post layout falls back to the `default` author; a site without one, to siteMetadata.author.
    defaultAuthor =
      authors.get('default') ?? (authorName === null ? null : authorOf(null, { name: authorName }, null));
    reader.authors = authors;
    reader.defaultAuthor = defaultAuthor;
    site.settings.defaultAuthor =
      defaultAuthor === null ? null : { name: defaultAuthor.name, image: defaultAuthor.image };
  }
  return reader;
}

async function listAuthorFiles(root: string, site: NextSite): Promise<string[]> {
  const dir = site.authorsDir;
  if (dir === null || !(await isFolder(join(root, ...dir.split('/'))))) return [];
  const entries = await readdir(join(root, ...dir.split('/')), { recursive: true });
  return entries.map((entry) => `${dir}/${String(entry).split('\\').join('/')}`);
}

/** A Next.js app: a Contentlayer config, or the blog starter's `_posts/` beside Next.js's own files (never Jekyll's). */
async function detectNext(root: string): Promise<boolean> {
  if ((await firstFile(root, CONTENTLAYER_FILES)) !== null) return true;
  if (!(await isFolder(join(root, '_posts')))) return false;
  if ((await firstFile(root, ['_config.yml', '_config.yaml', '_config.toml'])) !== null) return false;
  if ((await firstFile(root, NEXT_MARKERS)) !== null) return true;
  for (const folder of ['src/lib', 'src/app', 'app', 'pages', 'src/pages'])
    if (await isFolder(join(root, ...folder.split('/')))) return true;
  return false;
}

export const nextjsProfile: SiteProfile = { name: 'nextjs', detect: detectNext, open: openNext };
