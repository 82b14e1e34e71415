// The write API's article changes: each runs in one transaction that first bumps the project's
// content version (on PostgreSQL that row lock makes a project's writes take turns, as imports do;
// SQLite's writer lock does the same), so the If-Match check and the write are one step. A change
// keeps the version it replaces as a revision and writes its webhook events in that transaction;
// a write that changes nothing is rolled back and answers the article as it is.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { type OutboxEvent, recordEvents } from '../db/outbox.ts';
import type { Executor, Project } from '../db/schema.ts';
import { HttpError, NotFoundError } from '../errors.ts';
import { bumpContentVersion, listsMoved } from '../projects/queries.ts';
import { findArticleIdBySlug, lowestUnusedOrdinal } from './article-queries.ts';
import { announceDuePublications } from './announcements.ts';
import { articleEvent, changeEvents } from './article-events.ts';
import { applySetChanges, projectFragments, storedSetKeys } from './article-set-queries.ts';
import { articleSetKeys, movesInLists, SetChanges } from './article-sets.ts';
import {
  sameArticle,
  type StoredArticle,
  storedArticles,
  type WritableArticle,
} from './article-snapshots.ts';
import { articlePath } from './article-url.ts';
import { getArticle } from './articles.ts';
import { fallbackAuthor } from './import-settings.ts';
import type { ArticleInput } from './import/records.ts';
import {
  articleRow,
  type PreparedArticle,
  prepare,
  type ProjectSite,
  StorageLimitError,
  upsertTags,
  writeTagsAndVariants,
} from './import.ts';
import { rememberRemoved } from './removed-articles.ts';
import { keepRevisions, type RevisionSource } from './revisions.ts';
import { articleFromBody, urlSettingsOf } from './write-input.ts';
import {
  checkIfMatch,
  type Idempotency,
  keepAnswer,
  replayedAnswer,
  type StoredAnswer,
} from './write-preconditions.ts';

/** What a write answers: `data` is the article with every writable field, `version` its ETag. */
export interface ArticleAnswer extends StoredAnswer {
  body: { data: unknown };
}

/** Every writable field (and the version) on top of a single article's defaults. */
export const writableSelect = JSON.stringify(
  Object.fromEntries(
    [
      'content',
      'excerpt',
      'coverImage',
      'coverImageAlt',
      'title',
      'slug',
      'status',
      'author',
      'lastUpdatedBy',
      'tags',
      'variants',
      'createdAt',
      'updatedAt',
      'publishedAt',
      'path',
      'section',
      'aliases',
      'authors',
      'visibility',
      'tiers',
      'seo',
      'guid',
      'version',
    ].map((field) => [field, true]),
  ),
);

class NothingChanged extends Error {}

interface WriteScope {
  trx: Executor;
  project: Project;
  now: Date;
  events: OutboxEvent[];
  /**
   * Set by a write that moved no article in or along a list not sorted by updatedAt (movesInLists):
   * the project's order version stays, and so do the marks of its deep pages.
   */
  keptOrder?: boolean;
}

/** Runs `write` in a transaction holding the project's lock, then announces due publications and writes the events. */
async function inProjectTransaction<T>(
  db: Db,
  project: Project,
  write: (scope: WriteScope) => Promise<T>,
): Promise<T> {
  return db.kysely.transaction().execute(async (trx) => {
    await bumpContentVersion(trx, project.id, false);
    const locked = await trx
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', project.id)
      .executeTakeFirstOrThrow();
    const scope: WriteScope = { trx, project: locked, now: new Date(), events: [] };
    const result = await write(scope);
    // A write that does not say it kept the order moved it.
    if (scope.keptOrder !== true) await listsMoved(trx, project.id);
    await announceDuePublications(trx, scope.now, project.id);
    await recordEvents(trx, scope.events, scope.now);
    return result;
  });
}

async function answerOf(
  trx: Executor,
  db: Db,
  project: Project,
  slug: string,
  statusCode: number,
): Promise<ArticleAnswer> {
  const data = await getArticle(db, project, slug, writableSelect, false, undefined, trx);
  const headers: Record<string, string> = { etag: `"${String(data.version)}"` };
  if (statusCode === 201) headers['location'] = `/v1/articles/${encodeURIComponent(slug)}`;
  return { statusCode, headers, body: { data } };
}

function siteOf(project: Project): ProjectSite {
  return { project, author: fallbackAuthor(project).author, guid: (input, id) => input.guid ?? id };
}

