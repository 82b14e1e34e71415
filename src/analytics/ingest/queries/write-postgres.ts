// The page-view writes on PostgreSQL: every column of a batch is sent as one array and expanded by
// unnest(), so that a batch costs the same few round trips whatever its size. New page views are
// one statement: the insert, resolving the slugs and the numbers of their projects and articles, and
// in a data-modifying WITH clause their rollup-queue entries. Rows are page_view_rows' (migration
// 0040, db/page-view-rows.ts); a page view an older release stored in page_views is moved there by
// the first update that finds it missing.
import { CompiledQuery } from 'kysely';
import { preparedOnPostgres } from '../../../db/database.ts';
import { columnArrays, unnestArrays } from '../../../db/dialect-sql.ts';
import { moveLegacyPageViewsOf } from '../../../db/page-view-move.ts';
import {
  bytesParameter,
  epochOf,
  fromPageViewRow,
  keyOfPageViewId,
  pageViewRowColumns,
  toPageViewRow,
} from '../../../db/page-view-rows.ts';
import { stringIds, stringsOf, withStringIds } from '../../../db/page-view-strings.ts';
import type { PageViewRowTable } from '../../../db/schema.ts';
import {
  type Executor,
  inTransaction,
  type NewPageView,
  type SoleUpdate,
  type SoleUpdateOutcome,
  queueColumns,
  queueEntryOf,
  storedOf,
  type WriteStore,
} from './write-store.ts';

/** PostgreSQL types of page_view_rows' columns, for the arrays given to unnest(). */
const rowTypes: Record<(typeof pageViewRowColumns)[number], string> = {
  project_num: 'int4',
  day: 'date',
  rid: 'uuid',
  article_num: 'int4',
  created_ms: 'int4',
  updated_ms: 'int4',
  visitor: 'uuid',
  session: 'uuid',
  source: 'int2',
  test: 'int2',
  country: 'text',
  time_on_page_ms: 'int4',
  scroll_depth_centi: 'int2',
  exit_position: 'float8',
  bounced: 'int2',
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
  id_text: 'text',
  visitor_text: 'text',
  session_text: 'text',
};

const measureColumns = ['time_on_page_ms', 'scroll_depth_centi', 'exit_position', 'bounced', 'event_count'];
const measures = measureColumns.join(', ');

/**
 * The page views of the keys of `keys` (a CTE of id, project_num, day, created_ms, rid, in id order), each looked
 * up alone by its whole key and locked, as a join named `r`, within the days of the parameters
 * `first` and `last`, which prune the other month partitions as the statement starts: a subquery
 * with a limit is not merged into a join. Compared with lists of projects, days and ids,
 * PostgreSQL made the days the index's condition and the ids a filter, reading every page view of
 * those days.
 */
function lockedByKey(first: string, last: string): string {
  return `from keys cross join lateral (
    select * from page_view_rows
    where page_view_rows.project_num = keys.project_num and page_view_rows.day = keys.day
      and page_view_rows.created_ms = keys.created_ms and page_view_rows.rid = keys.rid
      and page_view_rows.day between ${first} and ${last}
    limit 1 for update
  ) as r`;
}

// The new page views are `u`; their article comes from the slug (rows without an article are not
// inserted, and the caller answers 404 for them). The rows are limited to their own number, the
// last parameter: it changes nothing of the rows, but a limit PostgreSQL does not know makes it
// expect a tenth of them, so that the generic plan (ten rows from the arrays, then one) costs what a
// batch's custom plan does and is kept once prepared. Without it every run was planned again, the
// custom plan counting the arrays' real length: 0.36 to 0.45 ms of PostgreSQL's CPU a POST, twice
// the insert itself.
const inputColumns = [
  ...pageViewRowColumns.filter((column) => column !== 'project_num' && column !== 'article_num'),
  'id',
  'project_id',
  'slug',
] as const;
const inputTypes = inputColumns.map((column) =>
  column === 'id' || column === 'project_id' || column === 'slug' ? 'text' : rowTypes[column],
);
const insertSql = preparedOnPostgres(
  `with u as materialized (
  select * from ${unnestArrays(inputTypes, inputColumns)} limit $${inputColumns.length + 1}
), inserted as (
  insert into page_view_rows (${pageViewRowColumns.join(', ')})
  select ${pageViewRowColumns
    .map((column) =>
      column === 'project_num' ? 'p.num' : column === 'article_num' ? 'n.num' : `u.${column}`,
    )
    .join(', ')}
  from u join articles as a on a.project_id = u.project_id and a.slug = u.slug
    join article_nums as n on n.article_id = a.id
    join project_nums as p on p.project_id = u.project_id
  returning rid, article_num, ${measures}
), queued as (
  insert into rollup_queue (page_view_id, project_id, day, created, ${measures})
  select u.id, u.project_id, cast(u.day as text), 1, ${measureColumns.map((column) => `i.${column}`).join(', ')}
  from inserted as i join u on u.rid = i.rid
)
select u.id, n.article_id from inserted as i join u on u.rid = i.rid join article_nums as n on n.num = i.article_num`,
);

