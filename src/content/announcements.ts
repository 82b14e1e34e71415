// `article.published`, exactly once per publication: an article is announced when it is published
// and its time has come, by whichever comes first of the change that publishes it (an API write, an
// import, a CLI command, in its own transaction) and the scheduler that finds scheduled articles
// whose time has come. The claim is one conditional UPDATE: on PostgreSQL a second instance running
// it at the same moment waits for the first's row locks and then finds nothing left to claim; on
// SQLite writes take turns. A change that unpublishes an article sets `announced_published_at` to
// null, so that publishing it again is announced again.
import { sql } from 'kysely';
import { recordEvents } from '../db/outbox.ts';
import type { Executor } from '../db/schema.ts';

export interface AnnouncedArticle {
  id: string;
  slug: string;
  title: string;
  publishedAt: string;
  version: number;
}

/**
 * Marks every published article whose time has come at `now` and that was not announced for its
 * publication date, and writes one `article.published` event for each, through `executor` (run it
 * in a transaction). `projectId` limits it to one project.
 */
export async function announceDuePublications(
  executor: Executor,
  now: Date,
  projectId?: string,
): Promise<AnnouncedArticle[]> {
  let query = executor
    .updateTable('articles')
    .set({ announced_published_at: sql`published_at` })
    .where('status', '=', 'published')
    .where('published_at', '<=', now.toISOString())
    .where((eb) =>
      eb.or([
        eb('announced_published_at', 'is', null),
        eb('announced_published_at', '<>', eb.ref('published_at')),
      ]),
    );
  if (projectId !== undefined) query = query.where('project_id', '=', projectId);
  const rows = await query
    .returning(['id', 'project_id', 'slug', 'title', 'published_at', 'version'])
    .execute();
  await recordEvents(
    executor,
    rows.map((row) => ({
      projectId: row.project_id,
      type: 'article.published' as const,
      data: {
        id: row.id,
        slug: row.slug,
        title: row.title,
        publishedAt: row.published_at,
        version: row.version,
      },
    })),
    now,
  );
  return rows.map((row) => ({
    id: row.id,
    slug: row.slug,
    title: row.title,
    publishedAt: row.published_at!,
    version: row.version,
  }));
}
