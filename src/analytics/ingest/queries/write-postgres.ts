// The page-view writes on PostgreSQL: every column of a batch is sent as one array and expanded by
// unnest(), so that a batch costs the same few round trips whatever its size. New page views are
// one statement: the insert, resolving the slugs, and in a data-modifying WITH clause their
// rollup-queue entries.
import { CompiledQuery } from 'kysely';
import { preparedOnPostgres } from '../../../db/database.ts';
import { columnArrays, unnestArrays } from '../../../db/dialect-sql.ts';
import { pageViewOfKey, typedAs } from '../../../db/page-view-lookups.ts';
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

const typedColumns = new Set(['day', 'created_at', 'updated_at']);
/**
 * A day given as text, as the type of page_views.day. Parameters are typed explicitly, never by the
 * column they meet: a prepared statement keeps the types of its parameters through the swap.
 */
function typedDay(text: string): string {
  return `(select d.day from json_populate_record(null::page_views, json_build_object('day', ${text})) as d)`;
}
/** The days of a text array parameter, as an array of the type of page_views.day. */
function typedDays(parameter: string): string {
  return `array(select d.day from unnest(${parameter}::text[]) as x(day) ${typedAs('d', { day: 'x.day' })})`;
}

/**
 * The page views of the `keys` CTE (project_id, day, id, in id order), as a join named `p`: each
 * looked up alone by its whole key (pageViewOfKey) and locked, within the days of the parameters
 * `first` and `last` (text), which prune the other month partitions as the statement starts.
 */
function lockedByKey(first: string, last: string): string {
  return `from keys ${pageViewOfKey(
    'p',
    { projectId: 'keys.project_id', day: 'keys.day', id: 'keys.id' },
    { within: ` and page_views.day between ${typedDay(first)} and ${typedDay(last)}`, lock: true },
  )}`;
}

// The new page views are `input`; `article_id` comes from the slug (rows without an article are
// not inserted, and the caller answers 404 for them). The rows are limited to their own number, the
// last parameter: it changes nothing of the rows, but a limit PostgreSQL does not know makes it
// expect a tenth of them, so that the generic plan (ten rows from the arrays, then one) costs what a
// batch's custom plan does and is kept once prepared. Without it every run was planned again, the
// custom plan counting the arrays' real length: 0.36 to 0.45 ms of PostgreSQL's CPU a POST, twice
// the insert itself.
const inputColumns = [...pageViewColumns.filter((column) => column !== 'article_id'), 'slug'] as const;
const measureColumns = ['time_on_page_ms', 'scroll_depth_centi', 'exit_position', 'bounced', 'event_count'];
const measures = measureColumns.join(', ');
const insertSql = preparedOnPostgres(
  `with inserted as (
  insert into page_views (${pageViewColumns.join(', ')})
  select ${pageViewColumns
    .map((column) =>
      column === 'article_id' ? 'a.id' : typedColumns.has(column) ? `t.${column}` : `u.${column}`,
    )
    .join(', ')}
  from (select * from ${unnestArrays(
    inputColumns.map((column) => (column === 'slug' ? 'text' : columnTypes[column])),
    inputColumns,
  )} limit $${inputColumns.length + 1}) as u
  join articles as a on a.project_id = u.project_id and a.slug = u.slug
  ${typedAs('t', { day: 'u.day', created_at: 'u.created_at', updated_at: 'u.updated_at' })}
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
    .map((column) => `${column} = ${typedColumns.has(column) ? 't' : 'u'}.${column}`)
    .join(', ')}
  from ${unnestArrays(
    updateColumns.map((column) => columnTypes[column]),
    updateColumns,
  )}
  ${typedAs('t', { day: 'u.day', updated_at: 'u.updated_at' })}
  where p.project_id = u.project_id and p.day = t.day and p.id = u.id
)
insert into rollup_queue (${queueColumns.join(', ')})
select * from ${unnestArrays(
    queueColumns.map((column) => queueTypes[column]),
    queueColumns,
    updateColumns.length,
  )}`,
);

