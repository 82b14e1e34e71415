// Tags with their article counts. The count uses the same notion of `published` as the article
// list, so that articleCount always equals meta.total of GET /v1/articles?tags=NAME.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Executor, Project, TagTable } from '../db/schema.ts';
import { NotFoundError, ValidationError } from '../errors.ts';
import { tagArticleCounts } from './article-matches.ts';
import { hasReportedStatus } from './article-status.ts';
import { tagListDefaults, type TagListQueryType } from './schemas.ts';

type TagWithCount = TagTable & { article_count: number | null };

function tagsWithCounts(executor: Executor, projectId: string, published: boolean | undefined, now: string) {
  return executor
    .selectFrom('tags')
    .selectAll('tags')
    .select((eb) => {
      let counted = eb
        .selectFrom('article_tags')
        .innerJoin('articles', 'articles.id', 'article_tags.article_id')
        .select((inner) => inner.fn.countAll<number>().as('count'))
        .whereRef('article_tags.tag_id', '=', 'tags.id');
      if (published !== undefined) {
        counted = counted.where((inner) =>
          published
            ? hasReportedStatus(inner, 'published', now)
            : inner.not(hasReportedStatus(inner, 'published', now)),
        );
      }
      return counted.as('article_count');
    })
    .where('tags.project_id', '=', projectId);
}

/**
 * Which articles a tag counts: for a public key only the published ones exist, so
 * `published` is implied, and `published=false` is a 400.
 */
function countedPublished(published: boolean | undefined, publishedOnly: boolean): boolean | undefined {
  if (!publishedOnly) return published;
  if (published === false) {
    throw new ValidationError([
      { field: 'published', message: 'must be true: a public key reads only published articles' },
    ]);
  }
  return true;
}

/** Tags whose counts one statement carries as values (SQLite takes up to 32,766 parameters). */
const maxValuedTags = 30_000;

export async function listTags(db: Db, project: Project, params: TagListQueryType, publishedOnly = false) {
  const query = { ...tagListDefaults, ...params };
  const now = new Date().toISOString();
  const published = countedPublished(query.published, publishedOnly);
  // Each tag's articles counted from its tag set (article-sets.ts). Counted from the rows, one
  // subquery per tag, it took PostgreSQL 3.2 to 4.1 s at 100,000 articles with `published=true`
  // (every public key's tag list): a scan of every article per tag.
  const counts = [...(await tagArticleCounts(db.kysely, project.id, { published, now }, db.readOffThread))];
  // The counts joined to the tags as a list of values (a parameter per tag), so that the database
  // orders and limits the tags as before (names in its collation). Past what one statement takes,
  // each tag's articles are counted from the rows, as before.
  let q: ReturnType<typeof tagsWithCounts>;
  if (counts.length > maxValuedTags) q = tagsWithCounts(db.kysely, project.id, published, now);
  else {
    const counted =
      counts.length === 0
        ? sql`select cast(null as text) as tag_id, 0 as article_count where 1 = 0`
        : sql`select column1 as tag_id, column2 as article_count from (values ${sql.join(
            counts.map(([id, count]) => sql`(${id}, ${sql.lit(count)})`),
          )}) as c`;
    q = db.kysely
      .selectFrom('tags')
      .leftJoin(sql<{ tag_id: string; article_count: number }>`(${counted})`.as('counted'), (join) =>
        join.onRef('counted.tag_id', '=', 'tags.id'),
      )
      .selectAll('tags')
      .select(sql<number>`coalesce(counted.article_count, 0)`.as('article_count'))
      .where('tags.project_id', '=', project.id);
  }
  if (query.sort === 'createdAt') q = q.orderBy('tags.created_at', query.order);
  if (query.sort === 'articleCount') q = q.orderBy(sql`article_count`, query.order);
  q = q.orderBy('tags.name_key', query.sort === 'name' ? query.order : 'asc');
  if (query.limit !== undefined) q = q.limit(query.limit);
  const [rows, total] = await Promise.all([db.readOffThread(q.compile()), countTags(db.kysely, project.id)]);
  return { data: rows.map(toView), meta: { total } };
}

export async function getTag(
  db: Db,
  project: Project,
  name: string,
  publishedParam: boolean | undefined,
  publishedOnly = false,
  /** A write's transaction, to answer with what it wrote before it commits. */
  executor: Executor = db.kysely,
) {
  const published = countedPublished(publishedParam, publishedOnly);
  // No stored name can hold NUL (PostgreSQL refuses it as a parameter).
  if (name.includes('\u0000')) throw new NotFoundError('Tag not found');
  const nameKey = name.trim().toLowerCase();
  const rows = await tagsWithCounts(executor, project.id, published, new Date().toISOString())
    .where((eb) => eb.or([eb('tags.name_key', '=', nameKey), eb('tags.slug', '=', name.trim())]))
    .execute();
  // A name is what a reader typed; a slug another tag derived may equal it ("news" and "News!").
  const row = rows.find((tag) => tag.name_key === nameKey) ?? rows[0];
  if (!row) throw new NotFoundError('Tag not found');
  return toView(row);
}

async function countTags(executor: Executor, projectId: string): Promise<number> {
  const row = await executor
    .selectFrom('tags')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

function toView(row: TagWithCount) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    icon: row.icon,
    color: row.color,
    articleCount: Number(row.article_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
