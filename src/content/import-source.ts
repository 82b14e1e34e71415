import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Document, Scalar } from 'yaml';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';

export interface TagInput {
  name: string;
  color: string | null;
  icon: string | null;
}

export interface PersonInput {
  name: string;
  image: string | null;
}

export interface SeoInput {
  metaTitle: string | null;
  metaDescription: string | null;
  ogImage: string | null;
  canonicalUrl: string | null;
  keywords: string[] | null;
}

export interface VariantInput {
  key: string;
  title: string | null;
  excerpt: string | null;
  content: string | null;
}

export type ArticleStatus = 'draft' | 'published' | 'archived';

export interface ArticleInput {
  file: string;
  slug: string;
  title: string;
  excerpt: string | null;
  coverImage: string | null;
  status: ArticleStatus;
  publishedAt: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  author: PersonInput | null;
  lastUpdatedBy: PersonInput | null;
  tags: string[];
  seo: SeoInput | null;
  variants: VariantInput[];
  content: string;
}

export interface ContentSource {
  tags: TagInput[];
  articles: ArticleInput[];
}

export interface ImportProblem {
  file: string;
  line: number;
  message: string;
}

export function formatProblem(problem: ImportProblem): string {
  return `${problem.file}:${problem.line}: ${problem.message}`;
}

export class ImportValidationError extends Error {
  readonly problems: ImportProblem[];

  constructor(problems: ImportProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ImportValidationError';
    this.problems = problems;
  }
}

const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const VARIANT_KEY_RE = /^[a-z0-9][a-z0-9_-]*$/;
const COLOR_RE = /^#[0-9A-Fa-f]{6}$/;
const STATUSES: readonly ArticleStatus[] = ['draft', 'published', 'archived'];
const TITLE_MAX = 300;
const SLUG_MAX = 200;
const TAG_NAME_MAX = 100;
const ICON_MAX = 64;

const ARTICLE_FIELDS = [
  'title',
  'slug',
  'excerpt',
  'coverImage',
  'status',
  'publishedAt',
  'createdAt',
  'updatedAt',
  'author',
  'lastUpdatedBy',
  'tags',
  'seo',
  'variants',
] as const;
const JSON_ARTICLE_FIELDS = [...ARTICLE_FIELDS, 'content'] as const;
const PERSON_FIELDS = ['name', 'image'] as const;
const SEO_FIELDS = ['metaTitle', 'metaDescription', 'ogImage', 'canonicalUrl', 'keywords'] as const;
const VARIANT_FIELDS = ['key', 'title', 'excerpt', 'content'] as const;
const TAG_FIELDS = ['name', 'color', 'icon'] as const;
const JSON_ROOT_FIELDS = ['tags', 'articles'] as const;

type Path = readonly (string | number)[];

/** Where problems of one unit (a file, or one entry of a JSON file) go, and how a field path maps to a line. */
interface Ctx {
  file: string;
  problems: ImportProblem[];
  locate: (path: Path) => number;
}

function report(ctx: Ctx, path: Path, message: string): void {
  ctx.problems.push({ file: ctx.file, line: ctx.locate(path), message });
}

function formatPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Database columns count characters, not UTF-16 code units. */
function charLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortByLine(problems: ImportProblem[]): ImportProblem[] {
  return problems.sort((a, b) => a.line - b.line);
}

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0];
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j];
      previous[j] = Math.min(
        previous[j] + 1,
        previous[j - 1] + 1,
        diagonal + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return previous[b.length];
}

function checkUnknownKeys(
  ctx: Ctx,
  value: Record<string, unknown>,
  base: Path,
  allowed: readonly string[],
): void {
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    const suggestion = allowed
      .map((name) => ({ name, distance: editDistance(key, name) }))
      .filter((c) => c.distance <= 2)
      .sort((a, b) => a.distance - b.distance)[0];
    const hint = suggestion
      ? ` (did you mean "${suggestion.name}"?)`
      : ` (expected one of: ${allowed.join(', ')})`;
    report(ctx, [...base, key], `unknown field ${JSON.stringify(formatPath([...base, key]))}${hint}`);
  }
}

