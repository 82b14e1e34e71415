// The rules of insight-rules.ts that the rebuild evaluates in the database, over page-view rows, in
// SQL that SQLite and PostgreSQL read alike. The tests rebuild random traffic and compare with the
// rollups that the writes kept up to date through the JavaScript rules.
import { deepFromCenti } from '../../insight-rules.ts';

/** reachDecile: Math.round is floor(x + 0.5) for the non-negative positions; integer division. */
const furthest = `case when scroll_depth_centi >= cast(floor(coalesce(exit_position, 0) * 100 + 0.5) as integer)
  then scroll_depth_centi else cast(floor(coalesce(exit_position, 0) * 100 + 0.5) as integer) end`;
export const reachDecileSql = `case when (${furthest}) >= 10000 then 10 else (${furthest}) / 1000 end`;

/** readTimeBucket, over whole seconds (an integer division of a non-negative integer). */
const seconds = 'time_on_page_ms / 1000';
export const readTimeBucketSql = `case when ${seconds} < 120 then ${seconds}
  when ${seconds} < 1200 then ${seconds} - ${seconds} % 10 else ${seconds} - ${seconds} % 30 end`;

export const deepViewSql = `case when scroll_depth_centi >= ${deepFromCenti} then 1 else 0 end`;

/**
 * hourOf: the `YYYY-MM-DDTHH` prefix of the ISO timestamp. PostgreSQL: of `created_at` as text
 * (before the compact layout of migration 0031) or as timestamptz (after it), alike.
 */
export function hourSql(postgres: boolean): string {
  return postgres ? `to_char(${utcCreatedAt}, 'YYYY-MM-DD"T"HH24')` : 'substr(created_at, 1, 13)';
}

/** The hour of the day (0 to 23) of `created_at`, on either PostgreSQL layout as hourSql. */
export function hourOfDaySql(postgres: boolean): string {
  return postgres
    ? `cast(extract(hour from ${utcCreatedAt}) as integer)`
    : 'cast(substr(created_at, 12, 2) as integer)';
}

const utcCreatedAt = "cast(created_at as timestamptz) at time zone 'UTC'";

/** `day` as `YYYY-MM-DD` text, on either PostgreSQL layout (text, or date after migration 0031). */
export const dayTextSql = 'cast(day as text)';
