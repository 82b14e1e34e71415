// A folder of Markdown files as blogs keep them: Folio's (tags.yaml and *.md), Astro's content
// collections, Hugo's content folder with page bundles (post-name/index.md is the post
// `post-name`; _index.md section pages are skipped) and Jekyll's _posts (2024-01-15-title.md is
// the post `title` of that date). `.md` and `.markdown` files are read; other files are assets.
import type { Dirent } from 'node:fs';
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { compareCodeUnits } from '../lists.ts';
import { analyseArticleFile, MARKDOWN_RE, namingOf } from './markdown-file.ts';
import {
  type ArticleInput,
  type ContentSource,
  type ImportProblem,
  ImportValidationError,
  type ReadOptions,
  type TagInput,
} from './records.ts';
import { type ArticleDigest, digester, ownCopy, type StreamedSource } from './digest.ts';
import { ArticleSpool, spooledSource } from './spool.ts';
import { type ArticleOutcome } from './article-rules.ts';
import { mergeDuplicates } from './duplicate-slugs.ts';
import { type Ctx, sortByLine } from './check-kit.ts';
import { validateTagList } from './tag-rules.ts';
import { stripBom, toPlain, yamlErrorProblems, yamlLocator } from './yaml-lines.ts';

export function parseTagsYaml(
  file: string,
  text: string,
  warnings: ImportProblem[] = [],
  options: ReadOptions = {},
): { tags: TagInput[]; problems: ImportProblem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(stripBom(text).replace(/\r\n?/g, '\n'), { lineCounter, prettyErrors: false });
  const errors = yamlErrorProblems(file, doc, lineCounter, 0);
  if (errors.length > 0) return { tags: [], problems: errors };
  const plain = toPlain(file, doc);
  if (plain.problem) return { tags: [], problems: [plain.problem] };
  const problems: ImportProblem[] = [];
  const locate = yamlLocator(doc, lineCounter, { lineOffset: 0 });
  const unit = { file, problems, warnings, strict: options.strict === true };
  const listCtx: Ctx = { ...unit, locate: () => 1 };
  const tags = validateTagList(
    plain.value,
    listCtx,
    (i) => ({ ...unit, locate: (path) => locate([i, ...path]) }),
    (i) => `${file}:${locate([i])}`,
  );
  sortByLine(problems);
  return { tags: problems.length > 0 ? [] : tags, problems };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The file's text, or null with a problem. Read synchronously: a source's files are small, and the
 * promise API's handle per file cost several times the read itself (20,000 files of 4 KB from
 * the page cache: 1.9 s 16 at a time, 0.23 s one by one synchronously).
 */
export async function readText(
  path: string,
  file: string,
  problems: ImportProblem[],
): Promise<string | null> {
  return readTextSync(path, file, problems);
}

export function readTextSync(path: string, file: string, problems: ImportProblem[]): string | null {
  try {
    const text = utf8.decode(readFileSync(path));
    const nul = text.indexOf('\u0000');
    if (nul >= 0) {
      // Neither database can keep it (PostgreSQL refuses it in text), and no editor writes one.
      problems.push({
        file,
        line: text.slice(0, nul).split('\n').length,
        message: 'file contains a NUL character',
      });
      return null;
    }
    return text;
  } catch (error) {
    const message =
      error instanceof TypeError
        ? 'file is not valid UTF-8'
        : `cannot read file: ${(error as Error).message}`;
    problems.push({ file, line: 1, message });
    return null;
  }
}

/** Files read and checked between two turns of the event loop (about 20 ms). */
const filesPerTurn = 64;

/** Relative posix paths of the Markdown files, sorted by code unit so the order never depends on locale or platform. */
async function findMarkdownFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries: Dirent[] = await readdir(relative === '' ? root : join(root, relative), {
      withFileTypes: true,
    });
    for (const entry of entries) {
      // Dot entries are editor, VCS or OS litter (.git, .obsidian, ._post.md), never content.
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) await walk(child);
      else if (MARKDOWN_RE.test(entry.name)) {
        // Symlinked files are followed; symlinked folders are not, so a link cycle cannot hang the import.
        const isFile = entry.isFile() || (entry.isSymbolicLink() && (await stat(join(root, child))).isFile());
        if (isFile) found.push(child);
      }
    }
  };
  await walk('');
  return found.sort(compareCodeUnits);
}