/** Optional free text: absent, null or blank all mean "not given". */
function optionalText(ctx: Ctx, value: unknown, path: Path, maxLength?: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    report(ctx, path, `${formatPath(path)} must be a string or null, got ${describe(value)}`);
    return null;
  }
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (maxLength !== undefined && charLength(trimmed) > maxLength) {
    report(
      ctx,
      path,
      `${formatPath(path)} must be at most ${maxLength} characters, got ${charLength(trimmed)}`,
    );
  }
  return trimmed;
}

function requiredText(ctx: Ctx, value: unknown, path: Path, maxLength?: number): string | null {
  if (value === undefined) {
    report(ctx, path, `missing required field ${JSON.stringify(formatPath(path))}`);
    return null;
  }
  if (typeof value !== 'string') {
    report(ctx, path, `${formatPath(path)} must be a non-empty string, got ${describe(value)}`);
    return null;
  }
  const trimmed = value.trim();
  if (trimmed === '') {
    report(ctx, path, `${formatPath(path)} must not be empty`);
    return null;
  }
  if (maxLength !== undefined && charLength(trimmed) > maxLength) {
    report(
      ctx,
      path,
      `${formatPath(path)} must be at most ${maxLength} characters, got ${charLength(trimmed)}`,
    );
  }
  return trimmed;
}

const ISO_DATE_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)? ?([Zz]|[+-]\d{1,2}(?::?\d{2})?)?)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

/**
 * Date#parse alone is not enough: it rolls 2024-02-30 over into March and reads a
 * time without an offset as local time, which would make imports depend on the host's zone.
 */
export function parseIsoDate(value: string): string | null {
  const match = ISO_DATE_RE.exec(value);
  if (!match) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = match[4] === undefined ? 0 : Number(match[4]);
  const minute = match[5] === undefined ? 0 : Number(match[5]);
  const second = match[6] === undefined ? 0 : Number(match[6]);
  const millis = match[7] === undefined ? 0 : Number(`${match[7]}00`.slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  const zone = match[8];
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const zoneMatch = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone);
    if (!zoneMatch) return null;
    const zoneHours = Number(zoneMatch[2]);
    const zoneMinutes = zoneMatch[3] === undefined ? 0 : Number(zoneMatch[3]);
    if (zoneHours > 23 || zoneMinutes > 59) return null;
    offsetMinutes = (zoneMatch[1] === '-' ? -1 : 1) * (zoneHours * 60 + zoneMinutes);
  }
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 onto 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  const time = date.getTime() - offsetMinutes * 60_000;
  if (!Number.isFinite(time)) return null;
  return new Date(time).toISOString();
}

function optionalDate(ctx: Ctx, value: unknown, path: Path): string | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) {
      report(ctx, path, `${formatPath(path)} is not a valid date`);
      return null;
    }
    return value.toISOString();
  }
  if (typeof value !== 'string') {
    report(
      ctx,
      path,
      `${formatPath(path)} must be an ISO 8601 date string (e.g. 2024-05-01 or 2024-05-01T09:30:00Z), got ${describe(value)}`,
    );
    return null;
  }
  const iso = parseIsoDate(value.trim());
  if (iso === null) {
    report(
      ctx,
      path,
      `${formatPath(path)} must be a valid ISO 8601 date (e.g. 2024-05-01 or 2024-05-01T09:30:00Z), got ${JSON.stringify(value)}`,
    );
  }
  return iso;
}

function optionalPerson(ctx: Ctx, value: unknown, path: Path): PersonInput | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    report(
      ctx,
      path,
      `${formatPath(path)} must be an object with "name" and optional "image", got ${describe(value)}`,
    );
    return null;
  }
  checkUnknownKeys(ctx, value, path, PERSON_FIELDS);
  const name = requiredText(ctx, value['name'], [...path, 'name']);
  const image = optionalText(ctx, value['image'], [...path, 'image']);
  return name === null ? null : { name, image };
}

function validateTagName(ctx: Ctx, value: unknown, path: Path): string | null {
  if (typeof value !== 'string') {
    report(ctx, path, `${formatPath(path)} must be a non-empty string, got ${describe(value)}`);
    return null;
  }
  const name = value.trim();
  if (name === '') {
    report(ctx, path, `${formatPath(path)} must not be empty`);
    return null;
  }
  if (charLength(name) > TAG_NAME_MAX) {
    report(
      ctx,
      path,
      `${formatPath(path)} must be at most ${TAG_NAME_MAX} characters, got ${charLength(name)}`,
    );
    return null;
  }
  return name;
}

