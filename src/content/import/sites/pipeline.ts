// The site pipeline: reads a static-site generator's whole site the way the generator publishes it.
//
//   detect (formats.ts) → profile.open(root): settings from the config, site warnings, the reader
//   → list every file under reader.roots (reader.skipEntry leaves out caches, layouts, output)
//   → reader.classify(file): ignore | skipped(reason) | page(reason) | article(draftReason?)
//   → the front matter read (reader.splitDoc for a generator's own form, else YAML or TOML), and
//     reader.readDoc, when given, may reclassify the file by it (Eleventy) and resolve values
//   → per article, the shared flow (site-article.ts): front matter through reader.fields, dates
//     in settings.timeZone, reader.place() for path, slug, guid and section, authors, tags,
//     cover image, excerpt divider; every unused field warned (`ignored-field`) with its line
//   → per page: reader.page() for the report (its path), or a file the generator copies as is
//   → duplicate slugs refused, naming both files
//   → bodies (site-body.ts): the divider removed, template syntax expanded (templates/expand.ts,
//     cross-references to the other files' paths; an excerpt cut from the body too), relative
//     images against the article's URL (its folder when the path has no trailing slash), or
//     reported where reader.processedImages says the generator renames them
//   → --strict: any warning refuses the import
//   → ContentSource { generator, settings, files, tags (reader.tagOf's names and slugs), articles,
//     warnings (site's first) }
//
// A generator is one profile module (hugo.ts, jekyll.ts, eleventy.ts, astro.ts, nextjs.ts,
// docusaurus.ts) implementing SiteProfile of profile.ts:
//   name                       the --format name and ContentSource.generator
//   detect(root)               a few stat calls: is this folder laid out for the generator?
//   open(root, options)        reads the config and author files; returns a SiteReader:
//     settings                 siteUrl, urlPattern, timeZone, defaultAuthor, logoUrl (null: unsaid)
//     warnings, problems       about the config files (problems stop the import)
//     roots, skipEntry         where the content is, what is never looked at
//     classify(file, files)    the file report's kind and reason, in the generator's words
//     fields                   front-matter names per article field (a dotted name reads a nested
//                              value), the profile's own, theme ones
//     caseInsensitiveKeys      Hugo's front-matter keys
//     cascade(file)            values the site gives a file under its front matter (Jekyll defaults)
//     dialects(doc)            template languages of a body, in order (for templates/expand.ts)
//     templateOptions(doc)     the expander's options: embeds' privacy, site shortcodes, variables
//     authors, defaultAuthor   the author file by key, the site's author
//     fileDate(file)           a date the file name gives (Jekyll), in the site's zone
//     excerptSeparator(doc)    the divider (`<!--more-->`, a front-matter excerpt_separator)
//     exclusion(doc), reasons  drafts and unlisted posts beyond `draft`/`published`, report wording
//     place(doc, facts)        the generator's path, the field its slug came from, guid, section
//     page(doc, file, reason)  a page's path for the report (or: a file copied as is)
//     dividerFirst             whether the body's divider wins over a front-matter excerpt
//     refCandidates(t, from)   the files a template cross-reference may name (Hugo ref, Liquid link)
//     readDoc?(doc, kind)      optional: the file's kind from its front matter, values from the file
//                              system or Git (Eleventy's tags, permalink: false, date: git Created)
//     splitDoc?(file, text)    optional: front matter in the generator's own form (Eleventy's ---js)
//     processedImages?(doc)    optional: why relative body images are published under other names
//     assetNote?               optional: the same for a relative cover image (Docusaurus)
//     tagOf?(written)          optional: a tag's name and slug (Docusaurus tags.yml, github-slugger)
// Sites written in JavaScript (eleventy.config.js, content.config.ts, docusaurus.config.js,
// contentlayer.config.ts) are read by js-static.ts, never run.
// Register a new profile in formats.ts (SITE_PROFILES, in detection order).
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { compareCodeUnits } from '../../lists.ts';
import type { ArticleOutcome } from '../article-rules.ts';
import { sortByLine } from '../check-kit.ts';
import { mergeDuplicates } from '../duplicate-slugs.ts';
import { readText } from '../markdown-folder.ts';
import { splitFrontMatter } from '../markdown-file.ts';
import {
  type ArticleInput,
  type ContentSource,
  type FileReport,
  type ImportProblem,
  ImportValidationError,
  type ReadOptions,
  type TagInput,
} from '../records.ts';
import type { SiteDoc, SiteProfile, SiteReader } from './profile.ts';
import { readSiteArticle, type SiteArticle } from './site-article.ts';
import { againstArticle, refResolver, resolveImages, withoutSeparator } from './site-body.ts';
import { expandTemplates, type TemplateContext } from '../templates/expand.ts';

