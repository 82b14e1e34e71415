// The sets of articles that hold a search term, kept per database handle and project content
// version: a repeated search, its next pages and its other sorts combine them again instead of
// reading every word set that holds the term (`tion`: a thousand words, 20,000 chunks of sets).
// Every content write bumps the project's content version, so a change of any article makes the
// old entries unreachable; they are dropped when the project is next searched, or when the cache
// is full (least recently used first). A large term's read under way is shared by the searches
// that need it meanwhile.
import type { Db } from '../db/database.ts';
import type { OrdinalSet } from './article-sets.ts';

/** Bytes kept per database handle: 640 sets of every article of a 100,000-article project. */
export const searchCacheBytes = 8 * 1024 * 1024;

interface Entry {
  set: OrdinalSet;
  bytes: number;
}

class TermSetCache {
  /** By `projectId \0 term`; a Map iterates in insertion order, which get() refreshes (LRU). */
  readonly #entries = new Map<string, Entry>();
  /** Reads under way, by `projectId \0 version \0 tokens`. */
  readonly #reading = new Map<string, Promise<OrdinalSet | null>>();
  /** The content version the entries of each project were built at. */
  readonly #versions = new Map<string, number>();
  /**
   * Tokens found held by too many word sets to read with the other sets, by `projectId \0 tokens`
   * (least recently found first), kept across content versions: a term that was large stays so.
   */
  readonly #large = new Set<string>();
  #bytes = 0;

  /** The entries of `projectId`, forgetting those of another content version. */
  scope(projectId: string, version: number): TermSets {
    if (this.#versions.get(projectId) !== version) {
      for (const key of [...this.#entries.keys()]) if (key.startsWith(`${projectId}\u0000`)) this.#drop(key);
      this.#versions.set(projectId, version);
    }
    return {
      get: (term) => {
        const key = `${projectId}\u0000${term}`;
        const entry = this.#entries.get(key);
        if (entry === undefined) return undefined;
        this.#entries.delete(key);
        this.#entries.set(key, entry);
        return entry.set;
      },
      set: (term, set) => {
        // Scoped to a version that another request has since replaced: nothing to keep.
        if (this.#versions.get(projectId) !== version) return;
        const key = `${projectId}\u0000${term}`;
        this.#drop(key);
        const bytes = set.chunks.size * 512 + 64 + term.length * 2;
        if (bytes > searchCacheBytes / 4) return;
        this.#entries.set(key, { set, bytes });
        this.#bytes += bytes;
        for (const oldest of this.#entries.keys()) {
          if (this.#bytes <= searchCacheBytes) break;
          this.#drop(oldest);
        }
      },
      isLarge: (tokens) => this.#large.has(`${projectId}\u0000${tokens}`),
      setLarge: (tokens) => {
        const key = `${projectId}\u0000${tokens}`;
        this.#large.delete(key);
        this.#large.add(key);
        for (const oldest of this.#large) {
          if (this.#large.size <= largeTermsKept) break;
          this.#large.delete(oldest);
        }
      },
      shared: (tokens, read) => {
        const key = `${projectId}\u0000${version}\u0000${tokens}`;
        const underWay = this.#reading.get(key);
        // A read that failed (its search's transaction timed out) is no answer: read again.
        if (underWay !== undefined) return underWay.catch(read);
        const reading = read().finally(() => this.#reading.delete(key));
        this.#reading.set(key, reading);
        return reading;
      },
    };
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

/** The cached term sets of one project at one content version. */
export interface TermSets {
  get(term: string): OrdinalSet | undefined;
  set(term: string, set: OrdinalSet): void;
  /**
   * `read()`'s answer, the word sets of the words holding `tokens`, or that of the same read
   * already under way at this content version: searches for the same large term at once (four
   * clients searching `tion` just after an import) read its thousands of sets once between them.
   */
  shared(tokens: string, read: () => Promise<OrdinalSet | null>): Promise<OrdinalSet | null>;
  /**
   * Whether the words holding `tokens` were found too many to read with the other sets, at this
   * or an earlier content version: such a term is read alone (or checked in the texts) at once,
   * without a first share of its sets read for nothing.
   */
  isLarge(tokens: string): boolean;
  setLarge(tokens: string): void;
}

/** Large terms remembered per database handle. */
const largeTermsKept = 1_000;

const caches = new WeakMap<Db, TermSetCache>();

export function termSetsOf(db: Db, projectId: string, contentVersion: number): TermSets {
  let cache = caches.get(db);
  if (cache === undefined) caches.set(db, (cache = new TermSetCache()));
  return cache.scope(projectId, contentVersion);
}