function articleTags(ctx: Ctx, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const names: string[] = [];
  if (typeof value === 'string') {
    // A trailing or doubled comma in "a, b," is a slip, not an intended empty tag.
    for (const piece of value.split(',')) {
      const name = piece.trim();
      if (name === '') continue;
      if (charLength(name) > TAG_NAME_MAX) {
        report(ctx, ['tags'], `tag ${JSON.stringify(name)} must be at most ${TAG_NAME_MAX} characters`);
        continue;
      }
      names.push(name);
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const name = validateTagName(ctx, item, ['tags', i]);
      if (name !== null) names.push(name);
    });
  } else {
    report(
      ctx,
      ['tags'],
      `tags must be a list of strings or a comma-separated string, got ${describe(value)}`,
    );
    return [];
  }
  const seen = new Set<string>();
  return names.filter((name) => {
    const folded = name.toLowerCase();
    if (seen.has(folded)) return false;
    seen.add(folded);
    return true;
  });
}

function optionalSeo(ctx: Ctx, value: unknown): SeoInput | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    report(ctx, ['seo'], `seo must be an object, got ${describe(value)}`);
    return null;
  }
  checkUnknownKeys(ctx, value, ['seo'], SEO_FIELDS);
  let keywords: string[] | null = null;
  const rawKeywords = value['keywords'];
  if (Array.isArray(rawKeywords)) {
    keywords = [];
    rawKeywords.forEach((item, i) => {
      const path = ['seo', 'keywords', i];
      if (typeof item !== 'string' || item.trim() === '') {
        report(ctx, path, `${formatPath(path)} must be a non-empty string, got ${describe(item)}`);
      } else {
        keywords?.push(item.trim());
      }
    });
  } else if (rawKeywords !== undefined && rawKeywords !== null) {
    report(ctx, ['seo', 'keywords'], `seo.keywords must be a list of strings, got ${describe(rawKeywords)}`);
  }
  return {
    metaTitle: optionalText(ctx, value['metaTitle'], ['seo', 'metaTitle']),
    metaDescription: optionalText(ctx, value['metaDescription'], ['seo', 'metaDescription']),
    ogImage: optionalText(ctx, value['ogImage'], ['seo', 'ogImage']),
    canonicalUrl: optionalText(ctx, value['canonicalUrl'], ['seo', 'canonicalUrl']),
    keywords,
  };
}

function articleVariants(ctx: Ctx, value: unknown): VariantInput[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    report(ctx, ['variants'], `variants must be a list of objects, got ${describe(value)}`);
    return [];
  }
  const variants: VariantInput[] = [];
  const keys = new Map<string, number>();
  value.forEach((item, i) => {
    const path = ['variants', i];
    if (!isObject(item)) {
      report(ctx, path, `${formatPath(path)} must be an object with a "key", got ${describe(item)}`);
      return;
    }
    checkUnknownKeys(ctx, item, path, VARIANT_FIELDS);
    const keyPath = [...path, 'key'];
    const rawKey = item['key'];
    let key: string | null = null;
    if (rawKey === undefined) {
      report(ctx, keyPath, `missing required field ${JSON.stringify(formatPath(keyPath))}`);
    } else if (typeof rawKey !== 'string') {
      report(ctx, keyPath, `${formatPath(keyPath)} must be a string, got ${describe(rawKey)}`);
    } else if (!VARIANT_KEY_RE.test(rawKey)) {
      report(
        ctx,
        keyPath,
        `${formatPath(keyPath)} ${JSON.stringify(rawKey)} must match ^[a-z0-9][a-z0-9_-]*$ (lowercase letters, digits, "_" and "-")`,
      );
    } else if (keys.has(rawKey)) {
      report(
        ctx,
        keyPath,
        `${formatPath(keyPath)} ${JSON.stringify(rawKey)} duplicates variants[${keys.get(rawKey)}].key`,
      );
    } else {
      keys.set(rawKey, i);
      key = rawKey;
    }
    const title = optionalText(ctx, item['title'], [...path, 'title'], TITLE_MAX);
    const excerpt = optionalText(ctx, item['excerpt'], [...path, 'excerpt']);
    let content: string | null = null;
    const rawContent = item['content'];
    if (typeof rawContent === 'string') content = rawContent;
    else if (rawContent !== undefined && rawContent !== null) {
      report(
        ctx,
        [...path, 'content'],
        `${formatPath([...path, 'content'])} must be a string or null, got ${describe(rawContent)}`,
      );
    }
    if (key !== null) variants.push({ key, title, excerpt, content });
  });
  return variants;
}

