// SQL of the roll-up queue (migration 0009): the entries queued by the tracking writes, read in
// order and deleted once rolled up, the page views they name, and the PostgreSQL advisory lock that
// keeps one roller (or rebuild) at a time on the rollups.
import { CompiledQuery, type InferResult, type Selectable, sql } from 'kysely';
import { withPageViewStrings } from '../../../db/page-view-strings.ts';
import { type DialectName, preparedOnPostgres } from '../../../db/database.ts';
import { dialectOf } from '../../../db/dialect-sql.ts';
import { pageViewOfKey, typedAs } from '../../../db/page-view-lookups.ts';
import { bytesParameter, fromPageViewRow, keyOfPageViewId } from '../../../db/page-view-rows.ts';
import type { Executor, PageViewRowTable, PageViewTable, RollupQueueTable } from '../../../db/schema.ts';
import { breakdownColumns } from '../insight-changes.ts';

export type QueuedEntry = Selectable<RollupQueueTable>;

/** PostgreSQL advisory lock held by the roller (and the rebuild) for its transaction. */
export const rollupLockKey = 7_406_151;

// The statements of every roll-up pass run as prepared statements on PostgreSQL (planned once per
// connection): planned at each pass, they cost its backend 0.9 ms a pass, most of it the lookup of
// the batch's page views (pg_stat_statements, at 10 views a second: a pass a second).

const lockSql = preparedOnPostgres(`select pg_advisory_xact_lock(${rollupLockKey})`);

/** PostgreSQL: waits for the roll-up lock, held until the end of the transaction `trx`. */
export async function lockRollupsForTransaction(trx: Executor): Promise<void> {
  await trx.executeQuery(CompiledQuery.raw(lockSql, []));
}

const newestSeqSql = preparedOnPostgres('select max(seq) as seq from rollup_queue');

/** The sequence number of the newest entry committed now, or null when the queue is empty. */
export async function newestQueuedSeq(db: Executor): Promise<number | null> {
  const { rows } = await db.executeQuery<{ seq: number | string | null }>(
    CompiledQuery.raw(newestSeqSql, []),
  );
  const seq = rows[0]?.seq;
  return seq === null || seq === undefined ? null : Number(seq);
}

const queuedUpToSql = {
  sqlite: 'select * from rollup_queue where seq <= ? order by seq limit ?',
  postgres: preparedOnPostgres('select * from rollup_queue where seq <= $1 order by seq limit $2'),
};

/** The oldest `limit` entries up to `upTo`, in order. */
export async function queuedUpTo(db: Executor, upTo: number, limit: number): Promise<QueuedEntry[]> {
  const { rows } = await db.executeQuery<QueuedEntry>(
    CompiledQuery.raw(queuedUpToSql[dialectOf(db)], [upTo, limit]),
  );
  return rows;
}

const deleteEntriesSql = preparedOnPostgres('delete from rollup_queue where seq = any($1::bigint[])');

/** Deletes the batch's entries from the queue; returns how many were still there. */
export async function deleteEntries(trx: Executor, entries: ReadonlyArray<QueuedEntry>): Promise<number> {
  const seqs = entries.map((entry) => entry.seq);
  // SQLite has no arrays: a list of as many parameters (its statement cache keeps each length's).
  const query =
    dialectOf(trx) === 'postgres'
      ? CompiledQuery.raw(deleteEntriesSql, [seqs])
      : trx.deleteFrom('rollup_queue').where('seq', 'in', seqs).compile();
  const { numAffectedRows } = await trx.executeQuery(query);
  return Number(numAffectedRows ?? 0);
}

/** The columns of a page view that its rollups depend on and no update changes. */
type FixedColumn =
  'id' | 'article_id' | 'created_at' | 'source' | 'event_count' | 'test' | (typeof breakdownColumns)[number];
export type FixedColumns = Pick<PageViewTable, FixedColumn>;

/**
 * The fixed columns of the page views of `entries` that still exist, with their article's slug
 * (null once removed), found by their (project, day, id) key: in page_view_rows, or for one not moved
 * there yet (queued by an older release), in page_views.
 */
export async function queuedPageViews(
  db: Executor,
  dialect: DialectName,
  entries: KeyedEntries,
): Promise<Map<string, FixedColumns & { slug: string | null }>> {
  const views = new Map<string, FixedColumns & { slug: string | null }>();
  for (let start = 0; start < entries.length; start += 1000) {
    const chunk = entries.slice(start, start + 1000);
    const { rows } = await db.executeQuery(queuedPageViewsQuery(db, dialect, chunk));
    const decoded = rows.map((row) =>
      Object.assign(fromPageViewRow(row, { project: row.project_id, article: row.article_id }), {
        slug: row.slug,
      }),
    );
    for (const row of await withPageViewStrings(db, decoded)) views.set(row.id, row);
    const left = chunk.filter((entry) => !views.has(entry.page_view_id));
    if (left.length === 0) continue;
    const { rows: legacy } = await db.executeQuery(legacyPageViewsQuery(db, dialect, left));
    for (const row of await withPageViewStrings(db, legacy)) views.set(row.id, row);
  }
  return views;
}

