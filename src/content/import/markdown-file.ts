// One Markdown file with its front matter: YAML between `---` fences (Folio, Astro, Jekyll, Hugo)
// or TOML between `+++` fences (Hugo), read into a plain record for the shared validator.
import { posix } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { LineCounter, parseDocument } from 'yaml';
import { parseIsoDate } from './dates.ts';
import type { ArticleInput, ImportProblem, ReadOptions } from './records.ts';
import { type ArticleOutcome, FRONT_MATTER_FIELDS, validateArticle } from './article-rules.ts';
import { type Ctx, describe, isObject, type Path } from './check-kit.ts';
import { stripBom, toPlain, yamlErrorProblems, yamlLocator } from './yaml-lines.ts';

/** What the file's name and place say about the article: its slug, and Jekyll's date. */
export interface FileNaming {
  defaultSlug: string;
  defaultDate?: string;
}

interface FrontMatter {
  data?: Record<string, unknown>;
  locate: (path: Path) => number;
  body: string;
  problems: ImportProblem[];
}

export const MARKDOWN_RE = /\.(md|markdown)$/i;
const JEKYLL_NAME_RE = /^(\d{4}-\d{2}-\d{2})-(.+)$/;

/** The slug and date a file's path gives: its name, or its folder's for a bundle's index.md, less Jekyll's date. */
export function namingOf(file: string): FileNaming | { problem: string } {
  const base = posix.basename(file).replace(MARKDOWN_RE, '');
  const folder = posix.basename(posix.dirname(file));
  const name = base === 'index' && folder !== '.' && folder !== '' ? folder : base;
  const jekyll = JEKYLL_NAME_RE.exec(name);
  if (!jekyll) return { defaultSlug: name };
  const date = parseIsoDate(jekyll[1]);
  if (date === null) return { problem: `the file name starts with ${jekyll[1]}, which is not a date` };
  return { defaultSlug: jekyll[2], defaultDate: date };
}

/** A Markdown file split into its front matter (parsed, with field lines) and its body. */
export interface SplitFile {
  /** The front-matter record; empty when the front matter is empty. */
  data: Record<string, unknown>;
  locate: (path: Path) => number;
  body: string;
  /** The file line the body's first line is on. */
  bodyLine: number;
  problems: ImportProblem[];
}

/** Splits a file into front matter (YAML between `---`, TOML between `+++`) and body, or says why it cannot. */
export function splitFrontMatter(file: string, text: string): SplitFile {
  const lines = stripBom(text).replace(/\r\n?/g, '\n').split('\n');
  const fence = lines[0].trimEnd();
  const failed = (line: number, message: string): SplitFile => ({
    data: {},
    locate: () => 1,
    body: '',
    bodyLine: 1,
    problems: [{ file, line, message }],
  });
  if (fence !== '---' && fence !== '+++') {
    return failed(1, 'missing front matter: the file must start with a "---" (YAML) or "+++" (TOML) line');
  }
  const close = lines.findIndex((line, i) => i > 0 && line.trimEnd() === fence);
  if (close === -1) {
    return failed(1, `front matter is not closed: no "${fence}" line after the opening one`);
  }
  // No trailing newline, so an error at the end of the text points at the last front-matter line, not the fence.
  const matterText = lines.slice(1, close).join('\n');
  let body = lines.slice(close + 1).join('\n');
  let bodyLine = close + 2;
  if (body.startsWith('\n')) {
    body = body.slice(1);
    bodyLine++;
  }
  const matter =
    fence === '---' ? yamlFrontMatter(file, matterText, body) : tomlFrontMatter(file, matterText, body);
  if (matter.problems.length > 0) return { ...failed(1, ''), problems: matter.problems };
  if (matter.data !== undefined && matter.data !== null && !isObject(matter.data)) {
    return failed(1, `front matter must be a mapping of fields, got ${describe(matter.data)}`);
  }
  return { data: matter.data ?? {}, locate: matter.locate, body, bodyLine, problems: [] };
}

