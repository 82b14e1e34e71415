// An article's writable fields as the write API takes them (the body of a PUT): what a revision
// keeps, what a PATCH merges into, and how a change is told from a write that changes nothing.
import type { Selectable } from 'kysely';
import type { ArticleTable, Executor } from '../db/schema.ts';
import { findTagsOfArticles, findVariantsOfArticles } from './article-queries.ts';
import { groupBy } from './lists.ts';

export interface WritableArticle {
  title: string;
  slug: string;
  excerpt: string | null;
  coverImage: string | null;
  coverImageAlt: string | null;
  status: ArticleTable['status'];
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
  author: { name: string; image: string | null };
  lastUpdatedBy: { name: string; image: string | null } | null;
  tags: string[];
  seo: Record<string, unknown> | null;
  variants: Array<{ key: string; title: string | null; excerpt: string | null; content: string | null }>;
  path: string | null;
  section: string | null;
  aliases: string[];
  guid: string | null;
  visibility: ArticleTable['visibility'];
  tiers: string[];
  authors: unknown[];
  content: string;
}

export type StoredRow = Selectable<ArticleTable>;

export interface StoredArticle {
  row: StoredRow;
  snapshot: WritableArticle;
}

const parsed = <T>(json: string | null, empty: T): T => (json ? (JSON.parse(json) as T) : empty);

/** The stored articles of `ids` with their writable fields, by id. */
export async function storedArticles(executor: Executor, ids: string[]): Promise<Map<string, StoredArticle>> {
  if (ids.length === 0) return new Map();
  const [rows, tags, variants] = await Promise.all([
    executor.selectFrom('articles').selectAll().where('id', 'in', ids).execute(),
    findTagsOfArticles(executor, ids),
    findVariantsOfArticles(executor, ids),
  ]);
  const tagsOf = groupBy(tags, (tag) => tag.article_id);
  const variantsOf = groupBy(variants, (variant) => variant.article_id);
  return new Map(
    rows.map((row) => [
      row.id,
      {
        row,
        snapshot: snapshotOf(
          row,
          (tagsOf.get(row.id) ?? []).map((tag) => tag.name),
          variantsOf.get(row.id) ?? [],
        ),
      },
    ]),
  );
}

function snapshotOf(
  row: StoredRow,
  tags: string[],
  variants: Array<{ key: string; title: string | null; excerpt: string | null; content: string | null }>,
): WritableArticle {
  return {
    title: row.title,
    slug: row.slug,
    excerpt: row.excerpt,
    coverImage: row.cover_image,
    coverImageAlt: row.cover_image_alt,
    status: row.status,
    publishedAt: row.published_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    author: { name: row.author_name, image: row.author_image },
    lastUpdatedBy:
      row.last_updated_by_name === null
        ? null
        : { name: row.last_updated_by_name, image: row.last_updated_by_image },
    tags,
    seo: parsed(row.seo, null),
    variants: variants.map(({ key, title, excerpt, content }) => ({ key, title, excerpt, content })),
    path: row.path,
    section: row.section,
    aliases: parsed(row.aliases, []),
    guid: row.guid,
    visibility: row.visibility,
    tiers: parsed(row.tiers, []),
    authors: parsed(row.authors, []),
    content: row.content,
  };
}

/** Whether two snapshots hold the same article; `updatedAt` aside (a write that changes nothing leaves it). */
export function sameArticle(a: WritableArticle, b: WritableArticle): boolean {
  return JSON.stringify({ ...a, updatedAt: null }) === JSON.stringify({ ...b, updatedAt: null });
}