/** The key of the updated rows, then the columns an update sets. */
const updateColumns = [
  'project_id',
  'day',
  'created_ms',
  'rid',
  'updated_ms',
  'time_on_page_ms',
  'scroll_depth_centi',
  'exit_position',
  'bounced',
  'event_count',
  'events',
] as const;
const updateTypes = updateColumns.map((column) => (column === 'project_id' ? 'text' : rowTypes[column]));

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
  `with k as materialized (
  select u.*, p.num as project_num from ${unnestArrays(updateTypes, updateColumns)}
    join project_nums as p on p.project_id = u.project_id
), updated as (
  update page_view_rows as r set ${updateColumns
    .slice(4)
    .map((column) => `${column} = k.${column}`)
    .join(', ')}
  from k where r.project_num = k.project_num and r.day = k.day and r.created_ms = k.created_ms and r.rid = k.rid
)
insert into rollup_queue (${queueColumns.join(', ')})
select * from ${unnestArrays(
    queueColumns.map((column) => queueTypes[column]),
    queueColumns,
    updateColumns.length,
  )}`,
);

// Each key of the projects, days and ids given is looked up alone and locked (lockedByKey), in id
// order, within the first and last day too, so that the other month partitions are pruned.
const lockSql = preparedOnPostgres(
  `with keys as materialized (
    select i.id, p.project_id, p.num as project_num, i.day, i.created_ms, i.rid from unnest($1::text[]) as k(project_id)
      join project_nums as p on p.project_id = k.project_id
      cross join unnest($2::text[], $3::date[], $4::int4[], $5::uuid[]) as i(id, day, created_ms, rid)
    order by i.id
  )
  select keys.project_id, n.article_id, r.*
  ${lockedByKey('$6::date', '$7::date')}
  join article_nums as n on n.num = r.article_num
  order by keys.id`,
);

