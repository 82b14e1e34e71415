// The views of each article over closed days (the days before yesterday: no page view can be
// created for them any more), summed once from the daily rollups and kept in memory, one cache per
// database handle. Only a roll-up or a rebuild changes those rollups. A rebuild, from any process,
// bumps the project's content version, which the kept sums are keyed by, so every instance sums
// them again on its next request; a roll-up that summed page views of a closed day (written by
// tests and tools, never by the API) tells the cache of its handle through `forgetClosedDays`.
import type { Db } from '../../db/database.ts';
import type { Executor } from '../../db/schema.ts';
import { articleViews } from './queries/article-views.ts';
import { contentVersion } from './queries/content-version.ts';

const cacheEntries = 500;

/** Per project and range of closed days: the views of each article. */
export class ClosedDayViews {
  readonly #entries = new Map<string, { views: Map<string, number>; version: number }>();

  /** `db`: the handle or the transaction to read the rollups with. */
  async get(
    db: Executor,
    projectId: string,
    firstDay: string,
    lastDay: string,
  ): Promise<Map<string, number>> {
    const key = `${projectId}\u0000${firstDay}\u0000${lastDay}`;
    // Read before the sums: a rebuild committing meanwhile leaves them under the older version.
    const version = await contentVersion(db, projectId);
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.version === version) return entry.views;
    const views = await articleViews(db, projectId, firstDay, lastDay);
    this.#entries.delete(key);
    if (this.#entries.size >= cacheEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { views, version });
    return views;
  }

  forget(projectId: string): void {
    for (const key of this.#entries.keys())
      if (key.startsWith(`${projectId}\u0000`)) this.#entries.delete(key);
  }
}

const caches = new WeakMap<Db, ClosedDayViews>();

/** The closed-day cache of a database handle, created on first use. */
export function closedDayViewsOf(db: Db): ClosedDayViews {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new ClosedDayViews();
    caches.set(db, cache);
  }
  return cache;
}

/** The project's page views of a closed day changed: its kept sums on this handle are dropped. */
export function forgetClosedDays(db: Db, projectId: string): void {
  caches.get(db)?.forget(projectId);
}