export async function readMarkdownFolder(path: string, options: ReadOptions = {}): Promise<ContentSource> {
  const articles: ArticleInput[] = [];
  const source = await checkMarkdownFolder(path, options, (article) => articles.push(article));
  return { ...source, articles };
}

/**
 * The folder checked whole, keeping of each article only its digest; its articles, as checked, wait
 * in a spool file until they are written, so that its memory is a batch's, not the blog's.
 */
export async function streamMarkdownFolder(path: string, options: ReadOptions = {}): Promise<StreamedSource> {
  const articles: ArticleDigest[] = [];
  const digest = digester();
  const spool = new ArticleSpool();
  try {
    const source = await checkMarkdownFolder(path, options, (article) => {
      articles.push(digest(article));
      spool.append(article);
    });
    return spooledSource(source, articles, spool);
  } catch (error) {
    spool.close();
    throw error;
  }
}

/** Checks every file of the folder, handing each valid article to `keep`; throws every problem found. */
async function checkMarkdownFolder(
  path: string,
  options: ReadOptions,
  keep: (article: ArticleInput) => void,
): Promise<Omit<ContentSource, 'articles'>> {
  const found = await findMarkdownFiles(path);
  const warnings: ImportProblem[] = [];
  // Hugo's _index.md is the page of a section (a list of posts), not a post.
  const markdownFiles = found.filter((file) => {
    if (!/^_index\.(md|markdown)$/i.test(posix.basename(file))) return true;
    warnings.push({ file, line: 1, message: 'Hugo section page (_index.md) skipped: it is not a post' });
    return false;
  });
  const hasTagsFile = await stat(join(path, 'tags.yaml')).then(
    (tagsInfo) => tagsInfo.isFile(),
    () => false,
  );
  if (markdownFiles.length === 0 && !hasTagsFile) {
    throw new ImportValidationError([
      { file: path, line: 1, message: 'content folder holds no .md file and no tags.yaml' },
    ]);
  }

  const problems: ImportProblem[] = [];
  let tags: TagInput[] = [];
  if (hasTagsFile) {
    const text = await readText(join(path, 'tags.yaml'), 'tags.yaml', problems);
    if (text !== null) {
      const result = parseTagsYaml('tags.yaml', text, warnings, options);
      tags = result.tags;
      problems.push(...result.problems);
    }
  }

  const entries: { file: string; outcome: ArticleOutcome }[] = [];
  for (const file of markdownFiles) {
    // The files are read synchronously: the event loop gets a turn now and then (a progress
    // bar's redraw, a signal).
    if (entries.length % filesPerTurn === filesPerTurn - 1)
      await new Promise((resolve) => setImmediate(resolve));
    const readProblems: ImportProblem[] = [];
    const text = readTextSync(join(path, ...file.split('/')), file, readProblems);
    options.onProgress?.(entries.length + 1, markdownFiles.length);
    const naming = namingOf(file);
    let outcome: ArticleOutcome;
    if (text === null) outcome = { slugLine: () => 1, problems: readProblems };
    else if ('problem' in naming)
      outcome = { slugLine: () => 1, problems: [{ file, line: 1, message: naming.problem }] };
    else outcome = analyseArticleFile(file, text, naming, warnings, options);
    // Handed on now and not kept here: the check of duplicate slugs needs only the slug.
    if (outcome.article) keep(outcome.article);
    delete outcome.article;
    // Kept to the end for the duplicates' check: its slug must not keep the file's text alive.
    if (outcome.slug !== undefined) outcome.slug = ownCopy(outcome.slug);
    entries.push({ file, outcome });
  }
  problems.push(...mergeDuplicates(entries));

  if (problems.length > 0) throw new ImportValidationError(problems);
  return { tags, warnings };
}
