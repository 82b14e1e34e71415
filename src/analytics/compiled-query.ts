// Queries that run on every tracking request, compiled once per database handle: only their
// parameters change from one call to the next.
import type { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.ts';

export type Compiled<R> = WeakMap<Db, CompiledQuery<R>>;

/** The query `cache` holds for `db`, built by `build` on first use. */
export function compiledFor<R>(cache: Compiled<R>, db: Db, build: () => CompiledQuery<R>): CompiledQuery<R> {
  let query = cache.get(db);
  if (query === undefined) cache.set(db, (query = build()));
  return query;
}