interface ArticleOutcome {
  article?: ArticleInput;
  /** A valid slug, known even when other fields are broken, so duplicates across files are still reported. */
  slug?: string;
  slugLine: number;
  problems: ImportProblem[];
}

function validateArticle(
  ctx: Ctx,
  data: Record<string, unknown>,
  options: { defaultSlug?: string; content?: string; allowed: readonly string[] },
): ArticleOutcome {
  checkUnknownKeys(ctx, data, [], options.allowed);

  const title = requiredText(ctx, data['title'], ['title'], TITLE_MAX);

  let slug: string | undefined;
  const rawSlug = data['slug'];
  if (rawSlug === undefined || rawSlug === null) {
    if (options.defaultSlug === undefined) {
      report(ctx, ['slug'], 'missing required field "slug"');
    } else if (!SLUG_RE.test(options.defaultSlug) || options.defaultSlug.length > SLUG_MAX) {
      report(
        ctx,
        [],
        `no slug given and the file name ${JSON.stringify(options.defaultSlug)} is not a valid slug (lowercase letters, digits and single hyphens, at most ${SLUG_MAX} characters): rename the file or set "slug"`,
      );
    } else {
      slug = options.defaultSlug;
    }
  } else if (typeof rawSlug !== 'string') {
    report(ctx, ['slug'], `slug must be a string, got ${describe(rawSlug)}`);
  } else if (!SLUG_RE.test(rawSlug)) {
    report(
      ctx,
      ['slug'],
      `slug ${JSON.stringify(rawSlug)} is not valid: use lowercase letters, digits and single hyphens (e.g. "my-first-post")`,
    );
  } else if (rawSlug.length > SLUG_MAX) {
    report(ctx, ['slug'], `slug must be at most ${SLUG_MAX} characters, got ${rawSlug.length}`);
  } else {
    slug = rawSlug;
  }
  const slugLine = ctx.locate(rawSlug === undefined || rawSlug === null ? [] : ['slug']);

  const excerpt = optionalText(ctx, data['excerpt'], ['excerpt']);
  const coverImage = optionalText(ctx, data['coverImage'], ['coverImage']);
  const publishedAt = optionalDate(ctx, data['publishedAt'], ['publishedAt']);
  const createdAt = optionalDate(ctx, data['createdAt'], ['createdAt']);
  const updatedAt = optionalDate(ctx, data['updatedAt'], ['updatedAt']);

  let status: ArticleStatus =
    data['publishedAt'] === undefined || data['publishedAt'] === null ? 'draft' : 'published';
  const rawStatus = data['status'];
  if (rawStatus !== undefined && rawStatus !== null) {
    if (typeof rawStatus === 'string' && (STATUSES as readonly string[]).includes(rawStatus)) {
      status = rawStatus as ArticleStatus;
    } else {
      report(
        ctx,
        ['status'],
        `status must be one of ${STATUSES.join(', ')}, got ${typeof rawStatus === 'string' ? JSON.stringify(rawStatus) : describe(rawStatus)}`,
      );
    }
  }

  const author = optionalPerson(ctx, data['author'], ['author']);
  const lastUpdatedBy = optionalPerson(ctx, data['lastUpdatedBy'], ['lastUpdatedBy']);
  const tags = articleTags(ctx, data['tags']);
  const seo = optionalSeo(ctx, data['seo']);
  const variants = articleVariants(ctx, data['variants']);

  let content = options.content;
  if (content === undefined) {
    const rawContent = data['content'];
    if (typeof rawContent === 'string') content = rawContent;
    else if (rawContent === undefined || rawContent === null) content = '';
    else {
      report(ctx, ['content'], `content must be a string, got ${describe(rawContent)}`);
      content = '';
    }
  }

  sortByLine(ctx.problems);
  if (ctx.problems.length > 0 || title === null || slug === undefined) {
    return { slug, slugLine, problems: ctx.problems };
  }
  return {
    article: {
      file: ctx.file,
      slug,
      title,
      excerpt,
      coverImage,
      status,
      publishedAt,
      createdAt,
      updatedAt,
      author,
      lastUpdatedBy,
      tags,
      seo,
      variants,
      content,
    },
    slug,
    slugLine,
    problems: ctx.problems,
  };
}

