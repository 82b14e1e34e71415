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

/** hourOf: the `YYYY-MM-DDTHH` prefix of the ISO timestamp. */
export const hourSql = 'substr(created_at, 1, 13)';
