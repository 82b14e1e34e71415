// Page views as `page_view_rows` stores them (migration 0040): every value in its most compact form
// that gives back exactly what was stored, so that a page view takes about half the bytes of the
// layouts before it.
//
// - The project and article are their numbers (project_nums, article_nums: 1 to 4 bytes, not 37).
// - The id is its 16 random bytes (`rid`, a `uuid` on PostgreSQL): its first 12 characters are the
//   creation time, which the row holds as its day and `created_ms`, the milliseconds since the day
//   began. `updated_ms` is the milliseconds after the creation.
// - The visitor id is its 16 bytes; the session id, when it is a UUID in its canonical form (as the
//   tracker makes them), its 16 bytes too.
// - The source is 1 (`sdk`) or 0; no events is NULL rather than `[]`.
// A value without that form (an id, visitor or session id stored by an older release or sent by a
// client) keeps its text in `id_text`, `visitor_text` or `session_text`, and its 16-byte column
// holds the first 16 bytes of its SHA-256: the key stays unique and counts of distinct visitors and
// sessions stay exact.
import { createHash } from 'node:crypto';
import type { DialectName } from './database.ts';
import { stringIdColumns } from './page-view-strings.ts';
import type { PageViewRowTable, PageViewStorageTable } from './schema.ts';

/** The columns of page_view_rows, in the order the writers insert them. */
export const pageViewRowColumns = [
  'project_num',
  'day',
  'rid',
  'article_num',
  'created_ms',
  'updated_ms',
  'visitor',
  'session',
  'source',
  'test',
  'country',
  'time_on_page_ms',
  'scroll_depth_centi',
  'exit_position',
  'bounced',
  'screen_width',
  'screen_height',
  'event_count',
  ...stringIdColumns,
  'events',
  'id_text',
  'visitor_text',
  'session_text',
] as const satisfies ReadonlyArray<keyof PageViewRowTable>;

const dayMs = 86_400_000;
const idPattern = /^[0-9a-f]{12}[A-Za-z0-9_-]{22}$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const visitorPattern = /^[A-Za-z0-9_-]{22}$/;

function hash16(text: string): Buffer {
  return createHash('sha256').update(text).digest().subarray(0, 16);
}