// Each key of the projects, days and ids given is looked up alone and locked (lockedByKey), in id
// order, within the first and last day too, so that the other month partitions are pruned. The
// days are given as an array of the column's own type (text or date, by layout); the days and times
// read are of one type on both layouts, since a prepared statement's columns may not change type.
const lockSql = preparedOnPostgres(
  `with keys as materialized (
    select k.project_id, d.day, i.id from unnest($1::text[]) as k(project_id)
      cross join unnest(${typedDays('$2')}) as d(day) cross join unnest($3::text[]) as i(id)
    order by i.id
  )
  select ${storedColumns.map((column) => (column === 'day' ? 'cast(p.day as text) as day' : column === 'created_at' || column === 'updated_at' ? `cast(p.${column} as timestamptz) as ${column}` : `p.${column}`)).join(', ')}
  ${lockedByKey('$4::text', '$5::text')}
  order by p.id`,
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
const soleTypes: Record<(typeof soleColumns)[number], string> = {
  id: 'text',
  project_id: 'text',
  day: 'text',
  now: 'text',
  oldest: 'text',
  time_on_page_ms: 'int8',
  scroll_depth_centi: 'int4',
  exit_position: 'float8',
  bounced: 'int4',
  events: 'text',
  added: 'int4',
};
const soleMeasures = measureColumns;
const updateAloneSql = preparedOnPostgres(
  // Each page view is looked up alone by its whole key and locked (lockedByKey), in id order as
  // lockSql does, within the batch's first and last day: a range of parameters lets the month
  // partitions outside it be pruned as the statement starts (an array's members do not). Found by
  // the arrays of ids, projects and days instead, the range of days became the index's condition
  // and the ids a filter: every page view of the project in those days was read (18 ms a batch with
  // 24,000 of them in the day). Joined with the rows asked, the generic plan that a prepared
  // statement takes from its sixth run read the month's partition whole and hashed it: the range's
  // default selectivity makes a small partition look cheaper read whole (0.9 ms a PUT of
  // PostgreSQL's CPU at 1,600 page views in the month).
  `with u as (select * from ${unnestArrays(
    soleColumns.map((column) => soleTypes[column]),
    soleColumns,
  )}),
keys as materialized (
  select u.project_id, k.day, u.id from u ${typedAs('k', { day: 'u.day' })} order by u.id
), old as (
  select p.id, p.project_id, p.day, p.created_at, p.events, ${soleMeasures.map((column) => `p.${column}`).join(', ')}
  ${lockedByKey(`$${soleColumns.length + 2}::text`, `$${soleColumns.length + 3}::text`)}
), matched as (
  select u.*, o.day as stored_day, ${['created_at', 'events', ...soleMeasures].map((column) => `o.${column} as was_${column}`).join(', ')}
  from u join old as o on o.id = u.id and o.project_id = u.project_id and cast(o.day as text) = u.day
), updated as (
  update page_views as p set
    updated_at = t.updated_at,
    time_on_page_ms = greatest(m.was_time_on_page_ms, coalesce(m.time_on_page_ms, 0)),
    scroll_depth_centi = greatest(m.was_scroll_depth_centi, coalesce(m.scroll_depth_centi, 0)),
    exit_position = coalesce(m.exit_position, m.was_exit_position),
    bounced = coalesce(m.bounced, m.was_bounced),
    event_count = m.was_event_count + m.added,
    events = case when m.added = 0 then m.was_events when m.was_events = '[]' then m.events
      else left(m.was_events, -1) || ',' || substr(m.events, 2) end
  from matched as m ${typedAs('t', { updated_at: 'm.now' })}
  where p.day between ${typedDay(`$${soleColumns.length + 2}::text`)} and ${typedDay(`$${soleColumns.length + 3}::text`)}
    and p.project_id = m.project_id and p.day = m.stored_day and p.id = m.id
    and m.was_created_at::timestamptz >= m.oldest::timestamptz
    and m.was_event_count + m.added <= $${soleColumns.length + 1}
  returning p.id, p.project_id, p.day, ${soleMeasures.map((column) => `p.${column}`).join(', ')}
), queued as (
  insert into rollup_queue (${queueColumns.join(', ')})
  select n.id, n.project_id, n.day, 0, ${soleMeasures.map((column) => `n.${column}`).join(', ')},
    ${soleMeasures.map((column) => `m.was_${column}`).join(', ')}
  from updated as n join matched as m on m.id = n.id
)
select u.id,
  case when m.id is null then 'missing' when n.id is not null then 'updated'
    when m.was_created_at::timestamptz < m.oldest::timestamptz then 'expired' else 'events' end as outcome,
  m.was_event_count as event_count
from u left join matched as m on m.id = u.id left join updated as n on n.id = u.id`,
);

function run(db: Executor, text: string, parameters: unknown[]) {
  return db.executeQuery(CompiledQuery.raw(text, parameters));
}

export const postgresStore: WriteStore = {
  begin: 'begin',
  createsInOneStatement: true,

  async lockPageViews(db, { projectIds, days, ids }) {
    if (ids.length === 0) return [];
    const result = await run(db, lockSql, [projectIds, days, ids, days[0], days[days.length - 1]]);
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
    const days = rows.map((row) => row.day).sort();
    const result = await run(db, updateAloneSql, [
      ...columnArrays(rows, soleColumns),
      maxEvents,
      days[0],
      days[days.length - 1],
    ]);
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
    const result = await run(db, insertSql, [...columnArrays(rows, inputColumns), rows.length]);
    return new Map(
      (result.rows as Array<{ id: string; article_id: string }>).map((row) => [row.id, row.article_id]),
    );
  },
};
