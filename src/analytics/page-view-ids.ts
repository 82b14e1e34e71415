// A page view's id begins with its creation time (12 hex digits of milliseconds), so that ids in
// text order are in time order: a window of time is a range of ids, read through the (project_id,
// day, id) index that every page view has, without an index of its own.

/** The first 12 characters of the ids of the page views created at `ms`. */
export function pageViewIdPrefix(ms: number): string {
  return ms.toString(16).padStart(12, '0');
}