class SlugTakenError extends HttpError {
  constructor(slug: string) {
    super(409, 'Conflict', `Another article of the project has the slug '${slug}'`, {
      issues: [{ field: 'slug', message: `'${slug}' is taken by another article` }],
    });
  }
}

async function slugTaken(trx: Executor, projectId: string, slug: string): Promise<boolean> {
  return (await findArticleIdBySlug(trx, projectId, slug)) !== undefined;
}

/**
 * Refuses a write past the project's storage limit, as the import does; `replacedBytes` are the
 * article's before. A write that does not grow the article is never refused, so it reads nothing;
 * one that does sums the project's articles from an index (migration 0036), not from their rows.
 */
async function checkStorage(
  trx: Executor,
  project: Project,
  article: PreparedArticle,
  replacedBytes: number,
): Promise<void> {
  if (article.storageBytes <= replacedBytes) return;
  const row = await storageUsedQuery(trx, project.id).executeTakeFirstOrThrow();
  const after = Number(row.used ?? 0) - replacedBytes + article.storageBytes;
  const limit = Number(project.storage_limit_bytes);
  if (after > limit) throw new StorageLimitError(after, limit);
}

/** The bytes the project's articles take. */
export function storageUsedQuery(executor: Executor, projectId: string) {
  return executor
    .selectFrom('articles')
    .select((eb) => eb.fn.sum<number | string | null>('storage_bytes').as('used'))
    .where('project_id', '=', projectId);
}

async function tagIdsOf(scope: WriteScope, article: PreparedArticle): Promise<string[]> {
  const counts = { tagsCreated: 0, tagsUpdated: 0 };
  const ids = await upsertTags(
    scope.trx,
    scope.project.id,
    { tags: [] },
    [article.input],
    scope.now.toISOString(),
    counts,
    scope.events,
  );
  return article.input.tags.map((name) => ids.get(name.toLowerCase())!);
}

/** `POST /v1/articles`: a new article; with an idempotency key, the first answer again. */
export async function createArticle(
  db: Db,
  project: Project,
  body: unknown,
  idempotency: Idempotency | undefined,
): Promise<StoredAnswer> {
  return inProjectTransaction(db, project, async (scope) => {
    const { trx } = scope;
    if (idempotency) {
      const replay = await replayedAnswer(trx, idempotency, scope.now);
      if (replay) return { ...replay, headers: { ...replay.headers, 'idempotent-replayed': 'true' } };
    }
    const input = articleFromBody(body);
    if (await slugTaken(trx, scope.project.id, input.slug)) throw new SlugTakenError(input.slug);
    const article = prepare(input);
    await checkStorage(trx, scope.project, article, 0);
    const tagIds = await tagIdsOf(scope, article);
    const ordinal = await lowestUnusedOrdinal(trx, scope.project.id);
    const row = articleRow(siteOf(scope.project), article, undefined, ordinal, scope.now.toISOString());
    await trx.insertInto('articles').values(row).execute();
    await writeTagsAndVariants(trx, row.id, tagIds, input.variants);
    const sets = new SetChanges();
    const fragments = await projectFragments(trx, scope.project.id);
    sets.article(
      ordinal,
      null,
      articleSetKeys({ status: row.status, tagIds, searchText: row.search_text }, fragments),
    );
    await applySetChanges(trx, db.dialect, scope.project.id, sets);
    const answer = await answerOf(trx, db, scope.project, row.slug, 201);
    if (idempotency) await keepAnswer(trx, idempotency, answer, scope.now);
    return answer;
  });
}

async function currentArticle(trx: Executor, project: Project, slug: string): Promise<StoredArticle> {
  const id = await findArticleIdBySlug(trx, project.id, slug);
  const stored = id !== undefined ? (await storedArticles(trx, [id])).get(id) : undefined;
  if (!stored) throw new NotFoundError(`Article '${slug}' not found`);
  return stored;
}

/**
 * PUT, PATCH and a revision's restore: `bodyOf` gives the article's new body from the stored one
 * (the PUT body itself, the merged patch, the revision's snapshot).
 */
