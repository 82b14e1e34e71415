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
import { WorkerCalls } from '../../db/worker-calls.ts';
import { type ArticleDigest, digester, digestOf, ownCopy, type StreamedSource } from './digest.ts';
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
  const source = await checkMarkdownFolder(path, options, { article: (article) => articles.push(article) });
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
    const source = await checkMarkdownFolder(path, options, {
      article: (article) => {
        articles.push(digest(article));
        spool.append(article);
      },
      checked: (checked, json) => {
        articles.push(digest.shared(checked));
        spool.appendJson(json);
      },
    });
    return spooledSource(source, articles, spool);
  } catch (error) {
    spool.close();
    throw error;
  }
}

/** One file checked: its outcome, with its article when valid. */
function checkFile(
  root: string,
  file: string,
  warnings: ImportProblem[],
  options: ReadOptions,
): ArticleOutcome {
  const readProblems: ImportProblem[] = [];
  const text = readTextSync(join(root, ...file.split('/')), file, readProblems);
  const naming = namingOf(file);
  if (text === null) return { slugLine: () => 1, problems: readProblems };
  if ('problem' in naming)
    return { slugLine: () => 1, problems: [{ file, line: 1, message: naming.problem }] };
  return analyseArticleFile(file, text, naming, warnings, options);
}

/** A file checked by the check thread, as plain data: its article as a digest and a line of JSON. */
export interface FileCheck {
  file: string;
  slug?: string;
  slugLine: number;
  problems: ImportProblem[];
  /** Its own warnings, in order. */
  warnings: ImportProblem[];
  digest?: ArticleDigest;
  json?: string;
}

/** Checks files of a folder (the check thread's work). */
export function checkFiles(root: string, files: string[], options: { strict?: boolean }): FileCheck[] {
  return files.map((file) => {
    const warnings: ImportProblem[] = [];
    const { article, slug, slugLine, problems } = checkFile(root, file, warnings, options);
    return {
      file,
      slug,
      slugLine: slugLine(),
      problems,
      warnings,
      ...(article ? { digest: digestOf(article), json: JSON.stringify(article) } : {}),
    };
  });
}

/** Files checked at a time, here or in the check thread. */
const chunkFiles = 100;
/** Files from which a folder is checked in two threads. */
const threadFrom = 1_000;

/**
 * Every file checked in order: with a thread, every other chunk of files is checked there while
 * this thread checks the one before it (the thread is kept two chunks ahead), and the results are
 * taken in the files' order, so that warnings, problems and articles come as from one thread.
 */
async function checkInChunks(
  files: string[],
  thread: WorkerCalls | null,
  root: string,
  options: ReadOptions,
  checkHere: (file: string) => void,
  takeChecked: (checked: FileCheck) => void,
): Promise<void> {
  const chunkCount = Math.ceil(files.length / chunkFiles);
  const chunk = (k: number) => files.slice(k * chunkFiles, (k + 1) * chunkFiles);
  const inThread = (k: number) => thread !== null && k % 2 === 1;
  const sent = new Map<number, Promise<FileCheck[]>>();
  const send = (k: number) => {
    if (k >= chunkCount || !inThread(k) || sent.has(k)) return;
    const checking = thread!.call({ root, files: chunk(k), strict: options.strict === true }) as Promise<
      FileCheck[]
    >;
    // Awaited in turn below; a failure meanwhile is not an unhandled rejection.
    checking.catch(() => {});
    sent.set(k, checking);
  };
  for (let k = 0; k < chunkCount; k++) {
    if (inThread(k)) {
      const checked = await sent.get(k)!;
      sent.delete(k);
      for (const item of checked) takeChecked(item);
      continue;
    }
    send(k + 1);
    send(k + 3);
    for (const file of chunk(k)) checkHere(file);
    // The files are read synchronously: the event loop gets a turn between chunks (a progress
    // bar's redraw, a signal).
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Checks every file of the folder, handing each valid article to `keep`; throws every problem found. */
async function checkMarkdownFolder(
  path: string,
  options: ReadOptions,
  keep: {
    /** A valid article checked here. */
    article: (article: ArticleInput) => void;
    /** A valid article checked by the check thread, as its digest and its line of JSON (given, threads may be used). */
    checked?: (digest: ArticleDigest, json: string) => void;
  },
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
  const checkHere = (file: string) => {
    options.onProgress?.(entries.length + 1, markdownFiles.length);
    const outcome = checkFile(path, file, warnings, options);
    // Handed on now and not kept here: the check of duplicate slugs needs only the slug.
    if (outcome.article) keep.article(outcome.article);
    delete outcome.article;
    // Kept to the end for the duplicates' check: its slug must not keep the file's text alive.
    if (outcome.slug !== undefined) outcome.slug = ownCopy(outcome.slug);
    entries.push({ file, outcome });
  };
  const takeChecked = (checked: FileCheck) => {
    options.onProgress?.(entries.length + 1, markdownFiles.length);
    warnings.push(...checked.warnings);
    if (checked.digest !== undefined) keep.checked?.(checked.digest, checked.json!);
    // Only numbers and the slug are kept: a closure over `checked` would keep its JSON.
    const slugLine = checked.slugLine;
    entries.push({
      file: checked.file,
      outcome: { slug: checked.slug, slugLine: () => slugLine, problems: checked.problems },
    });
  };
  const thread =
    keep.checked !== undefined && (options.threads ?? markdownFiles.length >= threadFrom)
      ? new WorkerCalls(new URL('./check-thread.ts', import.meta.url), null, 'import check thread', {
          youngGenerationMb: 8,
        })
      : null;
  try {
    await checkInChunks(markdownFiles, thread, path, options, checkHere, takeChecked);
  } finally {
    await thread?.close();
  }
  problems.push(...mergeDuplicates(entries));

  if (problems.length > 0) throw new ImportValidationError(problems);
  return { tags, warnings };
}
