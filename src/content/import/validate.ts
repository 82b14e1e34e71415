// The one validator every source format feeds: it turns a plain record of fields (front matter, a
// JSON entry, a Ghost post) into an ArticleInput, knows the static-site generators' names for the
// same fields, and reports every problem and warning with its file and line.
import { isWebLink } from '../web-link.ts';
import { DATE_FORMS, parseDate } from './dates.ts';
import type {
  ArticleInput,
  ArticleStatus,
  ImportProblem,
  PersonInput,
  SeoInput,
  TagInput,
  VariantInput,
} from './records.ts';

const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const VARIANT_KEY_RE = /^[a-z0-9][a-z0-9_-]*$/;
const COLOR_RE = /^#[0-9A-Fa-f]{6}$/;
const STATUSES: readonly ArticleStatus[] = ['draft', 'published', 'archived'];
const TITLE_MAX = 300;
const SLUG_MAX = 200;
const TAG_NAME_MAX = 100;
const ICON_MAX = 64;

export const ARTICLE_FIELDS = [
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
export const JSON_ARTICLE_FIELDS = [...ARTICLE_FIELDS, 'content'] as const;
const PERSON_FIELDS = ['name', 'image'] as const;
const SEO_FIELDS = ['metaTitle', 'metaDescription', 'ogImage', 'canonicalUrl', 'keywords'] as const;
const VARIANT_FIELDS = ['key', 'title', 'excerpt', 'content'] as const;
const TAG_FIELDS = ['name', 'color', 'icon'] as const;
export const JSON_ROOT_FIELDS = ['tags', 'articles'] as const;

/**
 * The names static-site generators give Folio's fields (Astro, Hugo, Jekyll, Eleventy), in order of
 * preference after the Folio name: Hugo's `publishDate` is its publication date, `date` a fallback.
 */
const ALIASES: Record<string, readonly string[]> = {
  publishedAt: ['publishDate', 'pubDate', 'date'],
  updatedAt: ['lastmod', 'updatedDate', 'updated', 'modified'],
  excerpt: ['description', 'summary'],
  coverImage: ['image', 'heroImage', 'cover'],
};
const ALIAS_NAMES = new Set(Object.values(ALIASES).flat());
/** Fields read besides the aliases: `draft`/`published` booleans, and `categories` joined to the tags. */
const EXTRA_FIELDS = ['draft', 'published', 'categories'] as const;
for (const name of EXTRA_FIELDS) ALIAS_NAMES.add(name);
export const FRONT_MATTER_FIELDS = [...ARTICLE_FIELDS, ...Object.values(ALIASES).flat(), ...EXTRA_FIELDS];

export type Path = readonly (string | number)[];

/** Where problems and warnings of one unit (a file, or one entry of a JSON file) go, and how a field path maps to a line. */
export interface Ctx {
  file: string;
  problems: ImportProblem[];
  warnings: ImportProblem[];
  /** Unknown fields are problems rather than warnings. */
  strict: boolean;
  locate: (path: Path) => number;
}

export function report(ctx: Ctx, path: Path, message: string): void {
  ctx.problems.push({ file: ctx.file, line: ctx.locate(path), message });
}

export function warn(ctx: Ctx, path: Path, message: string): void {
  ctx.warnings.push({ file: ctx.file, line: ctx.locate(path), message });
}

export function formatPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

export function describe(value: unknown): string {
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

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Database columns count characters, not UTF-16 code units. */
export function charLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

export function sortByLine(problems: ImportProblem[]): ImportProblem[] {
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

export function checkUnknownKeys(
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
      : ` (expected one of: ${allowed.filter((name) => base.length > 0 || !ALIAS_NAMES.has(name)).join(', ')})`;
    const message = `unknown field ${JSON.stringify(formatPath([...base, key]))}${hint}`;
    if (ctx.strict) report(ctx, [...base, key], message);
    else warn(ctx, [...base, key], `${message}: ignored`);
  }
}

/** Optional free text: absent, null or blank all mean "not given". */
export function optionalText(ctx: Ctx, value: unknown, path: Path, maxLength?: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    report(ctx, path, `${formatPath(path)} must be a string or null, got ${describe(value)}`);
    return null;
  }
  const trimmed = value.trim();
  if (trimmed === '') return null;
  return withinLength(ctx, trimmed, path, maxLength);
}

/**
 * A URL that SEO output will leave out (not http(s) nor a site path: `javascript:`, `data:`) is
 * kept as written, with a warning naming the field, so that the author learns why it is missing.
 */
function warnUnlessWebLink(ctx: Ctx, value: string | null, path: Path): void {
  if (value === null || isWebLink(value)) return;
  const shown = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  warn(
    ctx,
    path,
    `${formatPath(path)} ${JSON.stringify(shown)} is not an http(s) URL or a site path: SEO output (canonical, Open Graph, JSON-LD) leaves it out`,
  );
}

/** The trimmed text, after reporting it when it is longer than `maxLength` characters. */
function withinLength(ctx: Ctx, trimmed: string, path: Path, maxLength: number | undefined): string {
  if (maxLength !== undefined && charLength(trimmed) > maxLength) {
    report(
      ctx,
      path,
      `${formatPath(path)} must be at most ${maxLength} characters, got ${charLength(trimmed)}`,
    );
  }
  return trimmed;
}

export function requiredText(ctx: Ctx, value: unknown, path: Path, maxLength?: number): string | null {
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
  return withinLength(ctx, trimmed, path, maxLength);
}

function optionalDate(ctx: Ctx, value: unknown, path: Path): string | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) {
    // TOML and YAML dates arrive parsed; a TOML date without an offset is read as UTC.
    if (Number.isNaN(value.getTime())) {
      report(ctx, path, `${formatPath(path)} is not a valid date`);
      return null;
    }
    return new Date(value.getTime()).toISOString();
  }
  if (typeof value !== 'string') {
    report(ctx, path, `${formatPath(path)} must be a date string (${DATE_FORMS}), got ${describe(value)}`);
    return null;
  }
  const iso = parseDate(value);
  if (iso === null) {
    report(
      ctx,
      path,
      `${formatPath(path)} must be a valid date (${DATE_FORMS}), got ${JSON.stringify(value)}`,
    );
  }
  return iso;
}

