// The id, slug and title of those of a project's articles that still exist, among the ids given.
import type { Executor } from '../../../db/schema.ts';

export interface ArticleName {
  id: string;
  slug: string;
  title: string;
}

const chunkSize = 500;

export async function articlesById(
  executor: Executor,
  projectId: string,
  ids: string[],
): Promise<ArticleName[]> {
  const found: ArticleName[] = [];
  for (let start = 0; start < ids.length; start += chunkSize) {
    const chunk = ids.slice(start, start + chunkSize);
    found.push(
      ...(await executor
        .selectFrom('articles')
        .select(['id', 'slug', 'title'])
        .where('project_id', '=', projectId)
        .where('id', 'in', chunk)
        .execute()),
    );
  }
  return found;
}
