// SQL of projects and API keys. Every function takes the Kysely instance (or a transaction) first.
import type { InferResult, Insertable } from 'kysely';
import { type Compiled, compiledFor } from '../db/compiled-query.ts';
import type { Db } from '../db/database.ts';
import { requestStringSweep } from '../db/page-view-string-sweep.ts';
import type { ApiKeyTable, Executor, Project } from '../db/schema.ts';
import type { AuthContext } from '../http/auth.ts';
import { parseScopes } from './keys.ts';
import { projectNumSql } from '../db/id-numbers.ts';

export async function insertProject(executor: Executor, project: Project): Promise<void> {
  // order_version starts at its default, as content_version's 0.
  const { order_version: _, ...row } = project;
  await executor.insertInto('projects').values(row).execute();
}

export function findProjectBySlug(executor: Executor, slug: string): Promise<Project | undefined> {
  return executor.selectFrom('projects').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function updateProjectRow(
  executor: Executor,
  projectId: string,
  changes: Partial<Project>,
): Promise<void> {
  await executor
    .updateTable('projects')
    .set((eb) => ({
      ...changes,
      content_version: eb('content_version', '+', 1),
      order_version: eb('content_version', '+', 1),
    }))
    .where('id', '=', projectId)
    .execute();
}

export async function countProjectContents(executor: Executor, projectId: string) {
  const count = (table: 'articles' | 'tags' | 'api_keys' | 'page_views') =>
    executor
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.count));
  // One after the other: inside a transaction they share one connection.
  return {
    articles: await count('articles'),
    tags: await count('tags'),
    keys: await count('api_keys'),
    // Those an older release left in page_views and not moved yet count too.
    pageViews:
      (await count('page_views')) +
      Number(
        (
          await executor
            .selectFrom('page_view_rows')
            .innerJoin('project_nums', 'project_nums.num', 'page_view_rows.project_num')
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .where('project_nums.project_id', '=', projectId)
            .executeTakeFirstOrThrow()
        ).count,
      ),
  };
}

/**
 * Deletes the project's row, which removes its articles, tags, keys, page views and rollups (their
 * foreign keys cascade), and the rows of the tables that have no foreign key to it: its roll-up
 * queue entries and, on PostgreSQL, its visitor ids. The strings its page views named are swept by
 * a later cleanup, which the request left here asks for.
 */
export async function deleteProjectRows(executor: Executor, projectId: string): Promise<void> {
  for (const table of ['rollup_queue', 'analytics_visitor_sets', 'analytics_daily_visitors'] as const) {
    await executor.deleteFrom(table).where('project_id', '=', projectId).execute();
  }
  await executor
    .deleteFrom('analytics_visitor_entries')
    .where('project_num', '=', projectNumSql(projectId))
    .execute();
  await executor.deleteFrom('projects').where('id', '=', projectId).execute();
  await requestStringSweep(executor);
}

export function listProjects(executor: Executor): Promise<Project[]> {
  return executor.selectFrom('projects').selectAll().orderBy('slug').execute();
}

export async function countProjects(executor: Executor): Promise<number> {
  const row = await executor
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertApiKey(executor: Executor, key: Insertable<ApiKeyTable>): Promise<void> {
  await executor.insertInto('api_keys').values(key).execute();
}

export function listApiKeys(executor: Executor, projectId: string): Promise<ApiKeyTable[]> {
  return executor
    .selectFrom('api_keys')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findApiKeyById(executor: Executor, id: string): Promise<ApiKeyTable | undefined> {
  return executor.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Marks a change of what the project's API answers are (cached answers are keyed by it) and, unless
 * `movesLists` is false, of the order of its lists (projects.order_version, which keeps the marks
 * of content/page-marks.ts). A write that knows only after writing whether it moved an article
 * passes false here and calls listsMoved afterwards if it did.
 */
export async function bumpContentVersion(
  executor: Executor,
  projectId: string,
  movesLists = true,
): Promise<void> {
  await executor
    .updateTable('projects')
    .set((eb) => ({
      content_version: eb('content_version', '+', 1),
      ...(movesLists ? { order_version: eb('content_version', '+', 1) } : {}),
    }))
    .where('id', '=', projectId)
    .execute();
}

/** After bumpContentVersion(…, false): the write did move an article in or along a list. */
export async function listsMoved(executor: Executor, projectId: string): Promise<void> {
  await executor
    .updateTable('projects')
    .set((eb) => ({ order_version: eb.ref('content_version') }))
    .where('id', '=', projectId)
    .execute();
}

/** The earliest publishedAt still in the future: cached answers must not outlive it. */
export async function nextScheduledPublication(
  executor: Executor,
  projectId: string,
  now: string,
): Promise<string | null> {
  const row = await executor
    .selectFrom('articles')
    .select((eb) => eb.fn.min('published_at').as('next'))
    .where('project_id', '=', projectId)
    .where('status', '=', 'published')
    .where('published_at', '>', now)
    .executeTakeFirst();
  return (row?.next as string | null | undefined) ?? null;
}

function activeKeyQuery(executor: Executor, keyHash: string) {
  return executor
    .selectFrom('api_keys')
    .innerJoin('projects', 'projects.id', 'api_keys.project_id')
    .select([
      'api_keys.id as key_id',
      'api_keys.kind',
      'api_keys.rate_limit',
      'api_keys.allowed_origins',
      'api_keys.scopes',
      'api_keys.test',
      'projects.id',
      'projects.name',
      'projects.slug',
      'projects.description',
      'projects.site_url',
      'projects.logo_url',
      'projects.url_pattern',
      'projects.time_zone',
      'projects.default_author',
      'projects.storage_limit_bytes',
      'projects.revisions_kept',
      'projects.content_version',
      'projects.order_version',
      'projects.created_at',
      'projects.updated_at',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.revoked_at', 'is', null);
}

type ActiveKeyRow = InferResult<ReturnType<typeof activeKeyQuery>>[number];
const activeKeyQueries: Compiled<ActiveKeyRow> = new WeakMap();

/**
 * The unrevoked key of this hash and its project, in one query. It runs on every request, so it
 * is built and compiled once per database and only its parameter changes.
 */
export async function queryActiveKey(db: Db, keyHash: string): Promise<AuthContext | undefined> {
  const compiled = compiledFor(activeKeyQueries, db, () => activeKeyQuery(db.kysely, '').compile());
  const [row] = await db.executeCompiled<ActiveKeyRow>({ ...compiled, parameters: [keyHash] });
  if (!row) return undefined;
  const { key_id, kind, rate_limit, allowed_origins, scopes, test, ...project } = row;
  return {
    key: { id: key_id, kind, rate_limit, allowed_origins, scopes: parseScopes(scopes), test: test === 1 },
    project,
  };
}

export async function revokeApiKey(executor: Executor, id: string, at: string): Promise<boolean> {
  const result = await executor
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Records that the keys `ids` were last used at `at`, in one statement (db/key-writes.ts knows its text). */
export async function touchApiKeys(executor: Executor, ids: readonly string[], at: string): Promise<void> {
  await executor.updateTable('api_keys').set({ last_used_at: at }).where('id', 'in', ids).execute();
}
