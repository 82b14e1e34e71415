// SQL of the redirects list: the published articles' paths and former paths.
import type { Executor } from '../db/schema.ts';
import { hasReportedStatus } from './article-status.ts';

export interface PublishedPathRow {
  slug: string;
  path: string | null;
  section: string | null;
  published_at: string | null;
  created_at: string;
  /** JSON array of former paths. */
  aliases: string;
}

/** Every article published at `now`, newest first (ties by id), with what its path is made of. */
export function findPublishedPaths(
  executor: Executor,
  projectId: string,
  now: string,
): Promise<PublishedPathRow[]> {
  return executor
    .selectFrom('articles')
    .select(['slug', 'path', 'section', 'published_at', 'created_at', 'aliases'])
    .where('project_id', '=', projectId)
    .where((eb) => hasReportedStatus(eb, 'published', now))
    .orderBy('published_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}