/** Maps a field path to the line of its key (or list item) in the YAML source, falling back to the nearest known ancestor. */
function yamlLocator(
  doc: Document,
  lineCounter: LineCounter,
  options: { lineOffset: number; rootLine?: number },
): (path: Path) => number {
  const lineAt = (offset: number) => lineCounter.linePos(offset).line + options.lineOffset;
  return (path) => {
    let node: unknown = doc.contents;
    let line = options.rootLine ?? 1;
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
        if (!pair) break;
        const keyRange = (pair.key as Scalar).range;
        if (keyRange) line = lineAt(keyRange[0]);
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment] as { range?: number[] | null } | undefined;
        if (!item) break;
        if (item.range) line = lineAt(item.range[0]);
        node = item;
      } else {
        break;
      }
    }
    return line;
  };
}

function yamlErrorProblems(
  file: string,
  doc: Document,
  lineCounter: LineCounter,
  lineOffset: number,
): ImportProblem[] {
  const problems: ImportProblem[] = [];
  for (const error of doc.errors) {
    const line = lineCounter.linePos(error.pos[0]).line + lineOffset;
    const message = `invalid YAML: ${error.message.split('\n')[0]}`;
    if (!problems.some((p) => p.line === line && p.message === message))
      problems.push({ file, line, message });
  }
  return problems;
}

function toPlain(file: string, doc: Document): { value?: unknown; problem?: ImportProblem } {
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return {
      problem: { file, line: 1, message: `invalid YAML: ${(error as Error).message.split('\n')[0]}` },
    };
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function defaultSlugFor(file: string): string {
  return basename(file).replace(/\.md$/i, '');
}

function analyseArticleFile(file: string, text: string): ArticleOutcome {
  const problems: ImportProblem[] = [];
  const normalised = stripBom(text).replace(/\r\n?/g, '\n');
  const lines = normalised.split('\n');
  if (lines[0].trimEnd() !== '---') {
    problems.push({ file, line: 1, message: 'missing front matter: the file must start with a "---" line' });
    return { slugLine: 1, problems };
  }
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].trimEnd() === '---') {
      close = i;
      break;
    }
  }
  if (close === -1) {
    problems.push({
      file,
      line: 1,
      message: 'front matter is not closed: no "---" line after the opening one',
    });
    return { slugLine: 1, problems };
  }
  // No trailing newline, so an error at the end of the text points at the last front-matter line, not the fence.
  const yamlText = lines.slice(1, close).join('\n');
  let body = lines.slice(close + 1).join('\n');
  if (body.startsWith('\n')) body = body.slice(1);

  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter, prettyErrors: false });
  // The opening fence is line 1 of the file but not part of the YAML text.
  const errors = yamlErrorProblems(file, doc, lineCounter, 1);
  if (errors.length > 0) return { slugLine: 1, problems: errors };
  const plain = toPlain(file, doc);
  if (plain.problem) return { slugLine: 1, problems: [plain.problem] };
  const ctx: Ctx = { file, problems, locate: yamlLocator(doc, lineCounter, { lineOffset: 1, rootLine: 1 }) };
  let data: Record<string, unknown> = {};
  if (plain.value !== null && plain.value !== undefined) {
    if (!isObject(plain.value)) {
      report(ctx, [], `front matter must be a mapping of fields, got ${describe(plain.value)}`);
      return { slugLine: 1, problems };
    }
    data = plain.value;
  }
  return validateArticle(ctx, data, {
    defaultSlug: defaultSlugFor(file),
    content: body,
    allowed: ARTICLE_FIELDS,
  });
}

export function parseArticleFile(
  file: string,
  text: string,
): { article?: ArticleInput; problems: ImportProblem[] } {
  const outcome = analyseArticleFile(file, text);
  return outcome.article
    ? { article: outcome.article, problems: outcome.problems }
    : { problems: outcome.problems };
}

