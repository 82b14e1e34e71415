// The rules of an article, the one validator every source format feeds: it turns a plain record of
// fields (front matter, a JSON entry, a Ghost post) into an ArticleInput, knows the static-site
// generators' names for the same fields, and reports every problem and warning with its file and
// line.
import { isWebLink } from '../web-link.ts';
import {
  booleanField,
  checkUnknownKeys,
  type Ctx,
  describe,
  formatPath,
  isObject,
  lineOf,
  optionalDate,
  optionalText,
  type Path,
  report,
  requiredText,
  sortByLine,
  warn,
} from './check-kit.ts';
import type {
  ArticleInput,
  ArticleStatus,
  ImportProblem,
  PersonInput,
  SeoInput,
  VariantInput,
} from './records.ts';
import { SITE_FIELDS, siteFields } from './site-fields.ts';
import { articleTags } from './tag-rules.ts';

const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const VARIANT_KEY_RE = /^[a-z0-9][a-z0-9_-]*$/;
const STATUSES: readonly ArticleStatus[] = ['draft', 'published', 'archived'];
const TITLE_MAX = 300;
const SLUG_MAX = 200;

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
  ...SITE_FIELDS,
] as const;
export const JSON_ARTICLE_FIELDS = [...ARTICLE_FIELDS, 'content'] as const;
const PERSON_FIELDS = ['name', 'image'] as const;
const SEO_FIELDS = ['metaTitle', 'metaDescription', 'ogImage', 'canonicalUrl', 'keywords'] as const;
const VARIANT_FIELDS = ['key', 'title', 'excerpt', 'content'] as const;

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
  /**
   * Where a duplicate of the slug is reported, asked only then: locating a field of a JSON file
   * parses the whole file for positions.
   */
  slugLine: () => number;
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

export function validateArticle(
  ctx: Ctx,
  data: Record<string, unknown>,
  shape: ArticleShape,
): ArticleOutcome {
  checkUnknownKeys(ctx, data, [], shape.allowed, ALIAS_NAMES);
  const field = (name: string) => aliasedField(ctx, data, shape.allowed, name);

  const title = requiredText(ctx, data['title'], ['title'], TITLE_MAX);
  const { slug, slugLine } = articleSlug(ctx, data, shape);

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
  const status = articleStatus(ctx, data, shape, publishedGiven);
  if (status === 'published' && publishedAt === null && !publishedGiven) {
    warn(
      ctx,
      data['status'] !== undefined && data['status'] !== null ? ['status'] : [],
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
  const content = articleContent(ctx, data, shape);
  const site = siteFields(ctx, data);

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
      // The first of several authors is the article's author.
      author: site.authors?.length ? { name: site.authors[0].name, image: site.authors[0].image } : author,
      lastUpdatedBy,
      tags,
      seo,
      variants,
      content,
      ...site,
    },
    slug,
    slugLine,
    problems: ctx.problems,
  };
}

/** The first of the field's names (Folio's, then its aliases) that is given; the others are reported as ignored. */
function aliasedField(
  ctx: Ctx,
  data: Record<string, unknown>,
  allowed: readonly string[],
  name: string,
): { value: unknown; path: Path } {
  const names = [name, ...(ALIASES[name] ?? [])].filter((candidate) => allowed.includes(candidate));
  const given = names.filter((candidate) => data[candidate] !== undefined && data[candidate] !== null);
  for (const ignored of given.slice(1)) {
    warn(ctx, [ignored], `"${ignored}" ignored: "${given[0]}" gives the ${name}`);
  }
  const chosen = given[0] ?? name;
  return { value: data[chosen], path: [chosen] };
}

/** A line found when asked, made apart from the function that holds the record (see lineOf). */
const locateLater = (locate: Ctx['locate'], path: Path) => () => locate(path);

/**
 * The slug, from the record or else from the file name, when valid; `slugLine` is where a
 * duplicate of it is reported (the file's first line when the file name gave it).
 */
function articleSlug(
  ctx: Ctx,
  data: Record<string, unknown>,
  shape: ArticleShape,
): { slug: string | undefined; slugLine: () => number } {
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
  const slugPath = rawSlug === undefined || rawSlug === null ? [] : ['slug'];
  // Located now unless locating is costly: a closure over a file's parsed front matter would keep
  // every file's document alive until the last one is read.
  return {
    slug,
    slugLine: ctx.costlyLocate ? locateLater(ctx.locate, slugPath) : lineOf(ctx.locate(slugPath)),
  };
}

/**
 * The stored status: `status` when given, else a draft for `draft: true` (Hugo, Astro, Eleventy)
 * or `published: false` (Jekyll), or for a record with neither a date nor `published: true`.
 */
function articleStatus(
  ctx: Ctx,
  data: Record<string, unknown>,
  shape: ArticleShape,
  publishedGiven: boolean,
): ArticleStatus {
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
  return status;
}

/** The Markdown body: the source's own (a file's), else the record's `content` field, else empty. */
function articleContent(ctx: Ctx, data: Record<string, unknown>, shape: ArticleShape): string {
  if (shape.content !== undefined) return shape.content;
  const rawContent = data['content'];
  if (typeof rawContent === 'string') return rawContent;
  if (rawContent === undefined || rawContent === null) return '';
  report(ctx, ['content'], `content must be a string, got ${describe(rawContent)}`);
  return '';
}
