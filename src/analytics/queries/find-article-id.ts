// Article lookups of the tracking path: the id of a project's article with a slug, and whether an
// article (named by its slug, or by one of its page views) is published now. They run on every
// tracking request of a public key: compiled once per database, only their parameters change.
import type { CompiledQuery } from 'kysely';
import type { Db } from '../../db/database.ts';
import { hasReportedStatus } from '../../content/article-status.ts';

type Compiled<R> = WeakMap<Db, CompiledQuery<R>>;
const byId: Compiled<{ id: string }> = new WeakMap();
const publishedBySlug: Compiled<{ id: string }> = new WeakMap();
const publishedByPageView: Compiled<{ id: string }> = new WeakMap();

// Placeholders the queries are compiled with, replaced by the request's values wherever they landed.
const slot = { project: '\u0000project', key: '\u0000key', now: '\u0000now' } as const;

function compiledFor<R>(cache: Compiled<R>, db: Db, build: () => CompiledQuery<R>): CompiledQuery<R> {
  let query = cache.get(db);
  if (query === undefined) cache.set(db, (query = build()));
  return query;
}

export async function findArticleId(db: Db, projectId: string, slug: string): Promise<string | null> {
  // No stored slug holds a NUL, and PostgreSQL would refuse the parameter.
  if (slug.includes('\u0000')) return null;
  const query = compiledFor(byId, db, () =>
    db.kysely
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', '')
      .where('slug', '=', '')
      .compile(),
  );
  const [row] = await db.executeCompiled<{ id: string }>({ ...query, parameters: [projectId, slug] });
  return row?.id ?? null;
}

/** Whether the project has an article with this slug whose reported status is `published` at `now`. */
export async function isPublishedArticle(
  db: Db,
  projectId: string,
  slug: string,
  now: string,
): Promise<boolean> {
  if (slug.includes('\u0000')) return false;
  const query = compiledFor(publishedBySlug, db, () =>
    db.kysely
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', slot.project)
      .where('slug', '=', slot.key)
      .where((eb) => hasReportedStatus(eb, 'published', slot.now))
      .compile(),
  );
  const parameters = fill(query, { project: projectId, key: slug, now });
  return (await db.executeCompiled<{ id: string }>({ ...query, parameters })).length > 0;
}

/** Whether the project has this page view and its article's reported status is `published` at `now`. */
export async function isPageViewOfPublishedArticle(
  db: Db,
  projectId: string,
  pageViewId: string,
  now: string,
): Promise<boolean> {
  const query = compiledFor(publishedByPageView, db, () =>
    db.kysely
      .selectFrom('page_views')
      .innerJoin('articles', 'articles.id', 'page_views.article_id')
      .select('page_views.id')
      .where('page_views.id', '=', slot.key)
      .where('page_views.project_id', '=', slot.project)
      .where((eb) => hasReportedStatus(eb, 'published', slot.now))
      .compile(),
  );
  const parameters = fill(query, { project: projectId, key: pageViewId, now });
  return (await db.executeCompiled<{ id: string }>({ ...query, parameters })).length > 0;
}

function fill(query: CompiledQuery<unknown>, values: Record<keyof typeof slot, string>): unknown[] {
  return query.parameters.map((parameter) => {
    for (const name of Object.keys(slot) as Array<keyof typeof slot>) {
      if (parameter === slot[name]) return values[name];
    }
    return parameter;
  });
}
