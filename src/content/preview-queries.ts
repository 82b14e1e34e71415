// SQL of draft previews: the previews table, the article a preview is made for, and the server's
// preview signing secret.
import type { Executor, PreviewTable } from '../db/schema.ts';

/** What a preview is made from: its article's id and what the article's URL is made of. */
export interface PreviewArticleRow {
  id: string;
  slug: string;
  path: string | null;
  section: string | null;
  published_at: string | null;
  created_at: string;
}

export function findPreviewArticle(
  executor: Executor,
  projectId: string,
  slug: string,
): Promise<PreviewArticleRow | undefined> {
  // Slugs never hold a NUL, and PostgreSQL refuses one in a parameter.
  if (slug.includes('\u0000')) return Promise.resolve(undefined);
  return executor
    .selectFrom('articles')
    .select(['id', 'slug', 'path', 'section', 'published_at', 'created_at'])
    .where('project_id', '=', projectId)
    .where('slug', '=', slug)
    .executeTakeFirst();
}

export async function findArticleSlug(executor: Executor, articleId: string): Promise<string | undefined> {
  const row = await executor
    .selectFrom('articles')
    .select('slug')
    .where('id', '=', articleId)
    .executeTakeFirst();
  return row?.slug;
}

export async function insertPreview(executor: Executor, row: PreviewTable): Promise<void> {
  await executor.insertInto('previews').values(row).execute();
}

/** One preview by its id (the primary key): the one lookup of a read with a token. */
export function findPreview(executor: Executor, id: string): Promise<PreviewTable | undefined> {
  return executor.selectFrom('previews').selectAll().where('id', '=', id).executeTakeFirst();
}

export type PreviewListRow = PreviewTable & { slug: string };

/** A project's previews (of one article when `articleId` is given), newest first, with their article's slug. */
export function findPreviews(
  executor: Executor,
  projectId: string,
  articleId: string | null,
): Promise<PreviewListRow[]> {
  let query = executor
    .selectFrom('previews')
    .innerJoin('articles', 'articles.id', 'previews.article_id')
    .selectAll('previews')
    .select('articles.slug')
    .where('previews.project_id', '=', projectId);
  if (articleId !== null) query = query.where('previews.article_id', '=', articleId);
  return query.orderBy('previews.created_at', 'desc').orderBy('previews.id', 'desc').execute();
}

/** Sets revoked_at unless it is already set (the first revocation's time is kept). */
export async function markPreviewRevoked(executor: Executor, id: string, at: string): Promise<void> {
  await executor
    .updateTable('previews')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * The named server secret: `candidate` is stored unless one is already, then the stored one is
 * read back, so that instances starting at once all end up with the same.
 */
export async function storedServerSecret(
  executor: Executor,
  name: string,
  candidate: string,
  now: string,
): Promise<string> {
  await executor
    .insertInto('server_secrets')
    .values({ name, value: candidate, created_at: now })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const row = await executor
    .selectFrom('server_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.value;
}