export function analyseArticleFile(
  file: string,
  text: string,
  naming: FileNaming,
  warnings: ImportProblem[],
  options: ReadOptions = {},
): ArticleOutcome {
  const split = splitFrontMatter(file, text);
  if (split.problems.length > 0) return { slugLine: () => 1, problems: split.problems };
  const ctx: Ctx = { file, problems: [], warnings, strict: options.strict === true, locate: split.locate };
  return validateArticle(ctx, split.data, {
    allowed: FRONT_MATTER_FIELDS,
    defaultSlug: naming.defaultSlug,
    defaultDate: naming.defaultDate,
    content: split.body,
  });
}

function yamlFrontMatter(file: string, yamlText: string, body: string): FrontMatter {
  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter, prettyErrors: false });
  // The opening fence is line 1 of the file but not part of the YAML text.
  const errors = yamlErrorProblems(file, doc, lineCounter, 1);
  const none = { locate: () => 1, body };
  if (errors.length > 0) return { ...none, problems: errors };
  const plain = toPlain(file, doc);
  if (plain.problem) return { ...none, problems: [plain.problem] };
  return {
    data: plain.value as Record<string, unknown> | undefined,
    locate: yamlLocator(doc, lineCounter, { lineOffset: 1, rootLine: 1 }),
    body,
    problems: [],
  };
}

function tomlFrontMatter(file: string, tomlText: string, body: string): FrontMatter {
  try {
    const data = parseToml(tomlText) as Record<string, unknown>;
    return { data, locate: tomlLocator(tomlText, 2), body, problems: [] };
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    // The parser's message repeats the offending lines; its first line is the reason.
    const reason = error.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
    return {
      locate: () => 1,
      body,
      problems: [{ file, line: error.line + 1, message: `invalid TOML: ${reason}` }],
    };
  }
}

/**
 * `firstLine` is the file line of the text's first line. smol-toml gives no positions: a field's line is that of its `key =` line, or of its `[table]`
 * header, searched from the top and then inside the table for nested keys.
 */
export function tomlLocator(tomlText: string, firstLine: number): (path: Path) => number {
  const lines = tomlText.split('\n');
  const keyPattern = (key: string) => {
    const quoted = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`^\\s*(?:${quoted}|"${quoted}"|'${quoted}')\\s*(?:=|\\.)`);
  };
  const headerPattern = (key: string) =>
    new RegExp(`^\\s*\\[\\[?\\s*${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\]\\]?\\s*(#.*)?$`);
  return (path) => {
    let from = 0;
    // Without a key, the line before the text (a front matter's opening fence), or line 1.
    let line = Math.max(1, firstLine - 1);
    let inTable = false;
    for (const segment of path) {
      if (typeof segment === 'number') break;
      let found = -1;
      for (let i = from; i < lines.length; i++) {
        // A top-level key sits before the first table header.
        if (!inTable && /^\s*\[/.test(lines[i]) && !headerPattern(segment).test(lines[i])) break;
        if (keyPattern(segment).test(lines[i]) || (!inTable && headerPattern(segment).test(lines[i]))) {
          found = i;
          break;
        }
      }
      if (found === -1 && !inTable) {
        found = lines.findIndex((text) => headerPattern(segment).test(text));
      }
      if (found === -1) break;
      line = found + firstLine;
      inTable = headerPattern(segment).test(lines[found]);
      from = found + 1;
    }
    return line;
  };
}

/** One file on its own (tests, tools): its article, or its problems, and its warnings. */
export function parseArticleFile(
  file: string,
  text: string,
  options: ReadOptions = {},
): { article?: ArticleInput; problems: ImportProblem[]; warnings: ImportProblem[] } {
  const warnings: ImportProblem[] = [];
  const naming = namingOf(file);
  if ('problem' in naming) return { problems: [{ file, line: 1, message: naming.problem }], warnings };
  const outcome = analyseArticleFile(file, text, naming, warnings, options);
  return outcome.article
    ? { article: outcome.article, problems: outcome.problems, warnings }
    : { problems: outcome.problems, warnings };
}