type KeyedEntries = Array<Pick<QueuedEntry, 'page_view_id' | 'project_id' | 'day'>>;

type QueuedRow = PageViewRowTable & { project_id: string; article_id: string; slug: string | null };

/**
 * The statement reading the page views of `entries` with their articles' slugs, each looked up by
 * its whole key. On PostgreSQL each alone, in a lateral join: found among lists of projects, days and
 * ids, PostgreSQL read every page view of the batch's days and filtered the ids, 10 to 20 ms a batch
 * of 500 at 20,000 views a day, growing with them.
 */
export function queuedPageViewsQuery(
  db: Executor,
  dialect: DialectName,
  entries: KeyedEntries,
): CompiledQuery<QueuedRow> {
  // An entry whose id this release does not make (one queued by an older release, whose page view
  // is still in page_views) is looked up there only.
  const keys = entries.flatMap((entry) => {
    const key = keyOfPageViewId(entry.page_view_id);
    return key === null ? [] : [{ ...entry, ...key, rid: bytesParameter(key.rid, dialect) }];
  });
  if (dialect !== 'postgres') {
    const list = (values: unknown[]) => sql.join(values.length === 0 ? [null] : [...new Set(values)]);
    return sql<QueuedRow>`select r.*, p.project_id, n.article_id, a.slug
      from page_view_rows as r join project_nums as p on p.num = r.project_num
        join article_nums as n on n.num = r.article_num left join articles as a on a.id = n.article_id
      where p.project_id in (${list(keys.map((key) => key.project_id))})
        and r.day in (${list(keys.map((key) => key.day))})
        and r.created_ms in (${list(keys.map((key) => key.createdMs))})
        and r.rid in (${list(keys.map((key) => key.rid))})`.compile(db);
  }
  const query = sql<QueuedRow>`
    select r.*, k.project_id, n.article_id, a.slug
    from unnest(${keys.map((key) => key.rid)}::uuid[], ${keys.map((key) => key.project_id)}::text[],
        ${keys.map((key) => key.day)}::date[], ${keys.map((key) => key.createdMs)}::int4[])
        as k(rid, project_id, day, created_ms)
      join project_nums as p on p.project_id = k.project_id
      cross join lateral (select * from page_view_rows
        where page_view_rows.project_num = p.num and page_view_rows.day = k.day
          and page_view_rows.created_ms = k.created_ms and page_view_rows.rid = k.rid
        limit 1) as r
      join article_nums as n on n.num = r.article_num
      left join articles as a on a.id = n.article_id`.compile(db);
  return CompiledQuery.raw(preparedOnPostgres(query.sql), [...query.parameters]) as CompiledQuery<QueuedRow>;
}

/** The page views of `entries` and their articles' slugs, among lists of their projects, days and ids. */
function pageViewsByLists(db: Executor, entries: KeyedEntries) {
  return (
    db
      .selectFrom('page_views')
      .leftJoin('articles', 'articles.id', 'page_views.article_id')
      // Every column: the strings are ids, or in a table not yet converted, the values themselves.
      .selectAll('page_views')
      .select('articles.slug')
      .where('page_views.project_id', 'in', [...new Set(entries.map((entry) => entry.project_id))])
      .where('page_views.day', 'in', [...new Set(entries.map((entry) => entry.day))])
      .where('page_views.id', 'in', [...new Set(entries.map((entry) => entry.page_view_id))])
  );
}

type LegacyRow = InferResult<ReturnType<typeof pageViewsByLists>>[number];

/** The page views of `entries` still in page_views (any layout), each looked up by its whole key. */
function legacyPageViewsQuery(
  db: Executor,
  dialect: DialectName,
  entries: KeyedEntries,
): CompiledQuery<LegacyRow> {
  if (dialect !== 'postgres') return pageViewsByLists(db, entries).compile();
  return sql<LegacyRow>`
    select p.*, a.slug
    from unnest(${entries.map((entry) => entry.page_view_id)}::text[],
        ${entries.map((entry) => entry.project_id)}::text[],
        ${entries.map((entry) => entry.day)}::text[]) as k(id, project_id, day)
      ${sql.raw(typedAs('t', { day: 'k.day' }))}
      ${sql.raw(pageViewOfKey('p', { projectId: 'k.project_id', day: 't.day', id: 'k.id' }))}
      left join articles as a on a.id = p.article_id`.compile(db);
}
