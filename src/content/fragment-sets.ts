// Sets of fragments held by very many words (`tion` in an English blog), stored whole beside the
// other article sets (key `f:` and the fragment): a search then reads a few dozen chunks instead
// of the sets of a thousand words. A fragment is stored once a search has read its word sets
// alone, from that search's read, when no content change came since; from then on every writer
// keeps it in step (articleSetKeys with projectFragments), and a fragment whose set empties is
// no longer stored.
import type { Db } from '../db/database.ts';
import { insertFragmentSet, lockedContentVersion, projectFragments } from './article-set-queries.ts';
import type { OrdinalSet } from './article-sets.ts';

/** Fragments stored per project at most: each is one more set that writes of its articles update. */
export const maxFragments = 32;

const pending = new WeakMap<Db, Set<Promise<void>>>();

/**
 * Stores the sets of these fragments, read at `version` of the project's content, unless the
 * content changed since (a writer holding the project's lock now changes it), the project stores
 * them already or has maxFragments. In the background: the search that read them is answered
 * meanwhile.
 */
export function keepFragmentSets(
  db: Db,
  projectId: string,
  version: number,
  fragments: Array<{ fragment: string; set: OrdinalSet }>,
): void {
  if (fragments.length === 0) return;
  let writes = pending.get(db);
  if (writes === undefined) pending.set(db, (writes = new Set()));
  const write = store(db, projectId, version, fragments)
    // A fragment not stored (the database closing, a conflict) is read from its words next time.
    .catch(() => undefined)
    .finally(() => writes.delete(write));
  writes.add(write);
}

async function store(
  db: Db,
  projectId: string,
  version: number,
  fragments: Array<{ fragment: string; set: OrdinalSet }>,
): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    if ((await lockedContentVersion(trx, db.dialect, projectId)) !== version) return;
    const stored = new Set(await projectFragments(trx, projectId));
    for (const { fragment, set } of fragments) {
      if (stored.size >= maxFragments) return;
      if (stored.has(fragment) || set.size === 0) continue;
      await insertFragmentSet(trx, projectId, fragment, set);
      stored.add(fragment);
    }
  });
}

/** Once the fragment sets being stored on this handle are written (or given up). */
export async function fragmentSetsWritten(db: Db): Promise<void> {
  await Promise.all(pending.get(db) ?? []);
}
