// The lookup of the key a request presents, for the auth hook (app.ts hands it to http/auth.ts):
// the key's project, from the database or from the answers kept since nothing changed.
import type { Db } from '../db/database.ts';
import type { AuthContext, KeyLookup } from '../http/auth.ts';
import { hashKey, looksLikeKey } from './keys.ts';
import { queryActiveKey, touchApiKey } from './queries.ts';

/** What the auth hook asks of the keys of `db`. */
export function keyLookup(db: Db): KeyLookup {
  return {
    find: (presented) => (looksLikeKey(presented) ? findActiveKey(db, presented) : undefined),
    kept: (presented) => keptKey(db, presented),
    touch: (id, at) => touchApiKey(db.kysely, id, at),
  };
}

/** Per database handle, the answers found while its keys stamp was `stamp`, by key presented. */
const knownKeys = new WeakMap<Db, { stamp: string; keys: Map<string, AuthContext | undefined> }>();

/** The unrevoked key presented (hashed as stored) and its project. */
export function findActiveKey(
  db: Db,
  presented: string,
): AuthContext | undefined | Promise<AuthContext | undefined> {
  // The answer is kept while no project or API key changed (db.keysStamp: page views do not count,
  // so a blog being read and tracked asks once per key, not at every request; measured at 10
  // views/s, 2.1 lookups a view before), by the key as presented, so that a known key is not
  // hashed again (SHA-256 was 2% of a cache hit's CPU). The stamp is read before the query, so a
  // change racing the query only makes the next call ask again. A kept answer is returned at
  // once, without a promise (the auth hook then needs none).
  const stamp = db.keysStamp();
  let keys = keptAnswers(db, stamp);
  if (keys?.has(presented)) return keys.get(presented);
  if (stamp !== null && keys === undefined) {
    keys = new Map();
    knownKeys.set(db, { stamp, keys });
  }
  return queryActiveKey(db, hashKey(presented)).then((found) => {
    if (keys !== undefined && keys.size < 10_000) keys.set(presented, found);
    return found;
  });
}

/**
 * The active key presented and its project as findActiveKey keeps them while no project or key
 * changed, or null when none is kept (never a query: the hit path asks, and the hook looks up).
 */
export function keptKey(db: Db, presented: string): AuthContext | null {
  return keptAnswers(db, db.keysStamp())?.get(presented) ?? null;
}

/** The answers kept for `db` while its keys stamp is `stamp` (none while it has none). */
function keptAnswers(db: Db, stamp: string | null): Map<string, AuthContext | undefined> | undefined {
  const known = knownKeys.get(db);
  return stamp !== null && known?.stamp === stamp ? known.keys : undefined;
}