function validateTagList(
  value: unknown,
  listCtx: Ctx,
  itemCtx: (index: number) => Ctx,
  where: (index: number) => string,
): TagInput[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    report(listCtx, [], `tags must be a list of { name, color, icon } objects, got ${describe(value)}`);
    return [];
  }
  const tags: TagInput[] = [];
  const seen = new Map<string, { name: string; index: number }>();
  value.forEach((item, i) => {
    const ctx = itemCtx(i);
    const before = ctx.problems.length;
    if (!isObject(item)) {
      report(ctx, [], `tag must be an object with "name", "color" and "icon", got ${describe(item)}`);
      return;
    }
    checkUnknownKeys(ctx, item, [], TAG_FIELDS);
    let name: string | null = null;
    if (item['name'] === undefined) report(ctx, [], 'missing required field "name"');
    else name = validateTagName(ctx, item['name'], ['name']);
    if (name !== null) {
      const first = seen.get(name.toLowerCase());
      if (first) {
        report(
          ctx,
          ['name'],
          `duplicate tag name ${JSON.stringify(name)}: ${JSON.stringify(first.name)} is already defined at ${where(first.index)}`,
        );
      } else {
        seen.set(name.toLowerCase(), { name, index: i });
      }
    }
    let color: string | null = null;
    const rawColor = item['color'];
    if (typeof rawColor === 'string' && COLOR_RE.test(rawColor)) color = rawColor;
    else if (rawColor !== undefined && rawColor !== null) {
      report(
        ctx,
        ['color'],
        `color must be a hex colour like "#1A2B3C" or null, got ${typeof rawColor === 'string' ? JSON.stringify(rawColor) : describe(rawColor)}`,
      );
    }
    const icon = optionalText(ctx, item['icon'], ['icon'], ICON_MAX);
    if (ctx.problems.length === before && name !== null) tags.push({ name, color, icon });
  });
  return tags;
}