/** 22 base64url characters that are exactly the encoding of their 16 bytes, else null. */
function base64urlBytes(text: string): Buffer | null {
  if (!visitorPattern.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.length === 16 && bytes.toString('base64url') === text ? bytes : null;
}

/** The UTC day (`YYYY-MM-DD`) and milliseconds into it of an epoch time. */
function dayAndMs(ms: number): { day: string; ms: number } {
  const dayStart = Math.floor(ms / dayMs) * dayMs;
  return { day: new Date(dayStart).toISOString().slice(0, 10), ms: ms - dayStart };
}

/** The epoch time of `ms` milliseconds into the UTC day `day` (0: the day's start). */
export function epochOf(day: string, ms = 0): number {
  return Date.parse(`${day}T00:00:00.000Z`) + ms;
}

/**
 * The stored key of a page view's id: its day, creation milliseconds and 16 random bytes; null when
 * the id is not one this release makes (no page view has it but one stored from `id_text`).
 */
export function keyOfPageViewId(id: string): { day: string; createdMs: number; rid: Buffer } | null {
  if (!idPattern.test(id)) return null;
  const time = Number.parseInt(id.slice(0, 12), 16);
  if (time >= Date.UTC(10000, 0, 1)) return null;
  const rid = base64urlBytes(id.slice(12));
  if (rid === null) return null;
  const { day, ms } = dayAndMs(time);
  return { day, createdMs: ms, rid };
}

/** The 16 bytes that key the page view of `id`: its random bytes, or a hash of an id of another form. */
export function ridOfPageViewId(id: string): Buffer {
  return keyOfPageViewId(id)?.rid ?? hash16(id);
}

/** The id of a stored page view. */
export function pageViewIdOf(row: Pick<PageViewRowTable, 'day' | 'created_ms' | 'rid' | 'id_text'>): string {
  if (row.id_text !== null) return row.id_text;
  return (
    epochOf(row.day, row.created_ms).toString(16).padStart(12, '0') + bytesOf(row.rid).toString('base64url')
  );
}

/** A 16-byte value as read from either database: a Buffer (SQLite) or UUID text (PostgreSQL). */
export function bytesOf(value: Buffer | Uint8Array | string): Buffer {
  if (typeof value === 'string') return Buffer.from(value.replaceAll('-', ''), 'hex');
  return Buffer.isBuffer(value) ? value : Buffer.from(value);
}

/** A 16-byte value as the database takes it: UUID text on PostgreSQL, bytes on SQLite. */
export function bytesParameter(bytes: Buffer, dialect: DialectName): Buffer | string {
  return dialect === 'sqlite' ? bytes : uuidText(bytes);
}

function visitorValue(text: string): { bytes: Buffer; text: string | null } {
  const bytes = base64urlBytes(text);
  return bytes === null ? { bytes: hash16(text), text } : { bytes, text: null };
}

function sessionValue(text: string): { bytes: Buffer; text: string | null } {
  return uuidPattern.test(text)
    ? { bytes: Buffer.from(text.replaceAll('-', ''), 'hex'), text: null }
    : { bytes: hash16(text), text };
}

function uuidText(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A page view with its strings as ids (PageViewStorageTable), as page_view_rows stores it. */
export function toPageViewRow(
  view: Omit<PageViewStorageTable, 'project_id' | 'article_id'>,
  nums: { project: number; article: number },
  dialect: DialectName,
): PageViewRowTable {
  // An id this release makes names its creation time, which its key holds; one of another form
  // (an older release's) is kept as text, keyed by its hash and the time stored with it.
  const key = keyOfPageViewId(view.id);
  const day = key?.day ?? view.day;
  const created = key === null ? Date.parse(view.created_at) : epochOf(key.day, key.createdMs);
  const createdMs = key?.createdMs ?? created - epochOf(day);
  const visitor = visitorValue(view.visitor_id);
  const session = sessionValue(view.session_id);
  return {
    project_num: nums.project,
    day,
    rid: bytesParameter(ridOfPageViewId(view.id), dialect),
    article_num: nums.article,
    created_ms: createdMs,
    updated_ms: Date.parse(view.updated_at) - created,
    visitor: bytesParameter(visitor.bytes, dialect),
    session: bytesParameter(session.bytes, dialect),
    source: view.source === 'sdk' ? 1 : 0,
    test: view.test,
    country: view.country,
    time_on_page_ms: view.time_on_page_ms,
    scroll_depth_centi: view.scroll_depth_centi,
    exit_position: view.exit_position,
    bounced: view.bounced,
    screen_width: view.screen_width,
    screen_height: view.screen_height,
    event_count: view.event_count,
    page_url_id: view.page_url_id,
    page_title_id: view.page_title_id,
    referrer_id: view.referrer_id,
    utm_source_id: view.utm_source_id,
    utm_medium_id: view.utm_medium_id,
    utm_campaign_id: view.utm_campaign_id,
    utm_term_id: view.utm_term_id,
    utm_content_id: view.utm_content_id,
    events: view.events === '[]' ? null : view.events,
    id_text: key === null ? view.id : null,
    visitor_text: visitor.text,
    session_text: session.text,
  };
}

/** A stored row as a page view with its strings as ids; its project's and article's ids given. */
export function fromPageViewRow(
  row: PageViewRowTable,
  ids: { project: string; article: string },
): PageViewStorageTable {
  const created = epochOf(row.day, Number(row.created_ms));
  return {
    id: pageViewIdOf(row),
    project_id: ids.project,
    article_id: ids.article,
    day: row.day,
    created_at: new Date(created).toISOString(),
    updated_at: new Date(created + Number(row.updated_ms)).toISOString(),
    visitor_id: row.visitor_text ?? bytesOf(row.visitor).toString('base64url'),
    session_id: row.session_text ?? uuidText(bytesOf(row.session)),
    source: Number(row.source) === 1 ? 'sdk' : 'direct',
    country: row.country,
    time_on_page_ms: Number(row.time_on_page_ms),
    scroll_depth_centi: Number(row.scroll_depth_centi),
    exit_position: row.exit_position,
    bounced: row.bounced === null ? null : Number(row.bounced),
    screen_width: row.screen_width,
    screen_height: row.screen_height,
    event_count: Number(row.event_count),
    page_url_id: row.page_url_id,
    page_title_id: row.page_title_id,
    referrer_id: row.referrer_id,
    utm_source_id: row.utm_source_id,
    utm_medium_id: row.utm_medium_id,
    utm_campaign_id: row.utm_campaign_id,
    utm_term_id: row.utm_term_id,
    utm_content_id: row.utm_content_id,
    events: row.events ?? '[]',
    test: Number(row.test),
  };
}
