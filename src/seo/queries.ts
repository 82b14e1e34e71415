// SQL of the SEO answers: one article with what its metadata needs, and the published articles of
// a project, newest first, with only the columns each document uses; never one query per article.
import { type SqlBool, sql } from 'kysely';
import { hasReportedStatus } from '../content/public.ts';
import type { Db } from '../db/database.ts';
import type { ArticleTable, Executor } from '../db/schema.ts';

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
  'articles.created_at',
  'articles.path',
  'articles.section',
  'articles.guid',
  'articles.visibility',
  'articles.authors',
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
  | 'created_at'
  | 'path'
  | 'section'
  | 'guid'
  | 'visibility'
  | 'authors'
>;

/** What an article's URL is made of (its own path, else the project's pattern filled in). */
export const urlColumns = [
  'articles.slug',
  'articles.path',
  'articles.section',
  'articles.published_at',
  'articles.created_at',
] as const;

export type ContentRow = MetadataRow & Pick<ArticleTable, 'content'>;

function published(executor: Executor, projectId: string, now: string) {
  return executor
    .selectFrom('articles')
    .where('articles.project_id', '=', projectId)
    .where((eb) => hasReportedStatus(eb, 'published', now));
}

/**
 * Newest first is by publishedAt, ties by id, then the published articles without a date (by id).
 * The two parts are read separately, each with a plain condition (together exactly
 * `hasReportedStatus(eb, 'published', now)`), so that each one walks the
 * (project_id, published_at, id) index backwards and stops after the page. One
 * `ORDER BY published_at DESC NULLS LAST` cannot use that index on PostgreSQL (NULLs come first in a
 * descending scan), and the `published_at IS NULL OR …` of the shared condition makes SQLite, once
 * ANALYZE has run, use a multi-index OR and a sort: either way every published article, contents
 * included, was sorted for a feed of 20 (RSS of 50,000 articles, measured: 175 ms on PostgreSQL
 * and 197 ms on SQLite, against 16 and 28 ms now).
 */
function dated(executor: Executor, projectId: string, now: string) {
  return executor
    .selectFrom('articles')
    .where('articles.project_id', '=', projectId)
    .where('articles.status', '=', 'published')
    .where('articles.published_at', '<=', now)
    .orderBy('articles.published_at', 'desc')
    .orderBy('articles.id', 'desc');
}

function undated(executor: Executor, projectId: string) {
  return executor
    .selectFrom('articles')
    .where('articles.project_id', '=', projectId)
    .where('articles.status', '=', 'published')
    .where('articles.published_at', 'is', null)
    .orderBy('articles.id', 'desc');
}

/** One page of the newest-first order, from its dated part and then its undated part. */
async function newestFirstPage<R>(
  page: { offset: number; limit: number },
  readDated: (offset: number, limit: number) => Promise<R[]>,
  readUndated: (offset: number, limit: number) => Promise<R[]>,
  datedCount: () => Promise<number>,
): Promise<R[]> {
  const rows = await readDated(page.offset, page.limit);
  if (rows.length === page.limit) return rows;
  // The dated part ends on this page (undated rows follow from the first) or before it.
  const undatedOffset = rows.length > 0 || page.offset === 0 ? 0 : page.offset - (await datedCount());
  return rows.concat(await readUndated(Math.max(0, undatedOffset), page.limit - rows.length));
}

export function findArticleWithContent(
  executor: Executor,
  projectId: string,
  slug: string,
): Promise<(ContentRow & Pick<ArticleTable, 'status'>) | undefined> {
  // Slugs never hold a NUL, and PostgreSQL refuses one in a parameter.
  if (slug.includes('\u0000')) return Promise.resolve(undefined);
  return executor
    .selectFrom('articles')
    .select([...metadataColumns, 'articles.content', 'articles.status'])
    .where('articles.project_id', '=', projectId)
    .where('articles.slug', '=', slug)
    .executeTakeFirst();
}

