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
