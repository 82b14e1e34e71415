// An entry of a visitor set (analytics_visitor_entries, migration 0041): that a visitor id was
// counted by the rollup row of a scope (an article's hour, a breakdown's value) of a project on a
// day. The project, the scope and the id are kept together as the first 16 bytes of a SHA-256 of
// all three, the project's and the id's UTF-8 lengths before them so that no two triples hash the
// same text; with the project in it, an entry names its row in a batch of several projects by day
// and entry alone. A set only answers "is this visitor new?", and 128 bits make a false "no" as
// likely as a collision of two random UUIDs. The roll-ups hash in JavaScript, the rebuild in SQL
// (PostgreSQL's sha256, SQLite's folio_visitor_entry of sqlite-connection.ts): both give the same
// bytes.
import { createHash } from 'node:crypto';
import type { DialectName } from './database.ts';
import { bytesParameter } from './page-view-rows.ts';

/** The 16 bytes of the entry of `visitorId` in the set of `scope` of project `projectId`. */
export function visitorEntryOf(projectId: string, scope: string, visitorId: string): Buffer {
  return createHash('sha256')
    .update(
      `${Buffer.byteLength(projectId)}:${projectId}${Buffer.byteLength(visitorId)}:${visitorId}${scope}`,
    )
    .digest()
    .subarray(0, 16);
}

/** The entry as a query parameter: a blob on SQLite, a uuid's text on PostgreSQL. */
export function visitorEntryParameter(
  projectId: string,
  scope: string,
  visitorId: string,
  dialect: DialectName,
): Buffer | string {
  return bytesParameter(visitorEntryOf(projectId, scope, visitorId), dialect);
}

/** The SQL of the entry of the text expressions `projectId`, `scope` and `visitorId`, as stored. */
export function visitorEntrySql(
  dialect: DialectName,
  projectId: string,
  scope: string,
  visitorId: string,
): string {
  if (dialect === 'sqlite') return `folio_visitor_entry(${projectId}, ${scope}, ${visitorId})`;
  const text = `octet_length(${projectId}) || ':' || ${projectId} || octet_length(${visitorId}) || ':' || ${visitorId} || ${scope}`;
  return `cast(encode(substring(sha256(convert_to(${text}, 'UTF8')) from 1 for 16), 'hex') as uuid)`;
}
