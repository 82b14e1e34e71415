// A page view's id begins with its creation time (12 hex digits of milliseconds), so that ids in
// text order are in time order: a window of time is a range of ids, read through the (project_id,
// day, id) index that every page view has, without an index of its own.

/** The first 12 characters of the ids of the page views created at `ms`. */
export function pageViewIdPrefix(ms: number): string {
  return ms.toString(16).padStart(12, '0');
}

/**
 * The UTC day of a page view's creation, read from its id: a lookup by id carries it, so that it
 * finds the row through the (project_id, day, id) key (and, on PostgreSQL, in its month's partition)
 * rather than an index of ids alone. An id that does not begin with a time gives no day: ''.
 */
export function dayOfPageViewId(id: string): string {
  const ms = Number.parseInt(id.slice(0, 12), 16);
  if (!/^[0-9a-f]{12}/.test(id) || ms >= Date.UTC(10000, 0, 1)) return '';
  return new Date(ms).toISOString().slice(0, 10);
}
