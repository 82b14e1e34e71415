// The lookup of the key a request presents, for the auth hook (app.ts hands it to http/auth.ts):
// the key's project, from the database or from the answers kept since nothing changed.
import type { Db } from '../db/database.ts';
import type { AuthContext, KeyLookup } from '../http/auth.ts';
import { hashKey, looksLikeKey } from './keys.ts';
import { queryActiveKey, touchApiKeys } from './queries.ts';

/**
 * How long the uses of keys gather before one statement records them all. A key's use is recorded
 * once a minute (http/auth.ts); a host of many blogs, each with its own key, then wrote a statement
 * for nearly every page view (1,000 projects at 10 views a second). Recorded in one statement every
 * 5 s, a key's last use is at most that much later than the request.
 */
const keyUsesGatherMs = 5_000;
/** Keys per statement. */
const keysPerStatement = 500;

/** What the auth hook asks of the keys of `db`. */
export function keyLookup(db: Db): KeyLookup {
  const uses = new KeyUses(db);
  return {
    find: (presented) => (looksLikeKey(presented) ? findActiveKey(db, presented) : undefined),
    kept: (presented) => keptKey(db, presented),
    touch: (id, at) => uses.record(id, at),
    flush: () => uses.flush(),
  };
}

/** The uses of keys not yet recorded: the keys of the batch gathering, its newest time, its timer. */
class KeyUses {
  readonly #db: Db;
  #batch: {
    ids: Set<string>;
    at: string;
    timer: NodeJS.Timeout;
    written: PromiseWithResolvers<void>;
  } | null = null;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Resolves once the use is recorded: with the others of its 5 s, at the newest of their times. */
  record(id: string, at: string): Promise<void> {
    if (this.#batch === null) {
      const timer = setTimeout(() => void this.flush().catch(() => {}), keyUsesGatherMs);
      timer.unref();
      this.#batch = { ids: new Set(), at, timer, written: Promise.withResolvers() };
    }
    const batch = this.#batch;
    batch.ids.add(id);
    if (at > batch.at) batch.at = at;
    return batch.written.promise;
  }

  /** Records the uses gathered so far now (the app closing, a test); rejects as their statement does. */
  flush(): Promise<void> {
    const batch = this.#batch;
    if (batch === null) return Promise.resolve();
    this.#batch = null;
    clearTimeout(batch.timer);
    const ids = [...batch.ids];
    const written = (async () => {
      for (let start = 0; start < ids.length; start += keysPerStatement)
        await touchApiKeys(this.#db.kysely, ids.slice(start, start + keysPerStatement), batch.at);
    })();
    batch.written.resolve(written);
    return written;
  }
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