export interface PublishedCounts {
  total: number;
  /** Those with a publishedAt (nearly all: an import gives every published article one). */
  dated: number;
}

export async function countPublishedArticles(
  executor: Executor,
  projectId: string,
  now: string,
): Promise<PublishedCounts> {
  const row = await published(executor, projectId, now)
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.count<number>('articles.published_at').as('dated'),
    ])
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), dated: Number(row.dated) };
}

export type SitemapEntry = Pick<
  ArticleTable,
  'slug' | 'path' | 'section' | 'published_at' | 'created_at' | 'updated_at'
>;

/**
 * A sitemap page, up to 50,000 articles' rows: read with `read`, off the event loop, since at
 * 100,000 articles the main thread's reader took 230 ms for it, during which no request went on.
 */
export function findSitemapEntries(
  executor: Executor,
  read: Db['readOffThread'],
  projectId: string,
  now: string,
  page: { offset: number; limit: number },
  counts: PublishedCounts,
): Promise<Array<SitemapEntry>> {
  const columns = [...urlColumns, 'articles.updated_at'] as const;
  return newestFirstPage(
    page,
    (offset, limit) =>
      read(dated(executor, projectId, now).select(columns).limit(limit).offset(offset).compile()),
    (offset, limit) =>
      read(undated(executor, projectId).select(columns).limit(limit).offset(offset).compile()),
    async () => counts.dated,
  );
}

/**
 * The published articles newest first, in batches read one after another by keyset (never an
 * offset that rereads what came before): the dated ones from the (project_id, published_at, id)
 * index, then the undated ones by id. Not a snapshot: an article changed while the batches are
 * read may be missed or seen as changed, but one left alone is read exactly once.
 */
export async function* publishedMetadataBatches(
  executor: Executor,
  projectId: string,
  now: string,
  batchSize: number,
): AsyncGenerator<MetadataRow[]> {
  let after: { published_at: string; id: string } | null = null;
  for (;;) {
    let query = dated(executor, projectId, now).select(metadataColumns).limit(batchSize);
    if (after !== null) {
      const last: { published_at: string; id: string } = after;
      query = query.where(
        sql<SqlBool>`(articles.published_at, articles.id) < (${last.published_at}, ${last.id})`,
      );
    }
    const rows = await query.execute();
    if (rows.length > 0) yield rows;
    if (rows.length < batchSize) break;
    const tail = rows[rows.length - 1];
    after = { published_at: tail.published_at!, id: tail.id };
  }
  let afterId: string | null = null;
  for (;;) {
    let query = undated(executor, projectId).select(metadataColumns).limit(batchSize);
    if (afterId !== null) query = query.where('articles.id', '<', afterId);
    const rows = await query.execute();
    if (rows.length > 0) yield rows;
    if (rows.length < batchSize) break;
    afterId = rows[rows.length - 1].id;
  }
}

/** One page of the published articles newest first, for the paged structured data. */
export function findPublishedMetadataPage(
  executor: Executor,
  projectId: string,
  now: string,
  page: { offset: number; limit: number },
  counts: PublishedCounts,
): Promise<MetadataRow[]> {
  return newestFirstPage(
    page,
    (offset, limit) =>
      dated(executor, projectId, now).select(metadataColumns).limit(limit).offset(offset).execute(),
    (offset, limit) =>
      undated(executor, projectId).select(metadataColumns).limit(limit).offset(offset).execute(),
    async () => counts.dated,
  );
}

export function findNewestPublished(
  executor: Executor,
  projectId: string,
  now: string,
  limit: number,
): Promise<ContentRow[]> {
  const columns = [...metadataColumns, 'articles.content'] as const;
  return newestFirstPage(
    { offset: 0, limit },
    (offset, count) => dated(executor, projectId, now).select(columns).limit(count).offset(offset).execute(),
    (offset, count) => undated(executor, projectId).select(columns).limit(count).offset(offset).execute(),
    async () => 0,
  );
}