// Updates of distinct page views, in one statement: the rows read and locked (\`old\`), patched as
// page-view-writer.ts's applyPatch does those it reads (the larger time and depth, exit and bounce
// replaced when sent, events appended), each with its queue entry, and what became of each asked:
// refused as missing (no such row in the project), expired (created before \`oldest_ms\`) or for its
// events (too many), in that order. The rows are locked before anything is written, as a batch in
// a transaction does, and a row another instance changed meanwhile is read as that one left it.
const soleColumns = [
  'id',
  'project_id',
  'day',
  'created_ms',
  'rid',
  'day_start_ms',
  'now_ms',
  'oldest_ms',
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
  day: 'date',
  created_ms: 'int4',
  rid: 'uuid',
  day_start_ms: 'int8',
  now_ms: 'int8',
  oldest_ms: 'int8',
  time_on_page_ms: 'int4',
  scroll_depth_centi: 'int2',
  exit_position: 'float8',
  bounced: 'int2',
  events: 'text',
  added: 'int4',
};
const soleMeasures = measureColumns;
const first = `$${soleColumns.length + 2}::date`;
const last = `$${soleColumns.length + 3}::date`;
const updateAloneSql = preparedOnPostgres(
  // Each page view is looked up alone by its whole key and locked (lockedByKey), in id order as
  // lockSql does, within the batch's first and last day: a range of parameters lets the month
  // partitions outside it be pruned as the statement starts (an array's members do not). Found by
  // the arrays of ids, projects and days instead, the range of days became the index's condition
  // and the ids a filter: every page view of the project in those days was read (18 ms a batch with
  // 24,000 of them in the day). Joined with the rows asked, the generic plan that a prepared
  // statement takes from its sixth run read the month's partition whole and hashed it: the range's
  // default selectivity makes a small partition look cheaper read whole (0.9 ms a PUT of
  // PostgreSQL's CPU at 1,600 page views in the month). The rows asked are limited to their own
  // number (the last parameter), as the insert's are: without it the custom plan of one row always
  // looked cheaper than the generic plan of the arrays, and every PUT was planned again (0.69 ms of
  // PostgreSQL's CPU each, pg_stat_statements with track_planning, rate bench at 50 views/s).
  `with u as materialized (select * from ${unnestArrays(
    soleColumns.map((column) => soleTypes[column]),
    soleColumns,
  )} limit $${soleColumns.length + 4}),
keys as materialized (
  select u.id, p.num as project_num, u.day, u.created_ms, u.rid from u join project_nums as p on p.project_id = u.project_id
  order by u.id
), old as (
  select keys.id, r.project_num, r.created_ms, r.events, ${soleMeasures.map((column) => `r.${column}`).join(', ')}
  ${lockedByKey(first, last)}
), matched as (
  select u.*, o.project_num, o.created_ms as was_created_ms, ${['events', ...soleMeasures].map((column) => `o.${column} as was_${column}`).join(', ')}
  from u join old as o on o.id = u.id
), updated as (
  update page_view_rows as r set
    updated_ms = m.now_ms - m.day_start_ms - m.was_created_ms,
    time_on_page_ms = greatest(m.was_time_on_page_ms, coalesce(m.time_on_page_ms, 0)),
    scroll_depth_centi = greatest(m.was_scroll_depth_centi, coalesce(m.scroll_depth_centi, 0)),
    exit_position = coalesce(m.exit_position, m.was_exit_position),
    bounced = coalesce(m.bounced, m.was_bounced),
    event_count = m.was_event_count + m.added,
    events = case when m.added = 0 then m.was_events when m.was_events is null then m.events
      else left(m.was_events, -1) || ',' || substr(m.events, 2) end
  from matched as m
  where r.day between ${first} and ${last}
    and r.project_num = m.project_num and r.day = m.day and r.created_ms = m.created_ms and r.rid = m.rid
    and m.day_start_ms + m.was_created_ms >= m.oldest_ms
    and m.was_event_count + m.added <= $${soleColumns.length + 1}
  returning r.rid, ${soleMeasures.map((column) => `r.${column}`).join(', ')}
), queued as (
  insert into rollup_queue (${queueColumns.join(', ')})
  select m.id, m.project_id, cast(m.day as text), 0, ${soleMeasures.map((column) => `n.${column}`).join(', ')},
    ${soleMeasures.map((column) => `m.was_${column}`).join(', ')}
  from updated as n join matched as m on m.rid = n.rid
)
select u.id,
  case when m.id is null then (case when exists (select 1 from page_views as l
      where l.project_id = u.project_id and l.id = u.id
        and l.day = (select d.day from json_populate_record(null::page_views, json_build_object('day', u.day)) as d))
    then 'legacy' else 'missing' end)
    when n.rid is not null then 'updated'
    when m.day_start_ms + m.was_created_ms < m.oldest_ms then 'expired' else 'events' end as outcome,
  m.was_event_count as event_count
from u left join matched as m on m.id = u.id left join updated as n on n.rid = u.rid`,
);

function run(db: Executor, text: string, parameters: unknown[]) {
  return db.executeQuery(CompiledQuery.raw(text, parameters));
}

type Keys = { projectIds: string[]; days: string[]; ids: string[] };

/**
 * Moves the page views of `keys` still in page_views, in a transaction of its own on the batch's
 * connection (an update alone runs outside one).
 */
function moveLegacyAlone(db: Executor, keys: Keys): Promise<number> {
  return inTransaction(db, 'begin', () => moveLegacyPageViewsOf(db, 'postgres', keys));
}

