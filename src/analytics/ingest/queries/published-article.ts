// Article lookups of the tracking path: whether an article (named by its slug, or by one of its
// page views) is published now. They run on every tracking request of a public key: compiled once
// per database, only their parameters change, and each reads one row by a unique key (the status
// is judged here, so that no plan can prefer the status index and filter a project's articles by
// slug).
import { reportedStatus } from '../../../content/public.ts';
import type { Db } from '../../../db/database.ts';
import type { StoredArticleStatus } from '../../../db/schema.ts';
import { type Compiled, compiledFor } from '../../compiled-query.ts';

interface StatusRow {
  status: StoredArticleStatus;
  published_at: string | null;
}

const statusBySlug: Compiled<StatusRow> = new WeakMap();
const statusByPageView: Compiled<StatusRow> = new WeakMap();

/** Whether the project has an article with this slug whose reported status is `published` at `now`. */
export async function isPublishedArticle(
  db: Db,
  projectId: string,
  slug: string,
  now: string,
): Promise<boolean> {
  if (slug.includes('\u0000')) return false;
  const query = compiledFor(statusBySlug, db, () =>
    db.kysely
      .selectFrom('articles')
      .select(['status', 'published_at'])
      .where('project_id', '=', '')
      .where('slug', '=', '')
      .compile(),
  );
  const [row] = await db.executeCompiled<StatusRow>({ ...query, parameters: [projectId, slug] });
  return isPublished(row, now);
}

/** Whether the project has this page view and its article's reported status is `published` at `now`. */
export async function isPageViewOfPublishedArticle(
  db: Db,
  projectId: string,
  pageViewId: string,
  now: string,
): Promise<boolean> {
  const query = compiledFor(statusByPageView, db, () =>
    db.kysely
      .selectFrom('page_views')
      .innerJoin('articles', 'articles.id', 'page_views.article_id')
      .select(['articles.status', 'articles.published_at'])
      .where('page_views.id', '=', '')
      .where('page_views.project_id', '=', '')
      .compile(),
  );
  const [row] = await db.executeCompiled<StatusRow>({ ...query, parameters: [pageViewId, projectId] });
  return isPublished(row, now);
}

function isPublished(row: StatusRow | undefined, now: string): boolean {
  return row !== undefined && reportedStatus(row.status, row.published_at, now) === 'published';
}
