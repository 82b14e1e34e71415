// Queries that run on every request of their kind (tracking, an article's view count), compiled
// once per database handle: only their parameters change from one call to the next. Run them with
// Db.executeCompiled.
import type { CompiledQuery } from 'kysely';
import type { Db } from './database.ts';

export type Compiled<R> = WeakMap<Db, CompiledQuery<R>>;

/** The query `cache` holds for `db`, built by `build` on first use. */
export function compiledFor<R>(cache: Compiled<R>, db: Db, build: () => CompiledQuery<R>): CompiledQuery<R> {
  let query = cache.get(db);
  if (query === undefined) cache.set(db, (query = build()));
  return query;
}
