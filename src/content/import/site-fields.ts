// The fields a moved-in blog keeps, in Folio's own format (front matter or JSON entry): an article's own
// path and former paths, its feed id, visibility and tiers, its authors and the cover image's alt
// text. `folio export` writes them, so that a project exported and imported again keeps its URLs,
// feed ids and members-only posts, and an editor can set them by hand.
import { slugOfTagName } from '../tag-slugs.ts';
import { isWebLink } from '../web-link.ts';
import {
  checkUnknownKeys,
  type Ctx,
  describe,
  formatPath,
  isObject,
  optionalText,
  type Path,
  report,
  requiredText,
} from './check-kit.ts';
import type { ArticleInput, AuthorInput, Visibility } from './records.ts';

export const SITE_FIELDS = [
  'path',
  'section',
  'aliases',
  'guid',
  'visibility',
  'tiers',
  'authors',
  'coverImageAlt',
] as const;
const AUTHOR_FIELDS = ['name', 'slug', 'image', 'title', 'url'] as const;
const VISIBILITIES: readonly Visibility[] = ['public', 'members', 'paid'];
const PATH_MAX = 500;

export type SiteFields = Pick<
  ArticleInput,
  'path' | 'section' | 'aliases' | 'guid' | 'visibility' | 'tiers' | 'authors' | 'coverImageAlt'
>;

/** Why a value is not a site path (`/posts/x/`), or null. */
function sitePathProblem(value: string): string | null {
  if (!value.startsWith('/') || value.startsWith('//')) return "must be a site path starting with '/'";
  if (/[\s?#\\]/.test(value)) return 'must be a path without spaces, query or fragment';
  if (value.length > PATH_MAX) return `must be at most ${PATH_MAX} characters`;
  return null;
}

function sitePath(ctx: Ctx, value: unknown, path: Path): string | null {
  const text = optionalText(ctx, value, path);
  if (text === null) return null;
  const problem = sitePathProblem(text);
  if (problem === null) return text;
  report(ctx, path, `${formatPath(path)} ${problem}, got ${JSON.stringify(text)}`);
  return null;
}

function textList(
  ctx: Ctx,
  value: unknown,
  path: Path,
  item: (value: unknown, at: Path) => string | null,
): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    report(ctx, path, `${formatPath(path)} must be a list, got ${describe(value)}`);
    return [];
  }
  const items = value.map((entry, i) => item(entry, [...path, i]));
  return [...new Set(items.filter((entry): entry is string => entry !== null))];
}

function author(ctx: Ctx, value: unknown, path: Path): AuthorInput | null {
  if (typeof value === 'string' && value.trim() !== '') {
    const name = value.trim();
    return { name, slug: slugOfTagName(name), image: null, title: null, url: null };
  }
  if (!isObject(value)) {
    report(ctx, path, `${formatPath(path)} must be a name or an object with "name", got ${describe(value)}`);
    return null;
  }
  checkUnknownKeys(ctx, value, path, AUTHOR_FIELDS);
  const name = requiredText(ctx, value['name'], [...path, 'name'], 200);
  if (name === null) return null;
  const urlOf = (key: 'image' | 'url') => {
    const text = optionalText(ctx, value[key], [...path, key]);
    if (text !== null && !isWebLink(text))
      report(ctx, [...path, key], `${formatPath([...path, key])} must be an http(s) URL or a site path`);
    return text;
  };
  return {
    name,
    slug: optionalText(ctx, value['slug'], [...path, 'slug'], 200) ?? slugOfTagName(name),
    image: urlOf('image'),
    title: optionalText(ctx, value['title'], [...path, 'title'], 200),
    url: urlOf('url'),
  };
}

function visibilityOf(ctx: Ctx, value: unknown): Visibility {
  if (value === undefined || value === null) return 'public';
  if (typeof value === 'string' && (VISIBILITIES as readonly string[]).includes(value))
    return value as Visibility;
  report(ctx, ['visibility'], `visibility must be one of ${VISIBILITIES.join(', ')}, got ${describe(value)}`);
  return 'public';
}

/** The site fields of a record in Folio's names; only those given (the import defaults the others). */
export function siteFields(ctx: Ctx, data: Record<string, unknown>): SiteFields {
  const authors: AuthorInput[] = [];
  const rawAuthors = data['authors'];
  if (Array.isArray(rawAuthors)) {
    rawAuthors.forEach((entry, i) => {
      const found = author(ctx, entry, ['authors', i]);
      if (found !== null) authors.push(found);
    });
  } else if (rawAuthors !== undefined && rawAuthors !== null) {
    report(ctx, ['authors'], `authors must be a list, got ${describe(rawAuthors)}`);
  }
  const visibility = visibilityOf(ctx, data['visibility']);
  const tiers = textList(ctx, data['tiers'], ['tiers'], (value, at) => optionalText(ctx, value, at, 200));
  if (tiers.length > 0 && visibility !== 'paid') {
    report(ctx, ['tiers'], `tiers are only for visibility "paid", got visibility "${visibility}"`);
  }
  const fields: SiteFields = {
    path: sitePath(ctx, data['path'], ['path']),
    section: optionalText(ctx, data['section'], ['section'], 200),
    aliases: textList(ctx, data['aliases'], ['aliases'], (value, at) => sitePath(ctx, value, at)),
    guid: optionalText(ctx, data['guid'], ['guid'], 1000),
    visibility,
    tiers,
    authors,
    coverImageAlt: optionalText(ctx, data['coverImageAlt'], ['coverImageAlt'], 1000),
  };
  const given = Object.entries(fields).filter(([name]) => data[name] !== undefined && data[name] !== null);
  return Object.fromEntries(given) as SiteFields;
}
