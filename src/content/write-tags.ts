// The write API's tag changes, in one transaction holding the project's lock like article writes.
// A tag has no version column: its `updatedAt` (which every write moves forward) is its version,
// so that `If-Match` takes what GET /v1/tags/:name shows.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { type OutboxEvent, recordEvents } from '../db/outbox.ts';
import type { Executor, Project, TagTable } from '../db/schema.ts';
import { HttpError, NotFoundError } from '../errors.ts';
import { bumpContentVersion } from '../projects/queries.ts';
import { applySetChanges, storedSetKeys } from './article-set-queries.ts';
import { SetChanges, tagSetKey } from './article-sets.ts';
import { tagEvent } from './article-events.ts';
import { getTag } from './tags.ts';
import { freeSlug, slugOfTagName } from './tag-slugs.ts';
import { mergePatch, patchObject, tagFromBody } from './write-input.ts';
import { checkIfMatch, type StoredAnswer } from './write-preconditions.ts';

async function inTransaction<T>(
  db: Db,
  project: Project,
  write: (trx: Executor, events: OutboxEvent[], now: Date) => Promise<T>,
): Promise<T> {
  return db.kysely.transaction().execute(async (trx) => {
    await bumpContentVersion(trx, project.id);
    const events: OutboxEvent[] = [];
    const now = new Date();
    const result = await write(trx, events, now);
    await recordEvents(trx, events, now);
    return result;
  });
}

async function findTag(trx: Executor, projectId: string, name: string): Promise<TagTable> {
  const key = name.trim().toLowerCase();
  const rows = name.includes('\u0000')
    ? []
    : await trx
        .selectFrom('tags')
        .selectAll()
        .where('project_id', '=', projectId)
        .where((eb) => eb.or([eb('name_key', '=', key), eb('slug', '=', name.trim())]))
        .execute();
  const tag = rows.find((row) => row.name_key === key) ?? rows[0];
  if (!tag) throw new NotFoundError('Tag not found');
  return tag;
}

function conflict(field: 'name' | 'slug', value: string): HttpError {
  return new HttpError(409, 'Conflict', `Another tag of the project has the ${field} '${value}'`, {
    issues: [{ field, message: `'${value}' is taken by another tag` }],
  });
}

async function others(trx: Executor, projectId: string, exceptId: string | null) {
  const rows = await trx
    .selectFrom('tags')
    .select(['id', 'name_key', 'slug'])
    .where('project_id', '=', projectId)
    .execute();
  return rows.filter((row) => row.id !== exceptId);
}

async function answerOf(
  trx: Executor,
  db: Db,
  project: Project,
  id: string,
  statusCode: number,
): Promise<StoredAnswer> {
  const row = await trx
    .selectFrom('tags')
    .select(['name', 'slug'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const data = await getTag(db, project, row.name, undefined, false, trx);
  const headers: Record<string, string> = { etag: `"${data.updatedAt}"` };
  if (statusCode === 201) headers['location'] = `/v1/tags/${encodeURIComponent(row.slug)}`;
  return { statusCode, headers, body: { data } };
}

/** `POST /v1/tags`: a new tag (`name`, optional `slug`, `color`, `icon`). */
export async function createTag(db: Db, project: Project, body: unknown): Promise<StoredAnswer> {
  return inTransaction(db, project, async (trx, events, now) => {
    const input = tagFromBody(body);
    const taken = await others(trx, project.id, null);
    if (taken.some((tag) => tag.name_key === input.name.toLowerCase())) throw conflict('name', input.name);
    if (input.slug && taken.some((tag) => tag.slug === input.slug)) throw conflict('slug', input.slug);
    const row: TagTable = {
      id: randomUUID(),
      project_id: project.id,
      name: input.name,
      name_key: input.name.toLowerCase(),
      slug: input.slug ?? freeSlug(slugOfTagName(input.name), new Set(taken.map((tag) => tag.slug))),
      color: input.color,
      icon: input.icon,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await trx.insertInto('tags').values(row).execute();
    events.push(tagEvent(project.id, 'tag.created', row));
    return answerOf(trx, db, project, row.id, 201);
  });
}

/** PUT (`patch` false) or PATCH (a JSON Merge Patch) of a tag; a slug left out is kept. */
export async function replaceTag(
  db: Db,
  project: Project,
  name: string,
  ifMatch: string | undefined,
  body: unknown,
  patch: boolean,
): Promise<StoredAnswer> {
  return inTransaction(db, project, async (trx, events, now) => {
    const current = await findTag(trx, project.id, name);
    checkIfMatch(ifMatch, current.updated_at, 'updatedAt of the tag');
    const stored = { name: current.name, slug: current.slug, color: current.color, icon: current.icon };
    const input = tagFromBody(patch ? mergePatch(stored, patchObject(body)) : body);
    const slug = input.slug ?? current.slug;
    const taken = await others(trx, project.id, current.id);
    if (taken.some((tag) => tag.name_key === input.name.toLowerCase())) throw conflict('name', input.name);
    if (taken.some((tag) => tag.slug === slug)) throw conflict('slug', slug);
    const next = { name: input.name, slug, color: input.color, icon: input.icon };
    if (JSON.stringify(next) === JSON.stringify(stored)) return answerOf(trx, db, project, current.id, 200);
    // Later than the stored one even within its millisecond: it is the tag's version.
    const updatedAt = new Date(Math.max(now.getTime(), Date.parse(current.updated_at) + 1)).toISOString();
    await trx
      .updateTable('tags')
      .set({ ...next, name_key: input.name.toLowerCase(), updated_at: updatedAt })
      .where('id', '=', current.id)
      .execute();
    events.push(tagEvent(project.id, 'tag.updated', { id: current.id, ...next }));
    return answerOf(trx, db, project, current.id, 200);
  });
}

/** `DELETE /v1/tags/:name`: the tag leaves its articles (and their sets), then goes. */
export async function deleteTag(
  db: Db,
  project: Project,
  name: string,
  ifMatch: string | undefined,
): Promise<void> {
  await inTransaction(db, project, async (trx, events) => {
    const tag = await findTag(trx, project.id, name);
    checkIfMatch(ifMatch, tag.updated_at, 'updatedAt of the tag', true);
    const carrying = await trx
      .selectFrom('article_tags')
      .innerJoin('articles', 'articles.id', 'article_tags.article_id')
      .select(['articles.id', 'articles.ordinal'])
      .where('article_tags.tag_id', '=', tag.id)
      .execute();
    const before = await storedSetKeys(
      trx,
      carrying.map((article) => article.id),
    );
    const sets = new SetChanges();
    for (const article of carrying) {
      const keys = before.get(article.id)!;
      const after = new Set(keys);
      after.delete(tagSetKey(tag.id));
      sets.article(article.ordinal, keys, after);
    }
    await applySetChanges(trx, db.dialect, project.id, sets);
    await trx.deleteFrom('tags').where('id', '=', tag.id).execute();
    events.push(tagEvent(project.id, 'tag.deleted', tag));
  });
}
