// The page-view writes on PostgreSQL: every column of a batch is sent as one array and expanded by
// unnest(), so that a batch costs the same few round trips whatever its size. New page views are
// one statement: the insert, resolving the slugs, and in a data-modifying WITH clause their
// rollup-queue entries.
import { CompiledQuery } from 'kysely';
import { preparedOnPostgres } from '../../../db/database.ts';
import { columnArrays, unnestArrays } from '../../../db/dialect-sql.ts';
import { stringIds, stringsOf, withStringIds } from '../../../db/page-view-strings.ts';
import {
  type Executor,
  type NewPageView,
  pageViewColumns,
  type SoleUpdate,
  type SoleUpdateOutcome,
  queueColumns,
  queueEntryOf,
  type StoredPageView,
  storedColumns,
  type WriteStore,
} from './write-store.ts';

/** PostgreSQL types of the page-view columns, for the arrays given to unnest(). */
const columnTypes: Record<(typeof pageViewColumns)[number], string> = {
  id: 'text',
  project_id: 'text',
  article_id: 'text',
  day: 'text',
  created_at: 'text',
  updated_at: 'text',
  visitor_id: 'text',
  session_id: 'text',
  source: 'text',
  country: 'text',
  time_on_page_ms: 'int8',
  scroll_depth_centi: 'int4',
  exit_position: 'float8',
  bounced: 'int4',
  screen_width: 'int4',
  screen_height: 'int4',
  event_count: 'int4',
  page_url_id: 'int4',
  page_title_id: 'int4',
  referrer_id: 'int4',
  utm_source_id: 'int4',
  utm_medium_id: 'int4',
  utm_campaign_id: 'int4',
  utm_term_id: 'int4',
  utm_content_id: 'int4',
  events: 'text',
  test: 'int4',
};

// The new page views are `input`; `article_id` comes from the slug (rows without an article are
// not inserted, and the caller answers 404 for them).
const inputColumns = [...pageViewColumns.filter((column) => column !== 'article_id'), 'slug'] as const;
const measures = 'time_on_page_ms, scroll_depth_centi, exit_position, bounced, event_count';
const insertSql = preparedOnPostgres(
  `with inserted as (
  insert into page_views (${pageViewColumns.join(', ')})
  select ${pageViewColumns.map((column) => (column === 'article_id' ? 'a.id' : `u.${column}`)).join(', ')}
  from ${unnestArrays(
    inputColumns.map((column) => (column === 'slug' ? 'text' : columnTypes[column])),
    inputColumns,
  )}
  join articles as a on a.project_id = u.project_id and a.slug = u.slug
  returning id, project_id, article_id, day, ${measures}
), queued as (
  insert into rollup_queue (page_view_id, project_id, day, created, ${measures})
  select id, project_id, day, 1, ${measures} from inserted
)
select id, article_id from inserted`,
);

/** The key of the updated rows, then the columns an update sets. */
const updateKey = ['id', 'project_id', 'day'] as const;
const updateColumns = [
  ...updateKey,
  'updated_at',
  'time_on_page_ms',
  'scroll_depth_centi',
  'exit_position',
  'bounced',
  'event_count',
  'events',
] as const satisfies ReadonlyArray<keyof StoredPageView>;

const queueTypes: Record<(typeof queueColumns)[number], string> = {
  page_view_id: 'text',
  project_id: 'text',
  day: 'text',
  created: 'int4',
  time_on_page_ms: 'int8',
  scroll_depth_centi: 'int4',
  exit_position: 'float8',
  bounced: 'int4',
  event_count: 'int4',
  was_time_on_page_ms: 'int8',
  was_scroll_depth_centi: 'int4',
  was_exit_position: 'float8',
  was_bounced: 'int4',
  was_event_count: 'int4',
};

// Parameters: the updated rows, then their queue entries.
const updateSql = preparedOnPostgres(
  `with updated as (
  update page_views as p set ${updateColumns
    .slice(updateKey.length)
    .map((column) => `${column} = u.${column}`)
    .join(', ')}
  from ${unnestArrays(
    updateColumns.map((column) => columnTypes[column]),
    updateColumns,
  )}
  where p.project_id = u.project_id and p.day = u.day and p.id = u.id
)
insert into rollup_queue (${queueColumns.join(', ')})
select * from ${unnestArrays(
    queueColumns.map((column) => queueTypes[column]),
    queueColumns,
    updateColumns.length,
  )}`,
);

const lockSql = preparedOnPostgres(
  `select ${storedColumns.join(', ')} from page_views
  where project_id = any($1::text[]) and day = any($2::text[]) and id = any($3::text[]) order by id for update`,
);