/** Every file under the reader's roots, with `/`, sorted by code unit; dot entries are never content. */
async function listFiles(root: string, reader: SiteReader): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries: Dirent[] = await readdir(relative === '' ? root : join(root, relative), {
      withFileTypes: true,
    }).catch(() => []);
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      // Symlinked folders are not followed, so that a link cycle cannot hang the import.
      const isDirectory = entry.isDirectory();
      if (reader.skipEntry(child, isDirectory)) continue;
      if (isDirectory) await walk(child);
      else if (entry.isFile() || (entry.isSymbolicLink() && (await stat(join(root, child))).isFile())) {
        found.push(child);
      }
    }
  };
  for (const start of reader.roots) await walk(start);
  return [...new Set(found)].sort(compareCodeUnits);
}

/** A file's front matter and body, with key lookup by the profile's case rule. */
function siteDoc(
  file: string,
  text: string,
  reader: SiteReader,
): { doc?: SiteDoc; problems: ImportProblem[] } {
  const split = reader.splitDoc?.(file, text) ?? splitFrontMatter(file, text);
  if (split.problems.length > 0) return { problems: split.problems };
  const fold = (name: string) => (reader.caseInsensitiveKeys ? name.toLowerCase() : name);
  const own = new Set(Object.keys(split.data).map(fold));
  // Values the site gives every file of a kind (Jekyll's `defaults`): the file's own front matter wins.
  const cascade = Object.entries(reader.cascade(file)).filter(([name]) => !own.has(fold(name)));
  const data = { ...Object.fromEntries(cascade), ...split.data };
  const keys = new Map(Object.keys(data).map((name) => [fold(name), name]));
  const key = (name: string) => keys.get(fold(name));
  const inherited = new Set(cascade.map(([name]) => name));
  return { doc: { file, ...split, data, key, inherited }, problems: [] };
}

interface Read {
  files: FileReport[];
  entries: { file: string; outcome: ArticleOutcome; read: SiteArticle; doc: SiteDoc }[];
  problems: ImportProblem[];
}

async function readFiles(root: string, reader: SiteReader, options: ReadOptions): Promise<Read> {
  const all = await listFiles(root, reader);
  const fileSet = new Set(all);
  const result: Read = { files: [], entries: [], problems: [] };
  const now = new Date();
  for (const [index, file] of all.entries()) {
    options.onProgress?.(index + 1, all.length);
    let kind = reader.classify(file, fileSet);
    if (kind.kind === 'ignore') continue;
    if (kind.kind === 'skipped') {
      result.files.push({ file, kind: 'skipped', reason: kind.reason });
      continue;
    }
    const problems: ImportProblem[] = [];
    const text = await readText(join(root, ...file.split('/')), file, problems);
    const parsed = text === null ? { problems } : siteDoc(file, text, reader);
    let found: ImportProblem[] = [];
    if (reader.readDoc !== undefined && parsed.doc !== undefined) {
      ({ kind, warnings: found } = await reader.readDoc(parsed.doc, kind));
      if (kind.kind === 'ignore') continue;
      if (kind.kind === 'skipped') {
        result.files.push({ file, kind: 'skipped', reason: kind.reason });
        continue;
      }
    }
    if (kind.kind === 'page') {
      // A page is reported, not imported: front matter it cannot read only leaves its path unknown.
      const page = reader.page(parsed.doc ?? null, file, kind.reason);
      result.files.push(
        page.kind === 'page' ? { file, ...page } : { file, kind: page.kind, reason: page.reason },
      );
      continue;
    }
    if (parsed.doc === undefined) {
      result.problems.push(...parsed.problems);
      result.files.push({ file, kind: 'post' });
      continue;
    }
    const read = readSiteArticle(parsed.doc, reader, kind.draftReason, {
      strict: options.strict === true,
      now,
    });
    if (read.article !== undefined) read.warnings.push(...found);
    result.files.push(read.report);
    result.entries.push({ file, outcome: read, read, doc: parsed.doc });
  }
  return result;
}

