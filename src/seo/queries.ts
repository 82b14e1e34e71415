// SQL of the SEO answers: one article with what its metadata needs, and the published articles of
// a project, newest first, with only the columns each document uses, in one query each.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import { hasReportedStatus } from '../content/article-status.ts';
import type { ArticleTable, Database } from '../db/schema.ts';

type Executor = Kysely<Database>;

/** The columns SEO metadata and JSON-LD are built from. */
export const metadataColumns = [
  'articles.id',
  'articles.slug',
  'articles.title',
  'articles.excerpt',
  'articles.cover_image',
  'articles.published_at',
  'articles.updated_at',
  'articles.author_name',
  'articles.author_image',
  'articles.summary',
  'articles.seo',
] as const;

export type MetadataRow = Pick<
  ArticleTable,
  | 'id'
  | 'slug'
  | 'title'
  | 'excerpt'
  | 'cover_image'
  | 'published_at'
  | 'updated_at'
  | 'author_name'
  | 'author_image'
  | 'summary'
  | 'seo'
>;

export type ContentRow = MetadataRow & Pick<ArticleTable, 'content'>;

export interface TagNameRow {
  article_id: string;
  name: string;
}

function published(db: Executor, projectId: string, now: string) {
  return db
    .selectFrom('articles')
    .where('articles.project_id', '=', projectId)
    .where((eb) => hasReportedStatus(eb, 'published', now));
}

/** Newest first: by publishedAt (an article published without a date last), ties by id. */
function newestFirst<O>(query: SelectQueryBuilder<Database, 'articles', O>) {
  return query
    .orderBy('articles.published_at', (order) => order.desc().nullsLast())
    .orderBy('articles.id', 'desc');
}

export function findArticleWithContent(
  db: Executor,
  projectId: string,
  slug: string,
): Promise<ContentRow | undefined> {
  // Slugs never hold a NUL, and PostgreSQL refuses one in a parameter.
  if (slug.includes('\u0000')) return Promise.resolve(undefined);
  return db
    .selectFrom('articles')
    .select([...metadataColumns, 'articles.content'])
    .where('articles.project_id', '=', projectId)
    .where('articles.slug', '=', slug)
    .executeTakeFirst();
}

export async function countPublishedArticles(db: Executor, projectId: string, now: string): Promise<number> {
  const row = await published(db, projectId, now)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export function findSitemapEntries(
  db: Executor,
  projectId: string,
  now: string,
  page: { offset: number; limit: number },
): Promise<Array<{ slug: string; updated_at: string }>> {
  return newestFirst(published(db, projectId, now).select(['articles.slug', 'articles.updated_at']))
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export function findPublishedMetadata(db: Executor, projectId: string, now: string): Promise<MetadataRow[]> {
  return newestFirst(published(db, projectId, now).select(metadataColumns)).execute();
}

export function findNewestPublished(
  db: Executor,
  projectId: string,
  now: string,
  limit: number,
): Promise<ContentRow[]> {
  return newestFirst(published(db, projectId, now).select([...metadataColumns, 'articles.content']))
    .limit(limit)
    .execute();
}

/** Tag names of the given articles, ordered by name (case-insensitively), then id. */
export function findTagNamesOfArticles(db: Executor, articleIds: string[]): Promise<TagNameRow[]> {
  if (articleIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('article_tags')
    .innerJoin('tags', 'tags.id', 'article_tags.tag_id')
    .select(['article_tags.article_id', 'tags.name'])
    .where('article_tags.article_id', 'in', articleIds)
    .orderBy('tags.name_key')
    .orderBy('tags.id')
    .execute();
}

/** Tag names of every published article of the project, in one query, ordered as above. */
export function findTagNamesOfPublished(db: Executor, projectId: string, now: string): Promise<TagNameRow[]> {
  return published(db, projectId, now)
    .innerJoin('article_tags', 'article_tags.article_id', 'articles.id')
    .innerJoin('tags', 'tags.id', 'article_tags.tag_id')
    .select(['article_tags.article_id', 'tags.name'])
    .orderBy('tags.name_key')
    .orderBy('tags.id')
    .execute();
}
