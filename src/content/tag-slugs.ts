// A tag's slug: the source's own when it has one, else derived from the name as an article's slug
// is written (lowercase letters, digits, single hyphens), unique within its project.

/** `Safety Weather` → `safety-weather`; accents dropped; a name with no letter or digit left gives `tag`. */
export function slugOfTagName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'tag' : slug;
}

/** `wanted`, else the first of `wanted-2`, `wanted-3` … that no other tag of the project holds. */
export function freeSlug(wanted: string, taken: ReadonlySet<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) if (!taken.has(`${wanted}-${n}`)) return `${wanted}-${n}`;
}
