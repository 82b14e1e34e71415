// The rules of tags: a tag name (trimmed, at most 100 characters), an article's list of tag names
// (a list, or one comma- or space-separated string), and the declared tag list with colours and icons.
import {
  type Ctx,
  charLength,
  checkUnknownKeys,
  describe,
  formatPath,
  isObject,
  optionalText,
  type Path,
  report,
} from './check-kit.ts';
import type { TagInput } from './records.ts';

/** A tag colour: `#RRGGBB`. */
export const COLOR_RE = /^#[0-9A-Fa-f]{6}$/;
const TAG_NAME_MAX = 100;
const ICON_MAX = 64;
const TAG_FIELDS = ['name', 'slug', 'color', 'icon'] as const;
const TAG_SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const TAG_SLUG_MAX = 200;

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

/** An article's tag names from `tags` and `categories`, each name once (case-insensitively). */
export function articleTags(ctx: Ctx, tags: unknown, categories: unknown): string[] {
  const names = [...tagNames(ctx, tags, 'tags'), ...tagNames(ctx, categories, 'categories')];
  const seen = new Set<string>();
  return names.filter((name) => {
    const folded = name.toLowerCase();
    if (seen.has(folded)) return false;
    seen.add(folded);
    return true;
  });
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
    const slug = tagSlug(ctx, item['slug']);
    if (ctx.problems.length === before && name !== null) {
      tags.push(slug === null ? { name, color, icon } : { name, slug, color, icon });
    }
  });
  return tags;
}

/** A declared tag's own slug, as an article's slug is written; absent or null: derived from the name. */
function tagSlug(ctx: Ctx, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !TAG_SLUG_RE.test(value) || value.length > TAG_SLUG_MAX) {
    report(
      ctx,
      ['slug'],
      `slug must be lowercase letters, digits and single hyphens (at most ${TAG_SLUG_MAX} characters) or null, got ${typeof value === 'string' ? JSON.stringify(value) : describe(value)}`,
    );
    return null;
  }
  return value;
}
