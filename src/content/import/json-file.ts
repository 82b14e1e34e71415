// Folio's JSON file: { tags: [{ name, color, icon }], articles: [{ …fields, content }] }, the same
// fields as the front matter (aliases included) plus `content`. The file is read in chunks and its
// articles checked one at a time (json-splitter.ts), never parsed whole: a large export is more
// text than the import may hold. A Ghost export (told apart by its root) is read whole.
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { type ArticleInput, type ContentSource, type ImportProblem, type ReadOptions } from './records.ts';
import { type ArticleOutcome, FRONT_MATTER_FIELDS, validateArticle } from './article-rules.ts';
import { mergeDuplicates } from './duplicate-slugs.ts';
import {
  type Ctx,
  checkUnknownKeys,
  describe,
  isObject,
  type Path,
  report,
  sortByLine,
} from './check-kit.ts';
import { type ArticleDigest, digester, ownCopy, type StreamedSource } from './digest.ts';
import { ghostSource, isGhostExport } from './ghost.ts';
import { type JsonElement, JsonArticleSplitter } from './json-splitter.ts';
import { ArticleSpool, spooledSource } from './spool.ts';
import { validateTagList } from './tag-rules.ts';
import { lazyJsonLocator, yamlLocator } from './yaml-lines.ts';

/** The keys of a JSON file's root object. */
const JSON_ROOT_FIELDS = ['tags', 'articles'] as const;

const JSON_FIELDS = [...FRONT_MATTER_FIELDS, 'content'];

/** Bytes read at a time. */
const chunkBytes = 1 << 20;

function jsonErrorLine(text: string, message: string): number {
  const lineMatch = /\(line (\d+) column \d+\)/.exec(message);
  if (lineMatch) return Number(lineMatch[1]);
  const positionMatch = /at position (\d+)/.exec(message);
  if (positionMatch) return text.slice(0, Number(positionMatch[1])).split('\n').length;
  if (/end of JSON input/.test(message)) return text.split('\n').length;
  return 1;
}

/** JSON.parse, with a failure as a problem on its line (`firstLine`: the text's first line in the file). */
export function parseJson(
  file: string,
  text: string,
  firstLine = 1,
): { data?: unknown; problem?: ImportProblem } {
  try {
    return { data: JSON.parse(text) };
  } catch (error) {
    const message = (error as Error).message;
    return {
      problem: {
        file,
        line: firstLine - 1 + jsonErrorLine(text, message),
        message: `invalid JSON: ${message
          .replace(/\s*\(line \d+ column \d+\)/, '')
          .replace(/ at position \d+/, '')
          .replace(/\r?\n/g, '\\n')}`,
      },
    };
  }
}

/** Lines of an article's fields: its value's and its slug's are known; others parse the article alone. */
function elementLocator(element: JsonElement, text: string): (path: Path) => number {
  let locate: ((path: Path) => number) | undefined;
  return (path) => {
    if (path.length === 0) return element.valueLine;
    if (path.length === 1 && path[0] === 'slug' && element.slugLine !== null) return element.slugLine;
    if (locate === undefined) {
      const lineCounter = new LineCounter();
      const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
      locate =
        doc.errors.length > 0
          ? () => element.valueLine
          : yamlLocator(doc, lineCounter, { lineOffset: element.firstLine - 1, rootLine: element.valueLine });
    }
    return locate(path);
  };
}

/** An article of the file checked: its outcome, or a syntax problem (the file is then refused as invalid JSON). */
function checkElement(
  file: string,
  element: JsonElement,
  warnings: ImportProblem[],
  strict: boolean,
): { outcome?: ArticleOutcome; syntax?: ImportProblem } {
  if (element.text === null) return { syntax: { file, line: 1, message: 'file is not valid UTF-8' } };
  const parsed = parseJson(file, element.text, element.firstLine);
  if (parsed.problem) return { syntax: parsed.problem };
  const item = parsed.data;
  const ctx: Ctx = {
    file: `${file}#articles[${element.index}]`,
    problems: [],
    warnings,
    strict,
    locate: elementLocator(element, element.text),
  };
  if (!isObject(item)) {
    report(ctx, [], `article must be an object, got ${describe(item)}`);
    return { outcome: { slugLine: () => element.valueLine, problems: ctx.problems } };
  }
  return { outcome: validateArticle(ctx, item, { allowed: JSON_FIELDS }) };
}

