// Article lookups of the tracking path: whether an article (named by its slug, or by one of its
// page views) is published now. They run on every tracking request of a public key, so what they
// read is kept per database handle and project, under the project's content version: every
// content change (an import, through any instance or the CLI) bumps it, and the key lookup that
// gives the request its project is renewed by such a change (projects/key-lookup.ts), so a kept
// answer holds exactly while the version does; page views change none of it. The status is
// judged at each request (a scheduled article goes live by the clock, with no change). The queries
// are compiled once per database, and each reads one row by a unique key (the status is judged
// here, so that no plan can prefer the status index and filter a project's articles by slug).
import { sql } from 'kysely';
import { reportedStatus } from '../../../content/public.ts';
import type { Db } from '../../../db/database.ts';
import type { Project, StoredArticleStatus } from '../../../db/schema.ts';
import { type Compiled, compiledFor } from '../../../db/compiled-query.ts';
import { bytesParameter, keyOfPageViewId } from '../../../db/page-view-rows.ts';
import { projectNumSql } from '../../../db/id-numbers.ts';

interface StatusRow {
  id: string;
  status: StoredArticleStatus;
  published_at: string | null;
}

/** What a tracking request knows of its project. */
type ProjectVersion = Pick<Project, 'id' | 'content_version'>;

const statusBySlug: Compiled<StatusRow> = new WeakMap();
const statusByPageView: Compiled<Omit<StatusRow, 'id'>> = new WeakMap();

/** A project's articles read at one content version: by slug (null: none), and by id. */
interface Known {
  version: number;
  bySlug: Map<string, StatusRow | null>;
  byId: Map<string, StatusRow>;
}

const maxProjects = 10_000;
const maxSlugs = 20_000;
const maxPageViews = 50_000;
const known = new WeakMap<Db, Map<string, Known>>();
/** The article of each page view this process created lately (a PUT follows its POST). */
const recentPageViews = new WeakMap<Db, Map<string, { projectId: string; articleId: string }>>();

/** The project's kept answers at the request's version; null for a request older than them. */
function knownOf(db: Db, project: ProjectVersion): Known | null {
  let projects = known.get(db);
  if (projects === undefined) known.set(db, (projects = new Map()));
  let entry = projects.get(project.id);
  if (entry !== undefined && entry.version > project.content_version) return null;
  if (entry === undefined || entry.version < project.content_version) {
    if (projects.size >= maxProjects) projects.clear();
    entry = { version: project.content_version, bySlug: new Map(), byId: new Map() };
    projects.set(project.id, entry);
  }
  return entry;
}

async function articleBySlug(db: Db, project: ProjectVersion, slug: string): Promise<StatusRow | null> {
  const kept = knownOf(db, project);
  const found = kept?.bySlug.get(slug);
  if (found !== undefined) return found;
  const query = compiledFor(statusBySlug, db, () =>
    db.kysely
      .selectFrom('articles')
      .select(['id', 'status', 'published_at'])
      .where('project_id', '=', '')
      .where('slug', '=', '')
      .compile(),
  );
  const [row] = await db.executeCompiled<StatusRow>({ ...query, parameters: [project.id, slug] });
  if (kept !== null) {
    if (kept.bySlug.size >= maxSlugs) {
      kept.bySlug.clear();
      kept.byId.clear();
    }
    kept.bySlug.set(slug, row ?? null);
    if (row !== undefined) kept.byId.set(row.id, row);
  }
  return row ?? null;
}

/**
 * Whether the project has an article with this slug whose reported status is `published` at
 * `now`; `pageViewId` (the view about to be created) is remembered with the article, for its
 * updates.
 */
export async function isPublishedArticle(
  db: Db,
  project: ProjectVersion,
  slug: string,
  now: string,
  pageViewId?: string,
): Promise<boolean> {
  if (slug.includes('\u0000')) return false;
  const row = await articleBySlug(db, project, slug);
  if (row !== null && pageViewId !== undefined) rememberPageView(db, pageViewId, project.id, row.id);
  return isPublished(row ?? undefined, now);
}

function rememberPageView(db: Db, pageViewId: string, projectId: string, articleId: string): void {
  let views = recentPageViews.get(db);
  if (views === undefined) recentPageViews.set(db, (views = new Map()));
  // The oldest first: a map keeps insertion order.
  if (views.size >= maxPageViews) views.delete(views.keys().next().value!);
  views.set(pageViewId, { projectId, articleId });
}

/** Whether the project has this page view and its article's reported status is `published` at `now`. */
export async function isPageViewOfPublishedArticle(
  db: Db,
  project: ProjectVersion,
  pageViewId: string,
  now: string,
): Promise<boolean> {
  // A view created here lately, of an article read at this content version: nothing to ask.
  const recent = recentPageViews.get(db)?.get(pageViewId);
  const row =
    recent !== undefined && recent.projectId === project.id
      ? knownOf(db, project)?.byId.get(recent.articleId)
      : undefined;
  if (row !== undefined) return isPublished(row, now);
  const key = keyOfPageViewId(pageViewId);
  if (key === null) return false;
  const query = compiledFor(statusByPageView, db, () =>
    sql<Omit<StatusRow, 'id'>>`select a.status, a.published_at from page_view_rows as r
      join article_nums as n on n.num = r.article_num join articles as a on a.id = n.article_id
      where r.project_num = ${projectNumSql('')}
        and r.day = ${''} and r.created_ms = ${0} and r.rid = ${''}`.compile(db.kysely),
  );
  let [found] = await db.executeCompiled<Omit<StatusRow, 'id'>>({
    ...query,
    parameters: [project.id, key.day, key.createdMs, bytesParameter(key.rid, db.dialect)],
  });
  // Stored by an older release and not moved yet.
  if (found === undefined) {
    [found] = await db.kysely
      .selectFrom('page_views')
      .innerJoin('articles', 'articles.id', 'page_views.article_id')
      .select(['articles.status', 'articles.published_at'])
      .where('page_views.id', '=', pageViewId)
      .where('page_views.project_id', '=', project.id)
      .where('page_views.day', '=', key.day)
      .execute();
  }
  return isPublished(found, now);
}

function isPublished(row: Omit<StatusRow, 'id'> | undefined, now: string): boolean {
  return row !== undefined && reportedStatus(row.status, row.published_at, now) === 'published';
}