function optionalPerson(ctx: Ctx, value: unknown, path: Path): PersonInput | null {
  if (value === undefined || value === null) return null;
  // Astro, Hugo and Jekyll themes write the author as a plain name.
  if (typeof value === 'string') {
    const name = value.trim();
    return name === '' ? null : { name, image: null };
  }
  if (!isObject(value)) {
    report(
      ctx,
      path,
      `${formatPath(path)} must be a name or an object with "name" and optional "image", got ${describe(value)}`,
    );
    return null;
  }
  checkUnknownKeys(ctx, value, path, PERSON_FIELDS);
  const name = requiredText(ctx, value['name'], [...path, 'name']);
  const image = optionalText(ctx, value['image'], [...path, 'image']);
  return name === null ? null : { name, image };
}

export function validateTagName(ctx: Ctx, value: unknown, path: Path): string | null {
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

/**
 * A list of names, or one string: comma-separated when it holds a comma ("a, b c" is "a" and "b c"),
 * else space-separated as Jekyll writes it ("a b" is "a" and "b").
 */
function tagNames(ctx: Ctx, value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  const names: string[] = [];
  if (typeof value === 'string') {
    // A trailing or doubled comma in "a, b," is a slip, not an intended empty tag.
    for (const piece of value.includes(',') ? value.split(',') : value.split(/\s+/)) {
      const name = piece.trim();
      if (name === '') continue;
      if (charLength(name) > TAG_NAME_MAX) {
        report(ctx, [field], `tag ${JSON.stringify(name)} must be at most ${TAG_NAME_MAX} characters`);
        continue;
      }
      names.push(name);
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const name = validateTagName(ctx, item, [field, i]);
      if (name !== null) names.push(name);
    });
  } else {
    report(
      ctx,
      [field],
      `${field} must be a list of strings or a comma- or space-separated string, got ${describe(value)}`,
    );
  }
  return names;
}