/** What is left of a JSON source once its articles were handed on: a Ghost export, read whole, comes back whole. */
type JsonCheck =
  | { problems: ImportProblem[]; source?: undefined; ghost?: undefined }
  | { problems: []; source: Omit<ContentSource, 'articles'>; ghost?: undefined }
  | { problems: []; ghost: ContentSource; source?: undefined };

/**
 * One pass over a JSON document fed in chunks: each article is checked as it is split off and, when
 * valid, handed to `keep` (then forgotten here); the root and the tags are checked at the end.
 */
class JsonSourceCheck {
  readonly #file: string;
  readonly #options: ReadOptions;
  readonly #total: number | undefined;
  readonly #keep: (article: ArticleInput) => void;
  readonly #warnings: ImportProblem[] = [];
  readonly #entries: { file: string; outcome: ArticleOutcome }[] = [];
  #syntax: ImportProblem | undefined;
  readonly splitter: JsonArticleSplitter;

  constructor(
    file: string,
    options: ReadOptions,
    total: number | undefined,
    keep: (article: ArticleInput) => void,
  ) {
    this.#file = file;
    this.#options = options;
    this.#total = total;
    this.#keep = keep;
    this.splitter = new JsonArticleSplitter((element) => this.#element(element));
  }

  #element(element: JsonElement): void {
    // Past a syntax error the file is refused as it is: nothing more is checked.
    if (this.#syntax) return;
    if (this.#total !== undefined) this.#options.onProgress?.(element.index + 1, this.#total);
    const { outcome, syntax } = checkElement(
      this.#file,
      element,
      this.#warnings,
      this.#options.strict === true,
    );
    if (syntax) {
      this.#syntax = syntax;
      return;
    }
    if (outcome!.article) this.#keep(outcome!.article);
    delete outcome!.article;
    // Kept to the end for the duplicates' check: its slug must not keep the article's text alive.
    if (outcome!.slug !== undefined) outcome!.slug = ownCopy(outcome!.slug);
    this.#entries.push({ file: `${this.#file}#articles[${element.index}]`, outcome: outcome! });
  }

  finish(): JsonCheck {
    const file = this.#file;
    const skeleton = this.splitter.end();
    const nulLine = this.splitter.nulLine;
    // Neither database can keep a NUL, and no editor writes one.
    if (nulLine !== null)
      return { problems: [{ file, line: nulLine, message: 'file contains a NUL character' }] };
    if (skeleton === null) return { problems: [{ file, line: 1, message: 'file is not valid UTF-8' }] };
    const parsed = parseJson(file, skeleton);
    const syntax = [parsed.problem, this.#syntax].filter((problem) => problem !== undefined);
    // The first error in the file, as JSON.parse of it whole would report.
    if (syntax.length > 0) return { problems: [syntax.sort((a, b) => a.line - b.line)[0]] };
    if (this.splitter.count === 0 && isGhostExport(parsed.data)) {
      const ghost = ghostSource(file, skeleton, parsed.data, this.#options);
      return ghost.source ? { problems: [], ghost: ghost.source } : { problems: ghost.problems };
    }
    return this.#folio(skeleton, parsed.data);
  }

  #folio(skeleton: string, data: unknown): JsonCheck {
    const file = this.#file;
    const locate = lazyJsonLocator(skeleton);
    const warnings = this.#warnings;
    const strict = this.#options.strict === true;
    const rootProblems: ImportProblem[] = [];
    const rootCtx: Ctx = { file, problems: rootProblems, warnings, strict, locate };
    if (!isObject(data)) {
      report(
        rootCtx,
        [],
        `the JSON file must hold an object with "tags" and "articles" (or be a Ghost export), got ${describe(data)}`,
      );
      return { problems: rootProblems };
    }
    checkUnknownKeys(rootCtx, data, [], JSON_ROOT_FIELDS);
    if (data['tags'] === undefined && data['articles'] === undefined) {
      report(rootCtx, [], 'the JSON file has neither "tags" nor "articles"');
    }

    const tagProblems: ImportProblem[][] = [];
    const tags = validateTagList(
      data['tags'],
      { ...rootCtx, locate: (path) => locate(['tags', ...path]) },
      (i) => {
        tagProblems[i] = [];
        return {
          file: `${file}#tags[${i}]`,
          problems: tagProblems[i],
          warnings,
          strict,
          locate: (path) => locate(['tags', i, ...path]),
        };
      },
      (i) => `${file}#tags[${i}]`,
    );
    const rawArticles = data['articles'];
    if (rawArticles !== undefined && rawArticles !== null && !Array.isArray(rawArticles)) {
      report(rootCtx, ['articles'], `articles must be a list of objects, got ${describe(rawArticles)}`);
    }
    const problems = [
      ...sortByLine(rootProblems),
      ...tagProblems.flatMap((list) => sortByLine(list)),
      ...mergeDuplicates(this.#entries),
    ];
    if (problems.length > 0) return { problems };
    return { problems: [], source: { tags, warnings } };
  }
}

/** Folio's JSON format (or a Ghost export) from its text, held whole: for tests and callers that hold the text. */
export function parseJsonSource(
  file: string,
  text: string,
  options: ReadOptions = {},
): { source?: ContentSource; problems: ImportProblem[] } {
  const bytes = Buffer.from(text);
  let total: number | undefined;
  if (options.onProgress) {
    const counter = new JsonArticleSplitter(null);
    counter.push(bytes);
    total = counter.count;
  }
  const articles: ArticleInput[] = [];
  const check = new JsonSourceCheck(file, options, total, (article) => articles.push(article));
  check.splitter.push(bytes);
  const result = check.finish();
  if (result.ghost) return { source: result.ghost, problems: [] };
  if (result.source) return { source: { ...result.source, articles }, problems: [] };
  return { problems: result.problems };
}

async function pushFile(path: string, splitter: JsonArticleSplitter): Promise<void> {
  for await (const chunk of createReadStream(path, { highWaterMark: chunkBytes }))
    splitter.push(chunk as Buffer);
}

/** The articles of a JSON file, counted (for progress) without being parsed. */
async function countArticles(path: string): Promise<number> {
  const counter = new JsonArticleSplitter(null);
  await pushFile(path, counter);
  return counter.count;
}

/**
 * A JSON file checked whole, keeping of each article its digest (`keep: 'articles'`: the article);
 * a Folio file's articles, as checked, wait in a spool file until they are written.
 */
export async function readJsonFile(
  path: string,
  options: ReadOptions,
  keep: 'articles' | 'digests',
): Promise<{ source?: ContentSource | StreamedSource; problems: ImportProblem[] }> {
  const file = basename(path);
  const total = options.onProgress ? await countArticles(path) : undefined;
  const articles: ArticleInput[] = [];
  const digests: ArticleDigest[] = [];
  const digest = digester();
  const spool = keep === 'digests' ? new ArticleSpool() : null;
  try {
    const check = new JsonSourceCheck(file, options, total, (article) => {
      if (spool === null) articles.push(article);
      else {
        digests.push(digest(article));
        spool.append(article);
      }
    });
    await pushFile(path, check.splitter);
    const result = check.finish();
    if (spool !== null && result.source)
      return { source: spooledSource(result.source, digests, spool), problems: [] };
    // A Ghost export is held whole; a refused file keeps nothing.
    spool?.close();
    if (result.ghost) return { source: result.ghost, problems: [] };
    if (!result.source) return { problems: result.problems };
    return { source: { ...result.source, articles }, problems: [] };
  } catch (error) {
    spool?.close();
    throw error;
  }
}
