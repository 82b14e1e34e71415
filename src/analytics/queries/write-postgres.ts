// The page-view writes on PostgreSQL: every column of a batch is sent as one array and expanded by
// unnest(), so that a batch costs the same few round trips whatever its size. New page views are
// one statement: the insert, resolving the slugs, and in data-modifying WITH clauses the visitor
// sets, the rollups (computed in SQL by contribution-sql.ts) and view counts. No project row is
// touched: page views do not change the content version (see the answer cache's view-count lag).
import { CompiledQuery } from 'kysely';
import { contributionFields } from '../contribution.ts';
import { contributionSums } from './contribution-sql.ts';
import {
  addExcluded,
  type Executor,
  type NewPageView,
  pageViewColumns,
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
  page_url: 'text',
  page_title: 'text',
  referrer: 'text',
  utm_source: 'text',
  utm_medium: 'text',
  utm_campaign: 'text',
  utm_term: 'text',
  utm_content: 'text',
  events: 'text',
};

function unnest(types: readonly string[], names: readonly string[]): string {
  return `unnest(${types.map((type, index) => `$${index + 1}::${type}[]`).join(', ')}) as u(${names.join(', ')})`;
}

const counters = contributionFields.join(', ');
const dayFields = ['visitors', ...contributionFields];

// The new page views are `input`; `article_id` comes from the slug (rows without an article are
// not inserted, and the caller answers 404 for them).
const inputColumns = [...pageViewColumns.filter((column) => column !== 'article_id'), 'slug'] as const;
const insertSql = `with inserted as (
  insert into page_views (${pageViewColumns.join(', ')})
  select ${pageViewColumns.map((column) => (column === 'article_id' ? 'a.id' : `u.${column}`)).join(', ')}
  from ${unnest(
    inputColumns.map((column) => (column === 'slug' ? 'text' : columnTypes[column])),
    inputColumns,
  )}
  join articles as a on a.project_id = u.project_id and a.slug = u.slug
  returning *
), new_visitors as (
  insert into analytics_daily_visitors (project_id, day, visitor_id)
  select distinct project_id, day, visitor_id from inserted order by project_id, day, visitor_id
  on conflict do nothing
  returning project_id, day
), day_rollups as (
  insert into analytics_daily_totals (project_id, day, ${dayFields.join(', ')})
  select t.project_id, t.day, coalesce(v.visitors, 0), ${contributionFields.map((field) => `t.${field}`).join(', ')}
  from (select project_id, day, ${contributionSums} from inserted group by project_id, day) as t
  left join (select project_id, day, count(*) as visitors from new_visitors group by project_id, day) as v
    on v.project_id = t.project_id and v.day = t.day
  order by t.project_id, t.day
  on conflict (project_id, day) do update set ${addExcluded('analytics_daily_totals', dayFields)}
), article_rollups as (
  insert into analytics_daily_articles (project_id, day, article_id, ${counters})
  select project_id, day, article_id, ${contributionSums} from inserted
  group by project_id, day, article_id order by project_id, day, article_id
  on conflict (project_id, day, article_id) do update set ${addExcluded('analytics_daily_articles', contributionFields)}
), country_rollups as (
  insert into analytics_daily_countries (project_id, day, country, views)
  select project_id, day, country, count(*) from inserted where country is not null
  group by project_id, day, country order by project_id, day, country
  on conflict (project_id, day, country) do update set views = analytics_daily_countries.views + excluded.views
), view_counts as (
  insert into article_views (article_id, project_id, view_count)
  select article_id, project_id, count(*) from inserted group by article_id, project_id order by article_id
  on conflict (article_id) do update set view_count = article_views.view_count + excluded.view_count
)
select id, article_id from inserted`;

const updateColumns = [
  'id',
  'updated_at',
  'time_on_page_ms',
  'scroll_depth_centi',
  'exit_position',
  'bounced',
  'event_count',
  'events',
] as const satisfies ReadonlyArray<keyof StoredPageView>;

// Parameters: the updated rows, then the rollup changes per day, then per article.
const dayChangeOffset = updateColumns.length;
const articleChangeOffset = dayChangeOffset + 2 + dayFields.length;
function numbered(types: readonly string[], offset: number, names: readonly string[]): string {
  return `unnest(${types.map((type, index) => `$${offset + index + 1}::${type}[]`).join(', ')}) as u(${names.join(', ')})`;
}
const updateSql = `with updated as (
  update page_views as p set ${updateColumns
    .slice(1)
    .map((column) => `${column} = u.${column}`)
    .join(', ')}
  from ${numbered(
    updateColumns.map((column) => columnTypes[column]),
    0,
    updateColumns,
  )}
  where p.id = u.id
), day_rollups as (
  insert into analytics_daily_totals (project_id, day, ${dayFields.join(', ')})
  select * from ${numbered(['text', 'text', ...dayFields.map(() => 'int8')], dayChangeOffset, ['project_id', 'day', ...dayFields])}
  on conflict (project_id, day) do update set ${addExcluded('analytics_daily_totals', dayFields)}
)
insert into analytics_daily_articles (project_id, day, article_id, ${counters})
select * from ${numbered(
  ['text', 'text', 'text', ...contributionFields.map(() => 'int8')],
  articleChangeOffset,
  ['project_id', 'day', 'article_id', ...contributionFields],
)}
on conflict (project_id, day, article_id) do update set ${addExcluded('analytics_daily_articles', contributionFields)}`;

const lockSql = `select ${storedColumns.join(', ')} from page_views where id = any($1::text[]) order by id for update`;

function run(db: Executor, text: string, parameters: unknown[]) {
  return db.executeQuery(CompiledQuery.raw(text, parameters));
}

function columnsOf<T>(rows: readonly T[], columns: ReadonlyArray<keyof T>): unknown[][] {
  return columns.map((column) => rows.map((row) => row[column]));
}

export const postgresStore: WriteStore = {
  begin: 'begin',
  dataModifyingWith: true,

  async lockPageViews(db, ids) {
    if (ids.length === 0) return [];
    const result = await run(db, lockSql, [ids]);
    return (result.rows as StoredPageView[]).map((row) => ({
      ...row,
      time_on_page_ms: Number(row.time_on_page_ms),
    }));
  },

  async updatePageViews(db, rows, changes) {
    if (rows.length === 0) return;
    await run(db, updateSql, [
      ...columnsOf(rows, updateColumns),
      ...columnsOf(changes.days, [
        'project_id',
        'day',
        ...(dayFields as Array<keyof (typeof changes.days)[number]>),
      ]),
      ...columnsOf(changes.articles, ['project_id', 'day', 'article_id', ...contributionFields]),
    ]);
  },

  async insertPageViews(db, views: NewPageView[]) {
    if (views.length === 0) return new Map();
    const rows = views.map(({ row, slug }) => ({ ...row, slug }));
    const result = await run(db, insertSql, columnsOf(rows, inputColumns));
    return new Map(
      (result.rows as Array<{ id: string; article_id: string }>).map((row) => [row.id, row.article_id]),
    );
  },
};
