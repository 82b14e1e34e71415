// The id, title and estimated reading time of a project's article with a slug.
import type { Executor } from '../../../db/schema.ts';

export interface ArticleEstimate {
  id: string;
  slug: string;
  title: string;
  readTimeMinutes: number;
}

export async function articleEstimate(
  executor: Executor,
  projectId: string,
  slug: string,
): Promise<ArticleEstimate | null> {
  if (slug.includes('\u0000')) return null;
  const row = await executor
    .selectFrom('articles')
    .select(['id', 'slug', 'title', 'read_time_minutes'])
    .where('project_id', '=', projectId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  return row
    ? { id: row.id, slug: row.slug, title: row.title, readTimeMinutes: Number(row.read_time_minutes) }
    : null;
}
