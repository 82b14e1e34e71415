// SQL text shared by PostgreSQL's statements over page_views, which run unchanged on either of its
// layouts (the text columns before migration 0031, date and timestamptz after it) and during the
// swap of one for the other.

/**
 * Values given as text (`values`: column → SQL expression), as the types of page_views' own columns
 * of those names: a lateral join, its row named `alias`.
 */
export function typedAs(alias: string, values: Record<string, string>): string {
  const members = Object.entries(values).map(([column, value]) => `'${column}', ${value}`);
  return `cross join lateral json_populate_record(null::page_views, json_build_object(${members.join(', ')})) as ${alias}`;
}

/**
 * The page view of one key (SQL expressions of the row before it), looked up alone by the whole
 * key (project_id, day, id), as a lateral join named `alias`: a subquery with a limit is not merged
 * into a join. Compared with lists of projects, days and ids, PostgreSQL made the days the index's
 * condition and the ids a filter, reading every page view of those days; joined with the keys, it
 * hashed them against those page views. `within`: more conditions on `page_views` (a range of days
 * that prunes month partitions); `lock`: the row is locked for update.
 */
export function pageViewOfKey(
  alias: string,
  key: { projectId: string; day: string; id: string },
  { within = '', lock = false }: { within?: string; lock?: boolean } = {},
): string {
  return `cross join lateral (
    select * from page_views
    where page_views.project_id = ${key.projectId} and page_views.day = ${key.day} and page_views.id = ${key.id}${within}
    limit 1${lock ? ' for update' : ''}
  ) as ${alias}`;
}