/** Reads a site with its generator's profile into a ContentSource, or throws every problem found. */
export async function readSite(
  root: string,
  profile: SiteProfile,
  options: ReadOptions = {},
): Promise<ContentSource> {
  const reader = await profile.open(root, options);
  if (reader.problems.length > 0) throw new ImportValidationError(reader.problems);
  const read = await readFiles(root, reader, options);
  const problems = [...read.problems, ...mergeDuplicates(read.entries)];
  if (problems.length > 0) throw new ImportValidationError(problems);

  const warnings: ImportProblem[] = [...reader.warnings];
  const articles: ArticleInput[] = [];
  const paths = new Map<string, string | null>(
    read.files.filter((f) => f.kind === 'page').map((f) => [f.file, f.path ?? null]),
  );
  for (const { read: entry } of read.entries) paths.set(entry.report.file, entry.article?.path ?? null);
  for (const { read: entry, doc } of read.entries) {
    const article = entry.article as ArticleInput;
    const fileWarnings = [...entry.warnings];
    article.content = await finishBody(root, reader, doc, entry, paths, fileWarnings);
    warnings.push(...sortByLine(fileWarnings));
    articles.push(article);
  }
  // --strict refuses what would only be warned (every warning becomes an error).
  if (options.strict === true && warnings.length > 0) throw new ImportValidationError(warnings);
  const settings = reader.settings;
  const tags = declaredTags(reader, articles);
  return { generator: profile.name, settings, files: read.files, tags, articles, warnings };
}

/** The tags whose slug the profile gives (a tags file, the generator's slugger), each once. */
function declaredTags(reader: SiteReader, articles: readonly ArticleInput[]): TagInput[] {
  const tagOf = reader.tagOf;
  if (tagOf === undefined) return [];
  const tags = new Map<string, TagInput>();
  for (const name of articles.flatMap((article) => article.tags)) {
    if (tags.has(name.toLowerCase())) continue;
    tags.set(name.toLowerCase(), { name, slug: tagOf(name).slug, color: null, icon: null });
  }
  return [...tags.values()];
}

/**
 * The stored content: the divider out, template syntax expanded as the generator renders it
 * (cross-references to the other files' paths, bundle resources against the article's URL),
 * then relative images resolved.
 */
async function finishBody(
  root: string,
  reader: SiteReader,
  doc: SiteDoc,
  entry: SiteArticle,
  paths: ReadonlyMap<string, string | null>,
  warnings: ImportProblem[],
): Promise<string> {
  const base = entry.base;
  const context: TemplateContext = {
    file: doc.file,
    firstBodyLine: doc.bodyLine,
    dialects: reader.dialects(doc),
    resolveRef: refResolver(paths, reader.refCandidates, reader.settings.siteUrl, doc.file),
    resolveResource: (src) =>
      base === null || /^[a-z][a-z0-9+.-]*:|^\/|^#/i.test(src) ? src : againstArticle(src, base),
    options: reader.templateOptions(doc),
  };
  const expanded = expandTemplates(withoutSeparator(doc.body, entry.separator), context);
  warnings.push(...expanded.warnings);
  const article = entry.article as ArticleInput;
  if (entry.excerptFromBody && article.excerpt !== null) {
    // The same text is in the body, whose expansion has reported its template syntax already.
    const excerpt = expandTemplates(article.excerpt, { ...context, firstBodyLine: doc.bodyLine }).text.trim();
    article.excerpt = excerpt === '' ? null : excerpt;
  }
  return resolveImages(
    expanded.text,
    {
      file: doc.file,
      bodyLine: doc.bodyLine,
      base,
      siteRoot: root,
      written: doc.body,
      processed: reader.processedImages?.(doc),
    },
    warnings,
  );
}
