// A Ghost post's relations as Folio keeps them: its authors in posts_authors order
// (the first is the primary author, as in Ghost's themes and feeds), and its visibility, with the
// tiers of posts_products when Ghost restricts it to some tiers.
import { type Ctx, report } from './check-kit.ts';
import { resolved } from './ghost-html.ts';
import type { AuthorInput, Visibility } from './records.ts';
import { slugOfTagName } from '../tag-slugs.ts';

export type GhostRow = Record<string, unknown>;

export interface RelationTables {
  users: Map<unknown, GhostRow>;
  postsAuthors: Map<unknown, GhostRow[]>;
  postsProducts: Map<unknown, GhostRow[]>;
  products: Map<unknown, GhostRow>;
  /** The line of a field of a join table's row (posts_authors, posts_tags, posts_products). */
  locateRow: (row: GhostRow, field: string) => number;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** A Ghost staff user as an author: profile_image is the picture, website the link; the bio is not a title. */
function authorOf(user: GhostRow, siteUrl: string | null): AuthorInput | null {
  const name = text(user['name']);
  if (name === null) return null;
  const slug = text(user['slug']);
  const image = text(user['profile_image']);
  const website = text(user['website']);
  return {
    name,
    slug: slug !== null && /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug) ? slug : slugOfTagName(name),
    image: image === null ? null : resolved(image, siteUrl),
    title: null,
    url: website === null ? null : resolved(website, siteUrl),
  };
}

/**
 * The post's authors in posts_authors `sort_order`; exports from before Ghost 1.22 have only the
 * post's `author_id`. A link to a user the export does not hold is reported and left out.
 */
export function ghostAuthors(
  ctx: Ctx,
  post: GhostRow,
  tables: RelationTables,
  siteUrl: string | null,
): AuthorInput[] {
  const links = tables.postsAuthors.get(post['id']) ?? [];
  const ids: { id: unknown; line: () => number }[] =
    links.length > 0
      ? links.map((link) => ({ id: link['author_id'], line: () => tables.locateRow(link, 'author_id') }))
      : [{ id: post['author_id'], line: () => ctx.locate(['author_id']) }];
  const authors: AuthorInput[] = [];
  for (const { id, line } of ids) {
    if (id === undefined || id === null) continue;
    const user = tables.users.get(id);
    const author = user === undefined ? null : authorOf(user, siteUrl);
    if (author !== null) authors.push(author);
    else {
      ctx.warnings.push({
        file: ctx.file,
        line: line(),
        kind: 'unknown-author',
        message: `author ${JSON.stringify(id)} is not among the export's users (or has no name): left out of the post's authors`,
      });
    }
  }
  return authors;
}

const VISIBILITIES = ['public', 'members', 'paid', 'tiers'];

/**
 * Ghost's visibility as Folio's: `tiers` (some paid tiers) is Folio's `paid` with those tiers'
 * slugs kept, in posts_products order; `paid` (every paid tier) keeps no list.
 */
export function ghostVisibility(
  ctx: Ctx,
  post: GhostRow,
  tables: RelationTables,
): { visibility: Visibility; tiers: string[] } {
  const value = post['visibility'];
  if (value === undefined || value === null || value === 'public') return { visibility: 'public', tiers: [] };
  if (typeof value !== 'string' || !VISIBILITIES.includes(value)) {
    report(
      ctx,
      ['visibility'],
      `visibility must be one of ${VISIBILITIES.join(', ')}, got ${JSON.stringify(value)}`,
    );
    return { visibility: 'public', tiers: [] };
  }
  if (value !== 'tiers') return { visibility: value as Visibility, tiers: [] };
  const tiers: string[] = [];
  for (const link of tables.postsProducts.get(post['id']) ?? []) {
    const product = tables.products.get(link['product_id']);
    const name = text(product?.['name']);
    const slug = text(product?.['slug']) ?? (name === null ? null : slugOfTagName(name));
    if (slug !== null) tiers.push(slug);
    else
      warnTier(
        ctx,
        tables.locateRow(link, 'product_id'),
        `tier ${JSON.stringify(link['product_id'])} is not among the export's products: left out`,
      );
  }
  if (tiers.length === 0) {
    warnTier(
      ctx,
      ctx.locate(['visibility']),
      'visibility tiers names no tier in posts_products: imported as paid (every paid tier)',
    );
  }
  return { visibility: 'paid', tiers };
}

function warnTier(ctx: Ctx, line: number, message: string): void {
  ctx.warnings.push({ file: ctx.file, line, kind: 'visibility', message });
}
