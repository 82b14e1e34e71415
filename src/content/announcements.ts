// `article.published`, exactly once per publication: an article is announced when it is published
// and its time has come, by whichever comes first of the change that publishes it (an API write, an
// import, a CLI command, in its own transaction) and the scheduler that finds scheduled articles
// whose time has come. The claim is one conditional UPDATE: on PostgreSQL a second instance running
// it at the same moment waits for the first's row locks and then finds nothing left to claim; on
// SQLite writes take turns. A change that unpublishes an article sets `announced_published_at` to
// null, so that publishing it again is announced again.
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { recordEvents } from '../db/outbox.ts';
import type { Database, Executor } from '../db/schema.ts';

/**
 * The published articles whose time has come at `now` and that were not announced for that date:
 * the terms of the index of unannounced articles (migration 0035), the status written out so that
 * the index is seen to apply whatever the statement's parameters.
 */
const isDue =
  (now: Date) =>
  (eb: ExpressionBuilder<Database, 'articles'>): Expression<SqlBool> =>
    eb.and([
      eb('status', '=', sql.lit('published')),
      eb('published_at', '<=', now.toISOString()),
      eb.or([
        eb('announced_published_at', 'is', null),
        eb('announced_published_at', '<>', eb.ref('published_at')),
      ]),
    ]);

/** Articles announced a statement: an import publishing a whole blog announces it a part at a time. */
const announcedPerStatement = 2_000;

/**
 * Marks every published article whose time has come at `now` and that was not announced for its
 * publication date, and writes one `article.published` event for each, through `executor` (run it
 * in a transaction). `projectId` limits it to one project. Returns how many were announced.
 */
export async function announceDuePublications(
  executor: Executor,
  now: Date,
  projectId?: string,
): Promise<number> {
  let announced = 0;
  for (;;) {
    const due = dueArticles(executor, now, projectId);
    // An announced article no longer matches: each round takes the next ones. The condition is
    // the UPDATE's own too, so that PostgreSQL checks it again on a row another instance just
    // announced (its lock waited for) and leaves it.
    const rows = await executor
      .updateTable('articles')
      .set({ announced_published_at: sql`published_at` })
      .where('id', 'in', due)
      .where(isDue(now))
      .returning(['id', 'project_id', 'slug', 'title', 'published_at', 'version'])
      .execute();
    if (rows.length === 0) return announced;
    announced += rows.length;
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
  }
}

/**
 * The ids of the next articles due to be announced (of one project, or of all), the earliest first:
 * read from the index of unannounced articles, which PostgreSQL, misjudging how many articles are
 * unannounced, walks for a project's only when told the order.
 */
export function dueArticles(executor: Executor, now: Date, projectId?: string) {
  let due = executor
    .selectFrom('articles')
    .select('id')
    .where(isDue(now))
    .orderBy('published_at')
    .limit(announcedPerStatement);
  if (projectId !== undefined) due = due.where('project_id', '=', projectId);
  return due;
}
