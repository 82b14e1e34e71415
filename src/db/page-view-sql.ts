// page_view_rows' rows as SQL sees the columns of a page view as tracked (PageViewTable, strings as
// ids): for the statements that sum page views in the database (the rebuild), which then read them
// as they read page_views before migration 0040. The conversions are db/page-view-rows.ts's, in SQL.
import { type RawBuilder, sql } from 'kysely';
import type { DialectName } from './database.ts';
import { projectNumSql } from './id-numbers.ts';

/** The created time as ISO text (`YYYY-MM-DDTHH:MM:SS.sssZ`), of a row `r`. */
function createdAtSql(dialect: DialectName): string {
  return dialect === 'postgres'
    ? `to_char(r.day + r.created_ms * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', (unixepoch(r.day) * 1000 + r.created_ms) / 1000.0, 'unixepoch')`;
}

/** The visitor id as the tracking answered it (22 base64url characters, or its text), of a row `r`. */
function visitorIdSql(dialect: DialectName): string {
  return dialect === 'postgres'
    ? `coalesce(r.visitor_text, rtrim(translate(encode(uuid_send(r.visitor), 'base64'), '+/', '-_'), '='))`
    : 'coalesce(r.visitor_text, folio_base64url(r.visitor))';
}

/**
 * The page views of a project's day (test views included: filter `test`), as a derived table named
 * `page_views` with the columns of PageViewTable that sums read, followed by `where true`, so that
 * a caller may add conditions with `and`.
 */
export function pageViewsOfDay(dialect: DialectName, projectId: string, day: string): RawBuilder<unknown> {
  return sql`(select ${projectId} as project_id, ${sql.raw(dialect === 'postgres' ? 'cast(r.day as text)' : 'r.day')} as day,
      n.article_id, ${sql.raw(createdAtSql(dialect))} as created_at, ${sql.raw(visitorIdSql(dialect))} as visitor_id,
      case when r.source = 1 then 'sdk' else 'direct' end as source, r.country, r.time_on_page_ms,
      r.scroll_depth_centi, r.exit_position, r.bounced, r.screen_width, r.screen_height, r.event_count, r.test
    from page_view_rows as r join article_nums as n on n.num = r.article_num
    where r.project_num = ${projectNumSql(projectId)} and r.day = ${day}
  ) as page_views where true`;
}

/** A stored 16-byte value as read back (a row's rid: a cursor), as a parameter of its column's type. */
export function storedBytesSql(postgres: boolean, value: unknown): RawBuilder<unknown> {
  return postgres ? sql`${value}::uuid` : sql`${value}`;
}
