// How migration 0014 derives the slug of a tag stored before it, copied from content/tag-slugs.ts
// as it was then. Frozen: a later change to how new tags get their slugs must not change what an
// old migration does.

export function slugOfTagName(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'tag' : slug;
}

export function freeSlug(wanted: string, taken: ReadonlySet<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) if (!taken.has(`${wanted}-${n}`)) return `${wanted}-${n}`;
}