export async function replaceArticle(
  db: Db,
  project: Project,
  slug: string,
  ifMatch: string | undefined,
  bodyOf: (current: WritableArticle, trx: Executor) => unknown,
  source: RevisionSource = 'api',
): Promise<StoredAnswer> {
  try {
    return await inProjectTransaction(db, project, async (scope) => {
      const { trx } = scope;
      const before = await currentArticle(trx, scope.project, slug);
      checkIfMatch(ifMatch, String(before.row.version), 'version');
      const settings = urlSettingsOf(scope.project);
      const input = articleFromBody(await bodyOf(before.snapshot, trx), { row: before.row, settings });
      if (input.slug !== before.row.slug) await moveSlug(trx, scope.project, before, input);
      const article = prepare(input);
      await checkStorage(trx, scope.project, article, Number(before.row.storage_bytes));
      await writeArticle(db, scope, before, article);
      const after = (await storedArticles(trx, [before.row.id])).get(before.row.id)!;
      if (sameArticle(before.snapshot, after.snapshot)) throw new NothingChanged();
      await keepRevisions(trx, scope.project.id, [before], source, scope.now.toISOString());
      scope.events.push(...changeEvents(scope.project, before.row, after.row, scope.now.toISOString()));
      return answerOf(trx, db, scope.project, after.row.slug, 200);
    });
  } catch (error) {
    if (!(error instanceof NothingChanged)) throw error;
    return db.kysely.transaction().execute((trx) => answerOf(trx, db, project, slug, 200));
  }
}

/** A new slug must be free; the article's former path becomes an alias (listed by GET /v1/redirects). */
async function moveSlug(
  trx: Executor,
  project: Project,
  before: StoredArticle,
  input: ArticleInput,
): Promise<void> {
  if (await slugTaken(trx, project.id, input.slug)) throw new SlugTakenError(input.slug);
  const settings = urlSettingsOf(project);
  const oldPath = articlePath(settings, before.row);
  const newPath = articlePath(settings, {
    slug: input.slug,
    path: input.path ?? null,
    published_at: input.publishedAt ?? before.row.published_at,
    created_at: input.createdAt ?? before.row.created_at,
    section: input.section ?? null,
  });
  const aliases = input.aliases ?? [];
  if (oldPath !== newPath && !aliases.includes(oldPath)) input.aliases = [...aliases, oldPath];
}

async function writeArticle(
  db: Db,
  scope: WriteScope,
  before: StoredArticle,
  article: PreparedArticle,
): Promise<void> {
  const { trx } = scope;
  const tagIds = await tagIdsOf(scope, article);
  const fragments = await projectFragments(trx, scope.project.id);
  const setsBefore = await storedSetKeys(trx, [before.row.id], fragments);
  const row = articleRow(
    siteOf(scope.project),
    article,
    before.row,
    before.row.ordinal,
    scope.now.toISOString(),
  );
  const { id, project_id: _project, ...changes } = row;
  const unpublished = before.row.status === 'published' && row.status !== 'published';
  const updated = await trx
    .updateTable('articles')
    .set({ ...changes, version: sql`version + 1`, ...(unpublished ? { announced_published_at: null } : {}) })
    .where('id', '=', id)
    .where('version', '=', before.row.version)
    .executeTakeFirst();
  // The project's lock makes this unreachable; the condition keeps a lost update impossible anyway.
  if (Number(updated.numUpdatedRows) !== 1)
    throw new HttpError(412, 'Precondition Failed', 'The article changed during the write');
  await trx.deleteFrom('article_tags').where('article_id', '=', id).execute();
  await trx.deleteFrom('article_variants').where('article_id', '=', id).execute();
  await writeTagsAndVariants(trx, id, tagIds, article.input.variants);
  const sets = new SetChanges();
  const keysBefore = setsBefore.get(id)!;
  const keysAfter = articleSetKeys({ status: row.status, tagIds, searchText: row.search_text }, fragments);
  sets.article(row.ordinal, keysBefore, keysAfter);
  await applySetChanges(trx, db.dialect, scope.project.id, sets);
  scope.keptOrder = !movesInLists(before.row, row, keysBefore, keysAfter);
}

/** `DELETE /v1/articles/:slug`: removed as `--prune` removes it (an import bringing its slug back restores its id and views). */
export async function deleteArticle(
  db: Db,
  project: Project,
  slug: string,
  ifMatch: string | undefined,
): Promise<void> {
  await inProjectTransaction(db, project, async (scope) => {
    const { trx } = scope;
    const { row } = await currentArticle(trx, scope.project, slug);
    checkIfMatch(ifMatch, String(row.version), 'version', true);
    const before = await storedSetKeys(trx, [row.id], await projectFragments(trx, scope.project.id));
    const sets = new SetChanges();
    sets.article(row.ordinal, before.get(row.id)!, null);
    await rememberRemoved(trx, scope.project.id, [row.id], scope.now.toISOString());
    await trx.deleteFrom('articles').where('id', '=', row.id).execute();
    await applySetChanges(trx, db.dialect, scope.project.id, sets);
    scope.events.push(articleEvent(scope.project, 'article.deleted', row, scope.now.toISOString()));
  });
}
