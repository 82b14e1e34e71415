// Folio's JSON file: { tags: [{ name, color, icon }], articles: [{ …fields, content }] }, the same
// fields as the front matter (aliases included) plus `content`.
import { type ArticleInput, type ContentSource, type ImportProblem, type ReadOptions } from './records.ts';
import { type ArticleOutcome, FRONT_MATTER_FIELDS, validateArticle } from './article-rules.ts';
import { mergeDuplicates } from './duplicate-slugs.ts';
import { type Ctx, checkUnknownKeys, describe, isObject, report, sortByLine } from './check-kit.ts';
import { validateTagList } from './tag-rules.ts';
import { lazyJsonLocator, stripBom } from './yaml-lines.ts';

/** The keys of a JSON file's root object. */
const JSON_ROOT_FIELDS = ['tags', 'articles'] as const;

const JSON_FIELDS = [...FRONT_MATTER_FIELDS, 'content'];

function jsonErrorLine(text: string, message: string): number {
  const lineMatch = /\(line (\d+) column \d+\)/.exec(message);
  if (lineMatch) return Number(lineMatch[1]);
  const positionMatch = /at position (\d+)/.exec(message);
  if (positionMatch) return text.slice(0, Number(positionMatch[1])).split('\n').length;
  if (/end of JSON input/.test(message)) return text.split('\n').length;
  return 1;
}

/** JSON.parse, with a failure as a problem on its line. */
export function parseJson(file: string, text: string): { data?: unknown; problem?: ImportProblem } {
  try {
    return { data: JSON.parse(text) };
  } catch (error) {
    const message = (error as Error).message;
    return {
      problem: {
        file,
        line: jsonErrorLine(text, message),
        message: `invalid JSON: ${message
          .replace(/\s*\(line \d+ column \d+\)/, '')
          .replace(/ at position \d+/, '')
          .replace(/\r?\n/g, '\\n')}`,
      },
    };
  }
}

/** A parsed Folio JSON document; `text` is its source, for lines. */
export function folioJsonSource(
  file: string,
  text: string,
  data: unknown,
  options: ReadOptions = {},
): { source?: ContentSource; problems: ImportProblem[] } {
  const locate = lazyJsonLocator(text);
  const warnings: ImportProblem[] = [];
  const strict = options.strict === true;
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

  const entries: { file: string; outcome: ArticleOutcome }[] = [];
  const rawArticles = data['articles'];
  if (rawArticles !== undefined && rawArticles !== null && !Array.isArray(rawArticles)) {
    report(rootCtx, ['articles'], `articles must be a list of objects, got ${describe(rawArticles)}`);
  } else if (Array.isArray(rawArticles)) {
    rawArticles.forEach((item, i) => {
      options.onProgress?.(i + 1, rawArticles.length);
      const articleFile = `${file}#articles[${i}]`;
      const ctx: Ctx = {
        file: articleFile,
        problems: [],
        warnings,
        strict,
        locate: (path) => locate(['articles', i, ...path]),
        costlyLocate: true,
      };
      if (!isObject(item)) {
        report(ctx, [], `article must be an object, got ${describe(item)}`);
        entries.push({
          file: articleFile,
          outcome: { slugLine: () => ctx.locate([]), problems: ctx.problems },
        });
        return;
      }
      entries.push({ file: articleFile, outcome: validateArticle(ctx, item, { allowed: JSON_FIELDS }) });
    });
  }
  const problems = [
    ...sortByLine(rootProblems),
    ...tagProblems.flatMap((list) => sortByLine(list)),
    ...mergeDuplicates(entries),
  ];
  if (problems.length > 0) return { problems };
  return {
    source: { tags, articles: entries.map((e) => e.outcome.article as ArticleInput), warnings },
    problems,
  };
}

/** Folio's JSON format from its text (for tests and callers that hold the text). */
export function parseJsonSource(
  file: string,
  text: string,
  options: ReadOptions = {},
): { source?: ContentSource; problems: ImportProblem[] } {
  const clean = stripBom(text);
  const parsed = parseJson(file, clean);
  if (parsed.problem) return { problems: [parsed.problem] };
  return folioJsonSource(file, clean, parsed.data, options);
}
