// An entry of a visitor set (analytics_visitor_entries, migration 0041): that a visitor id was
// counted by the rollup row of a scope (an article's hour, a breakdown's value) on a day. The scope
// and the id are kept together as the first 16 bytes of a SHA-256 of both, the id's UTF-8 length
// first so that no two pairs hash the same text. A set only answers "is this visitor new?", and 128
// bits make a false "no" as likely as a collision of two random UUIDs. The roll-ups hash in
// JavaScript, the rebuild in SQL (PostgreSQL's sha256, SQLite's folio_visitor_entry of
// sqlite-connection.ts): both give the same bytes.
import { createHash } from 'node:crypto';
import type { DialectName } from './database.ts';
import { bytesParameter } from './page-view-rows.ts';

/** The 16 bytes of the entry of `visitorId` in the set of `scope`. */
export function visitorEntryOf(scope: string, visitorId: string): Buffer {
  return createHash('sha256')
    .update(`${Buffer.byteLength(visitorId)}:${visitorId}${scope}`)
    .digest()
    .subarray(0, 16);
}

/** The entry as a query parameter: a blob on SQLite, a uuid's text on PostgreSQL. */
export function visitorEntryParameter(
  scope: string,
  visitorId: string,
  dialect: DialectName,
): Buffer | string {
  return bytesParameter(visitorEntryOf(scope, visitorId), dialect);
}

/** The SQL of the entry of the text expressions `scope` and `visitorId`, as its column stores it. */
export function visitorEntrySql(dialect: DialectName, scope: string, visitorId: string): string {
  return dialect === 'postgres'
    ? `cast(encode(substring(sha256(convert_to(octet_length(${visitorId}) || ':' || ${visitorId} || ${scope}, 'UTF8')) from 1 for 16), 'hex') as uuid)`
    : `folio_visitor_entry(${scope}, ${visitorId})`;
}