export const postgresStore: WriteStore = {
  begin: 'begin',
  createsInOneStatement: true,

  async lockPageViews(db, keys) {
    const { projectIds } = keys;
    // An id this release does not make names no page view (page_view_rows keeps them as text).
    const known = keys.ids.flatMap((id) => {
      const key = keyOfPageViewId(id);
      return key === null ? [] : [{ id, ...key }];
    });
    if (known.length === 0) return [];
    const days = known.map((key) => key.day).sort();
    const read = async () =>
      (
        await run(db, lockSql, [
          projectIds,
          known.map((key) => key.id),
          known.map((key) => key.day),
          known.map((key) => key.createdMs),
          known.map((key) => bytesParameter(key.rid, 'postgres')),
          days[0],
          days[days.length - 1],
        ])
      ).rows.map((row) => {
        const stored = row as PageViewRowTable & { project_id: string; article_id: string };
        return storedOf(fromPageViewRow(stored, { project: stored.project_id, article: stored.article_id }));
      });
    const rows = await read();
    // Stored by an older release and not moved yet: moved now, in the batch's transaction.
    if (rows.length < known.length && (await moveLegacyPageViewsOf(db, 'postgres', keys)) > 0) return read();
    return rows;
  },

  async updatePageViews(db, updates) {
    if (updates.length === 0) return;
    const entries = updates.map(({ before, after }) => queueEntryOf(after, before));
    const rows = updates.map(({ after }) => {
      const key = keyOfPageViewId(after.id)!;
      return {
        project_id: after.project_id,
        day: key.day,
        created_ms: key.createdMs,
        rid: bytesParameter(key.rid, 'postgres'),
        updated_ms: Date.parse(after.updated_at) - Date.parse(after.created_at),
        time_on_page_ms: after.time_on_page_ms,
        scroll_depth_centi: after.scroll_depth_centi,
        exit_position: after.exit_position,
        bounced: after.bounced,
        event_count: after.event_count,
        events: after.events === '[]' ? null : after.events,
      };
    });
    await run(db, updateSql, [...columnArrays(rows, updateColumns), ...columnArrays(entries, queueColumns)]);
  },

  async updateAlone(db, updates: SoleUpdate[], maxEvents: number): Promise<SoleUpdateOutcome[]> {
    const apply = async (asked: SoleUpdate[]) => {
      const rows = asked.map((update) => {
        const key = keyOfPageViewId(update.id)!;
        return {
          id: update.id,
          project_id: update.projectId,
          day: key.day,
          created_ms: key.createdMs,
          rid: bytesParameter(key.rid, 'postgres'),
          day_start_ms: epochOf(key.day),
          now_ms: Date.parse(update.now),
          oldest_ms: Date.parse(update.oldest),
          time_on_page_ms: update.timeOnPageMs,
          scroll_depth_centi: update.scrollDepthCenti,
          exit_position: update.exitPosition,
          bounced: update.bounced,
          events: update.events,
          added: update.added,
        };
      });
      const days = rows.map((row) => row.day).sort();
      const result = await run(db, updateAloneSql, [
        ...columnArrays(rows, soleColumns),
        maxEvents,
        days[0],
        days[days.length - 1],
        rows.length,
      ]);
      return new Map(
        (
          result.rows as Array<{
            id: string;
            outcome: SoleUpdateOutcome['outcome'] | 'legacy';
            event_count: number | null;
          }>
        ).map((row) => [row.id, row]),
      );
    };
    let byId = await apply(updates);
    // Stored by an older release in page_views and not moved yet: moved, then updated.
    const legacy = updates.filter((update) => byId.get(update.id)!.outcome === 'legacy');
    if (legacy.length > 0) {
      await moveLegacyAlone(db, {
        projectIds: [...new Set(legacy.map((update) => update.projectId))],
        days: [...new Set(legacy.map((update) => update.day))],
        ids: legacy.map((update) => update.id),
      });
      byId = new Map([...byId, ...(await apply(legacy))]);
    }
    return updates.map((update): SoleUpdateOutcome => {
      const row = byId.get(update.id)!;
      if (row.outcome === 'events') return { outcome: 'events', eventCount: Number(row.event_count) };
      return { outcome: row.outcome === 'legacy' ? 'missing' : row.outcome };
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
    const rows = views.map(({ row, slug }) => ({
      ...toPageViewRow(withStringIds(row, ids), { project: 0, article: 0 }, 'postgres'),
      id: row.id,
      project_id: row.project_id,
      slug,
    }));
    const result = await run(db, insertSql, [...columnArrays(rows, inputColumns), rows.length]);
    return new Map(
      (result.rows as Array<{ id: string; article_id: string }>).map((row) => [row.id, row.article_id]),
    );
  },
};