// Updates of distinct page views, in one statement: the rows read and locked (`old`), patched as
// page-view-writer.ts's applyPatch does those it reads (the larger time and depth, exit and bounce
// replaced when sent, events appended), each with its queue entry, and what became of each asked:
// refused as missing (no such row in the project), expired (created before `oldest`) or for its
// events (too many), in that order. The rows are locked before anything is written, as a batch in
// a transaction does, and a row another instance changed meanwhile is read as that one left it.
const soleColumns = [
  'id',
  'project_id',
  'day',
  'now',
  'oldest',
  'time_on_page_ms',
  'scroll_depth_centi',
  'exit_position',
  'bounced',
  'events',
  'added',
] as const;
const soleTypes = ['text', 'text', 'text', 'text', 'text', 'int8', 'int4', 'float8', 'int4', 'text', 'int4'];
const soleMeasures = ['time_on_page_ms', 'scroll_depth_centi', 'exit_position', 'bounced', 'event_count'];
const updateAloneSql = preparedOnPostgres(
  `with u as (select * from ${unnestArrays(soleTypes, soleColumns)}),
old as (
  select p.id, p.created_at, p.events, ${soleMeasures.map((column) => `p.${column}`).join(', ')}
  from page_views as p join u on p.project_id = u.project_id and p.day = u.day and p.id = u.id
  order by p.id for update of p
), updated as (
  update page_views as p set
    updated_at = u.now,
    time_on_page_ms = greatest(o.time_on_page_ms, coalesce(u.time_on_page_ms, 0)),
    scroll_depth_centi = greatest(o.scroll_depth_centi, coalesce(u.scroll_depth_centi, 0)),
    exit_position = coalesce(u.exit_position, o.exit_position),
    bounced = coalesce(u.bounced, o.bounced),
    event_count = o.event_count + u.added,
    events = case when u.added = 0 then o.events when o.events = '[]' then u.events
      else left(o.events, -1) || ',' || substr(u.events, 2) end
  from u join old as o on o.id = u.id
  where p.project_id = u.project_id and p.day = u.day and p.id = u.id
    and o.created_at::timestamptz >= u.oldest::timestamptz and o.event_count + u.added <= $${soleColumns.length + 1}
  returning p.id, p.project_id, p.day, ${soleMeasures.map((column) => `p.${column}`).join(', ')}
), queued as (
  insert into rollup_queue (${queueColumns.join(', ')})
  select n.id, n.project_id, n.day, 0, ${soleMeasures.map((column) => `n.${column}`).join(', ')},
    ${soleMeasures.map((column) => `o.${column}`).join(', ')}
  from updated as n join old as o on o.id = n.id
)
select u.id,
  case when o.id is null then 'missing' when n.id is not null then 'updated'
    when o.created_at::timestamptz < u.oldest::timestamptz then 'expired' else 'events' end as outcome,
  o.event_count
from u left join old as o on o.id = u.id left join updated as n on n.id = u.id`,
);

function run(db: Executor, text: string, parameters: unknown[]) {
  return db.executeQuery(CompiledQuery.raw(text, parameters));
}

export const postgresStore: WriteStore = {
  begin: 'begin',
  createsInOneStatement: true,

  async lockPageViews(db, { projectIds, days, ids }) {
    if (ids.length === 0) return [];
    const result = await run(db, lockSql, [projectIds, days, ids]);
    return (result.rows as StoredPageView[]).map((row) => ({
      ...row,
      time_on_page_ms: Number(row.time_on_page_ms),
    }));
  },

  async updatePageViews(db, updates) {
    if (updates.length === 0) return;
    const entries = updates.map(({ before, after }) => queueEntryOf(after, before));
    await run(db, updateSql, [
      ...columnArrays(
        updates.map(({ after }) => after),
        updateColumns,
      ),
      ...columnArrays(entries, queueColumns),
    ]);
  },

  async updateAlone(db, updates: SoleUpdate[], maxEvents: number): Promise<SoleUpdateOutcome[]> {
    const rows = updates.map((update) => ({
      id: update.id,
      project_id: update.projectId,
      day: update.day,
      now: update.now,
      oldest: update.oldest,
      time_on_page_ms: update.timeOnPageMs,
      scroll_depth_centi: update.scrollDepthCenti,
      exit_position: update.exitPosition,
      bounced: update.bounced,
      events: update.events,
      added: update.added,
    }));
    const result = await run(db, updateAloneSql, [...columnArrays(rows, soleColumns), maxEvents]);
    const byId = new Map(
      (
        result.rows as Array<{
          id: string;
          outcome: SoleUpdateOutcome['outcome'];
          event_count: number | null;
        }>
      ).map((row) => [row.id, row]),
    );
    return updates.map((update): SoleUpdateOutcome => {
      const row = byId.get(update.id)!;
      return row.outcome === 'events'
        ? { outcome: 'events', eventCount: Number(row.event_count) }
        : { outcome: row.outcome };
    });
  },

  async insertPageViews(db, views: NewPageView[], strings) {
    if (views.length === 0) return new Map();
    // Strings seen before cost no statement; new ones one more round trip, committed by itself
    // when the batch has no transaction (a view then failing leaves an unused string, no harm).
    const ids = await stringIds(
      db,
      views.flatMap(({ row }) => stringsOf(row)),
      strings,
    );
    const rows = views.map(({ row, slug }) => ({ ...withStringIds(row, ids), slug }));
    const result = await run(db, insertSql, columnArrays(rows, inputColumns));
    return new Map(
      (result.rows as Array<{ id: string; article_id: string }>).map((row) => [row.id, row.article_id]),
    );
  },
};