function articleTags(ctx: Ctx, tags: unknown, categories: unknown): string[] {
  const names = [...tagNames(ctx, tags, 'tags'), ...tagNames(ctx, categories, 'categories')];
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

export interface ArticleOutcome {
  article?: ArticleInput;
  /** A valid slug, known even when other fields are broken, so duplicates across files are still reported. */
  slug?: string;
  slugLine: number;
  problems: ImportProblem[];
}

export interface ArticleShape {
  /** The fields this source may hold; others are unknown. */
  allowed: readonly string[];
  /** The slug when the record gives none: the file or bundle name. */
  defaultSlug?: string;
  /** The publication date when the record gives none: Jekyll's file-name date. */
  defaultDate?: string;
  /** The body, when it is not a field of the record. */
  content?: string;
}

function booleanField(ctx: Ctx, data: Record<string, unknown>, name: string): boolean | null {
  const value = data[name];
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value;
  report(ctx, [name], `${name} must be true or false, got ${describe(value)}`);
  return null;
}

export function validateArticle(
  ctx: Ctx,
  data: Record<string, unknown>,
  shape: ArticleShape,
): ArticleOutcome {
  checkUnknownKeys(ctx, data, [], shape.allowed);

  /** The first of the field's names that is given; the others are reported as ignored. */
  const field = (name: string): { value: unknown; path: Path } => {
    const names = [name, ...(ALIASES[name] ?? [])].filter((candidate) => shape.allowed.includes(candidate));
    const given = names.filter((candidate) => data[candidate] !== undefined && data[candidate] !== null);
    for (const ignored of given.slice(1)) {
      warn(ctx, [ignored], `"${ignored}" ignored: "${given[0]}" gives the ${name}`);
    }
    const chosen = given[0] ?? name;
    return { value: data[chosen], path: [chosen] };
  };

  const title = requiredText(ctx, data['title'], ['title'], TITLE_MAX);

  let slug: string | undefined;
  const rawSlug = data['slug'];
  if (rawSlug === undefined || rawSlug === null) {
    if (shape.defaultSlug === undefined) {
      report(ctx, ['slug'], 'missing required field "slug"');
    } else if (!SLUG_RE.test(shape.defaultSlug) || shape.defaultSlug.length > SLUG_MAX) {
      report(
        ctx,
        [],
        `no slug given and the file name ${JSON.stringify(shape.defaultSlug)} is not a valid slug (lowercase letters, digits and single hyphens, at most ${SLUG_MAX} characters): rename the file or set "slug"`,
      );
    } else {
      slug = shape.defaultSlug;
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

  const excerptField = field('excerpt');
  const excerpt = optionalText(ctx, excerptField.value, excerptField.path);
  const coverField = field('coverImage');
  // Hugo themes (PaperMod and others) write `cover: { image: …, alt: … }`.
  const coverValue =
    isObject(coverField.value) && 'image' in coverField.value ? coverField.value['image'] : coverField.value;
  const coverImage = optionalText(ctx, coverValue, coverField.path);
  const publishedField = field('publishedAt');
  let publishedAt = optionalDate(ctx, publishedField.value, publishedField.path);
  const publishedGiven = publishedField.value !== undefined && publishedField.value !== null;
  if (!publishedGiven && shape.defaultDate !== undefined) publishedAt = shape.defaultDate;
  const createdAt = optionalDate(ctx, data['createdAt'], ['createdAt']);
  const updatedField = field('updatedAt');
  const updatedAt = optionalDate(ctx, updatedField.value, updatedField.path);

  // `draft: true` (Hugo, Astro, Eleventy) and `published: false` (Jekyll) both mean a draft.
  const draft = shape.allowed.includes('draft') ? booleanField(ctx, data, 'draft') : null;
  const published = shape.allowed.includes('published') ? booleanField(ctx, data, 'published') : null;
  const isDraft = draft === true || published === false;
  let status: ArticleStatus =
    isDraft || (!publishedGiven && shape.defaultDate === undefined && draft === null && published !== true)
      ? 'draft'
      : 'published';
  const rawStatus = data['status'];
  if (rawStatus !== undefined && rawStatus !== null) {
    if (typeof rawStatus === 'string' && (STATUSES as readonly string[]).includes(rawStatus)) {
      status = rawStatus as ArticleStatus;
      if (isDraft && status !== 'draft') {
        const flag = draft === true ? 'draft: true' : 'published: false';
        report(ctx, ['status'], `status ${JSON.stringify(status)} contradicts ${flag}: keep one of them`);
      }
    } else {
      report(
        ctx,
        ['status'],
        `status must be one of ${STATUSES.join(', ')}, got ${typeof rawStatus === 'string' ? JSON.stringify(rawStatus) : describe(rawStatus)}`,
      );
    }
  }
  if (status === 'published' && publishedAt === null && !publishedGiven) {
    warn(
      ctx,
      rawStatus !== undefined && rawStatus !== null ? ['status'] : [],
      'published without a date: publishedAt is set to the time of its first import',
    );
  }

  const author = optionalPerson(ctx, data['author'], ['author']);
  const lastUpdatedBy = optionalPerson(ctx, data['lastUpdatedBy'], ['lastUpdatedBy']);
  const tags = articleTags(
    ctx,
    data['tags'],
    shape.allowed.includes('categories') ? data['categories'] : undefined,
  );
  const seo = optionalSeo(ctx, data['seo']);
  warnUnlessWebLink(ctx, coverImage, coverField.path);
  warnUnlessWebLink(ctx, author?.image ?? null, ['author', 'image']);
  warnUnlessWebLink(ctx, seo?.ogImage ?? null, ['seo', 'ogImage']);
  warnUnlessWebLink(ctx, seo?.canonicalUrl ?? null, ['seo', 'canonicalUrl']);
  const variants = articleVariants(ctx, data['variants']);

  let content = shape.content;
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
  sortByLine(ctx.warnings);
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

export function validateTagList(
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

export function mergeDuplicates(entries: { file: string; outcome: ArticleOutcome }[]): ImportProblem[] {
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