export function parseTagsYaml(file: string, text: string): { tags: TagInput[]; problems: ImportProblem[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(stripBom(text).replace(/\r\n?/g, '\n'), { lineCounter, prettyErrors: false });
  const errors = yamlErrorProblems(file, doc, lineCounter, 0);
  if (errors.length > 0) return { tags: [], problems: errors };
  const plain = toPlain(file, doc);
  if (plain.problem) return { tags: [], problems: [plain.problem] };
  const problems: ImportProblem[] = [];
  const locate = yamlLocator(doc, lineCounter, { lineOffset: 0 });
  const listCtx: Ctx = { file, problems, locate: () => 1 };
  const tags = validateTagList(
    plain.value,
    listCtx,
    (i) => ({ file, problems, locate: (path) => locate([i, ...path]) }),
    (i) => `${file}:${locate([i])}`,
  );
  sortByLine(problems);
  return { tags: problems.length > 0 ? [] : tags, problems };
}

/** Reports every article that shares a slug with another one, on each side, naming the others. */
function duplicateSlugProblems(
  outcomes: readonly { file: string; outcome: ArticleOutcome }[],
): Map<string, ImportProblem[]> {
  const bySlug = new Map<string, { file: string; outcome: ArticleOutcome }[]>();
  for (const entry of outcomes) {
    if (entry.outcome.slug === undefined) continue;
    const list = bySlug.get(entry.outcome.slug) ?? [];
    list.push(entry);
    bySlug.set(entry.outcome.slug, list);
  }
  const result = new Map<string, ImportProblem[]>();
  for (const [slug, entries] of bySlug) {
    if (entries.length < 2) continue;
    for (const entry of entries) {
      const others = entries.filter((e) => e !== entry).map((e) => e.file);
      const list = result.get(entry.file) ?? [];
      list.push({
        file: entry.file,
        line: entry.outcome.slugLine,
        message: `duplicate slug ${JSON.stringify(slug)}: also used by ${others.join(', ')}`,
      });
      result.set(entry.file, list);
    }
  }
  return result;
}

function mergeDuplicates(entries: { file: string; outcome: ArticleOutcome }[]): ImportProblem[] {
  const duplicates = duplicateSlugProblems(entries);
  const problems: ImportProblem[] = [];
  for (const entry of entries) {
    const extra = duplicates.get(entry.file);
    if (extra) {
      entry.outcome.problems.push(...extra);
      sortByLine(entry.outcome.problems);
      delete entry.outcome.article;
    }
    problems.push(...entry.outcome.problems);
  }
  return problems;
}

function jsonErrorLine(text: string, message: string): number {
  const lineMatch = /\(line (\d+) column \d+\)/.exec(message);
  if (lineMatch) return Number(lineMatch[1]);
  const positionMatch = /at position (\d+)/.exec(message);
  if (positionMatch) return text.slice(0, Number(positionMatch[1])).split('\n').length;
  if (/end of JSON input/.test(message)) return text.split('\n').length;
  return 1;
}

export function parseJsonSource(
  file: string,
  text: string,
): { source?: ContentSource; problems: ImportProblem[] } {
  const clean = stripBom(text);
  let data: unknown;
  try {
    data = JSON.parse(clean);
  } catch (error) {
    const message = (error as Error).message;
    return {
      problems: [
        {
          file,
          line: jsonErrorLine(clean, message),
          message: `invalid JSON: ${message
            .replace(/\s*\(line \d+ column \d+\)/, '')
            .replace(/ at position \d+/, '')
            .replace(/\r?\n/g, '\\n')}`,
        },
      ],
    };
  }
  // JSON is (for our purposes) YAML, so the YAML parser gives node positions that JSON.parse does not.
  const lineCounter = new LineCounter();
  const doc = parseDocument(clean, { lineCounter, prettyErrors: false, uniqueKeys: false });
  const locate = doc.errors.length > 0 ? () => 1 : yamlLocator(doc, lineCounter, { lineOffset: 0 });

  const rootProblems: ImportProblem[] = [];
  const rootCtx: Ctx = { file, problems: rootProblems, locate };
  if (!isObject(data)) {
    report(
      rootCtx,
      [],
      `the JSON file must hold an object with "tags" and "articles", got ${describe(data)}`,
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
    { file, problems: rootProblems, locate: (path) => locate(['tags', ...path]) },
    (i) => {
      tagProblems[i] = [];
      return {
        file: `${file}#tags[${i}]`,
        problems: tagProblems[i],
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
      const articleFile = `${file}#articles[${i}]`;
      const ctx: Ctx = {
        file: articleFile,
        problems: [],
        locate: (path) => locate(['articles', i, ...path]),
      };
      if (!isObject(item)) {
        report(ctx, [], `article must be an object, got ${describe(item)}`);
        entries.push({ file: articleFile, outcome: { slugLine: ctx.locate([]), problems: ctx.problems } });
        return;
      }
      entries.push({
        file: articleFile,
        outcome: validateArticle(ctx, item, { allowed: JSON_ARTICLE_FIELDS }),
      });
    });
  }
  const problems = [
    ...sortByLine(rootProblems),
    ...tagProblems.flatMap((list) => sortByLine(list)),
    ...mergeDuplicates(entries),
  ];
  if (problems.length > 0) return { problems };
  return {
    source: { tags, articles: entries.map((e) => e.outcome.article as ArticleInput) },
    problems,
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

async function readText(path: string, file: string, problems: ImportProblem[]): Promise<string | null> {
  try {
    const text = utf8.decode(await readFile(path));
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
      else if (/\.md$/i.test(entry.name)) {
        // Symlinked files are followed; symlinked folders are not, so a link cycle cannot hang the import.
        const isFile = entry.isFile() || (entry.isSymbolicLink() && (await stat(join(root, child))).isFile());
        if (isFile) found.push(child);
      }
    }
  };
  await walk('');
  return found.sort(compareCodeUnits);
}

export async function readContentSource(path: string): Promise<ContentSource> {
  const info = await stat(path).catch(() => null);
  if (info === null) {
    throw new ImportValidationError([
      { file: path, line: 1, message: 'content source not found: no such file or folder' },
    ]);
  }

  if (!info.isDirectory()) {
    const problems: ImportProblem[] = [];
    const file = basename(path);
    const text = await readText(path, file, problems);
    if (text === null) throw new ImportValidationError(problems);
    const result = parseJsonSource(file, text);
    if (!result.source) throw new ImportValidationError(result.problems);
    return result.source;
  }

  const markdownFiles = await findMarkdownFiles(path);
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
      const result = parseTagsYaml('tags.yaml', text);
      tags = result.tags;
      problems.push(...result.problems);
    }
  }

  const entries: { file: string; outcome: ArticleOutcome }[] = [];
  for (const file of markdownFiles) {
    const readProblems: ImportProblem[] = [];
    const text = await readText(join(path, ...file.split('/')), file, readProblems);
    entries.push({
      file,
      outcome: text === null ? { slugLine: 1, problems: readProblems } : analyseArticleFile(file, text),
    });
  }
  problems.push(...mergeDuplicates(entries));

  if (problems.length > 0) throw new ImportValidationError(problems);
  return { tags, articles: entries.map((e) => e.outcome.article as ArticleInput) };
}
