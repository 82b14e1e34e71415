// Revisions: every change of an article (the write API, an import, the CLI) keeps the version it
// replaces, as the writable fields the write API takes, in the change's own transaction; a project
// keeps the newest `revisions_kept` of each article.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { ArticleRevisionTable, Executor, Project } from '../db/schema.ts';
import { NotFoundError } from '../errors.ts';
import { findArticleIdBySlug } from './article-queries.ts';
import type { StoredArticle, WritableArticle } from './article-snapshots.ts';

export type RevisionSource = ArticleRevisionTable['source'];

/** Keeps `replaced` (the articles as they were before a change) and drops each one's revisions past the project's bound. */
export async function keepRevisions(
  trx: Executor,
  projectId: string,
  replaced: StoredArticle[],
  source: RevisionSource,
  now: string,
): Promise<void> {
  if (replaced.length === 0) return;
  const project = await trx
    .selectFrom('projects')
    .select('revisions_kept')
    .where('id', '=', projectId)
    .executeTakeFirstOrThrow();
  const kept = Number(project.revisions_kept);
  for (let start = 0; start < replaced.length; start += 500) {
    await trx
      .insertInto('article_revisions')
      .values(
        replaced.slice(start, start + 500).map(({ row, snapshot }) => ({
          id: randomUUID(),
          project_id: projectId,
          article_id: row.id,
          version: row.version,
          source,
          created_at: now,
          snapshot: JSON.stringify(snapshot),
        })),
      )
      .execute();
  }
  for (const { row } of replaced) await dropOldRevisions(trx, row.id, kept);
}

/** Deletes the article's revisions beyond the newest `kept`. */
export async function dropOldRevisions(trx: Executor, articleId: string, kept: number): Promise<void> {
  const old = await trx
    .selectFrom('article_revisions')
    .select('id')
    .where('article_id', '=', articleId)
    .orderBy('version', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(kept)
    .limit(1_000_000)
    .execute();
  if (old.length === 0) return;
  await trx
    .deleteFrom('article_revisions')
    .where(
      'id',
      'in',
      old.map((revision) => revision.id),
    )
    .execute();
}

export interface RevisionSummary {
  id: string;
  version: number;
  source: RevisionSource;
  createdAt: string;
}

async function articleIdOf(executor: Executor, project: Project, slug: string): Promise<string> {
  const id = await findArticleIdBySlug(executor, project.id, slug);
  if (id === undefined) throw new NotFoundError(`Article '${slug}' not found`);
  return id;
}

/** The article's revisions, newest first. */
export async function listRevisions(db: Db, project: Project, slug: string): Promise<RevisionSummary[]> {
  const articleId = await articleIdOf(db.kysely, project, slug);
  const rows = await db.kysely
    .selectFrom('article_revisions')
    .select(['id', 'version', 'source', 'created_at'])
    .where('article_id', '=', articleId)
    .orderBy('version', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    version: Number(row.version),
    source: row.source,
    createdAt: row.created_at,
  }));
}

/** One revision of the article with its snapshot; 404 when the article or the revision is not there. */
export async function findRevision(
  executor: Executor,
  project: Project,
  slug: string,
  id: string,
): Promise<RevisionSummary & { snapshot: WritableArticle }> {
  const articleId = await articleIdOf(executor, project, slug);
  const row = id.includes('\u0000')
    ? undefined
    : await executor
        .selectFrom('article_revisions')
        .selectAll()
        .where('article_id', '=', articleId)
        .where('id', '=', id)
        .executeTakeFirst();
  if (!row) throw new NotFoundError(`Revision '${id}' of article '${slug}' not found`);
  return {
    id: row.id,
    version: Number(row.version),
    source: row.source,
    createdAt: row.created_at,
    snapshot: JSON.parse(row.snapshot) as WritableArticle,
  };
}
