// The repeated strings of page views (page URL and title, referrer, UTM values) are stored once, in
// page_view_strings (migration 0022), and a page view holds the integer id of each: a blog's views
// repeat a few thousand URLs, titles and referrers millions of times. A string is found by the first
// 16 bytes of its SHA-256 (unique), so that the index holds 16 bytes a string rather than the string.
//
// Writers look ids up through a cache of string → id, so that a string seen before costs no
// statement. The cache only takes ids it read as already stored, never those its own transaction
// inserted: a transaction rolled back would leave it with ids that name nothing, or later another
// string. A writer's transaction reads through `deferred()`, whose ids reach the cache once it has
// committed: its stamps (below) are undone by a rollback too. Strings no page view names are
// deleted (page-view-string-sweep.ts), so the cache forgets everything it holds once its oldest id
// is `cacheLifeMs` old, and each read or insert of a string stamps it `used_at`: the sweep leaves
// alone any string stamped within `sweepGraceMs`, longer than an id can stay in a cache, so that a
// writer never names a string deleted meanwhile.
import { createHash } from 'node:crypto';
import {
  type Executor,
  type PageViewStorageTable,
  type PageViewStringColumn,
  pageViewStringColumns,
  type PageViewTable,
} from './schema.ts';

/** The id column of each string column. */
export const stringIdColumns = pageViewStringColumns.map((column) => `${column}_id` as const);
export type StringIdColumn = (typeof stringIdColumns)[number];

/** Ids named by one statement. */
const chunkSize = 500;

export function stringHash(value: string): Buffer {
  return createHash('sha256').update(value).digest().subarray(0, 16);
}

/** How long a writer may name a string by the id it read, without reading it again. */
export const cacheLifeMs = 5 * 60 * 1000;

/**
 * How long after its last read or insert a string no page view names may be deleted: well past
 * `cacheLifeMs`, for a write under way when its cached id expired and for clocks a little apart.
 */
export const sweepGraceMs = 15 * 60 * 1000;

export interface StringIdCacheOptions {
  /** Entries per generation. */
  size?: number;
  lifeMs?: number;
  /** The clock, in milliseconds (tests move it). */
  now?: () => number;
}

/**
 * The ids of strings known stored, for one writer. Two generations of at most `size` entries each:
 * a hit costs a map lookup (no reordering as in a strict LRU); a string unused for two generations
 * is forgotten, and every string once the oldest read is `lifeMs` old.
 */
export class StringIdCache {
  readonly #size: number;
  readonly #lifeMs: number;
  readonly now: () => number;
  #current = new Map<string, number>();
  #previous = new Map<string, number>();
  /** When the oldest id held was read; null while none is held. */
  #oldestReadAt: number | null = null;

  constructor({ size = 20_000, lifeMs = cacheLifeMs, now = Date.now }: StringIdCacheOptions = {}) {
    this.#size = size;
    this.#lifeMs = lifeMs;
    this.now = now;
  }

  get(value: string): number | undefined {
    if (this.#oldestReadAt !== null && this.now() - this.#oldestReadAt >= this.#lifeMs) this.clear();
    const id = this.#current.get(value);
    if (id !== undefined) return id;
    const old = this.#previous.get(value);
    if (old !== undefined) this.#current.set(value, old);
    return old;
  }

  /** Keeps the id of `value`, read (and stamped) at `readAt`, no later than now. */
  set(value: string, id: number, readAt: number): void {
    if (this.#current.size >= this.#size) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(value, id);
    if (this.#oldestReadAt === null || readAt < this.#oldestReadAt) this.#oldestReadAt = readAt;
  }

  clear(): void {
    this.#current = new Map();
    this.#previous = new Map();
    this.#oldestReadAt = null;
  }

  /** A view of this cache for one transaction: what it reads is kept only once `commit()` is called. */
  deferred(): DeferredStringIds {
    return new DeferredStringIds(this);
  }
}

/** The ids a transaction read, kept by the cache it reads through once the transaction has committed. */
export class DeferredStringIds {
  readonly #cache: StringIdCache;
  readonly #read: Array<[string, number, number]> = [];

  constructor(cache: StringIdCache) {
    this.#cache = cache;
  }

  get(value: string): number | undefined {
    return this.#cache.get(value);
  }

  set(value: string, id: number, readAt: number): void {
    this.#read.push([value, id, readAt]);
  }

  now(): number {
    return this.#cache.now();
  }

  /** After the commit: the cache keeps the ids read. */
  commit(): void {
    for (const [value, id, readAt] of this.#read) this.#cache.set(value, id, readAt);
    this.#read.length = 0;
  }
}

/** Where stringIds finds and keeps ids: a cache, or a transaction's deferred view of one. */
export type StringIdLookup = Pick<StringIdCache, 'get' | 'set' | 'now'>;

/**
 * The ids of `values` (inside the caller's transaction, if any): from the cache, else read, else
 * inserted. Concurrent writers (PostgreSQL) inserting the same string both get the one id.
 */
export async function stringIds(
  executor: Executor,
  values: Iterable<string>,
  cache: StringIdLookup,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const missing = new Map<string, string>();
  for (const value of values) {
    if (ids.has(value)) continue;
    const id = cache.get(value);
    if (id !== undefined) ids.set(value, id);
    else {
      missing.set(stringHash(value).toString('hex'), value);
      ids.set(value, 0);
    }
  }
  if (missing.size === 0) return ids;
  // Stamped with the time of the read, taken before it: the cache's clock then runs from no later
  // than the stamp.
  const readAt = cache.now();
  const usedAt = Math.floor(readAt / 1000);
  // In hash order: two PostgreSQL transactions inserting the same strings wait for each other in
  // the same order, never in a cycle.
  const hashes = [...missing.keys()].sort();
  for (let start = 0; start < hashes.length; start += chunkSize) {
    const chunk = hashes.slice(start, start + chunkSize);
    const found = await stampIds(executor, chunk, usedAt);
    for (const [hash, id] of found) {
      ids.set(missing.get(hash)!, id);
      cache.set(missing.get(hash)!, id, readAt);
    }
    const absent = chunk.filter((hash) => !found.has(hash));
    if (absent.length === 0) continue;
    const inserted = await executor
      .insertInto('page_view_strings')
      .values(
        absent.map((hash) => ({
          hash: Buffer.from(hash, 'hex'),
          value: missing.get(hash)!,
          used_at: usedAt,
        })),
      )
      .onConflict((conflict) => conflict.column('hash').doNothing())
      .returning(['id', 'hash'])
      .execute();
    for (const row of inserted) ids.set(missing.get(Buffer.from(row.hash).toString('hex'))!, row.id);
    // Inserted meanwhile by another transaction, now committed.
    if (inserted.length < absent.length) {
      const late = await stampIds(
        executor,
        absent.filter((hash) => !inserted.some((row) => Buffer.from(row.hash).toString('hex') === hash)),
        usedAt,
      );
      for (const [hash, id] of late) ids.set(missing.get(hash)!, id);
    }
  }
  return ids;
}

/**
 * The ids of the strings of `hashes` that are stored, each stamped used at `usedAt`. An update
 * rather than a read: on PostgreSQL a sweep deleting one of them at the same moment either finds
 * the new stamp and leaves it, or has deleted it first and it is not found here.
 */
async function stampIds(executor: Executor, hashes: string[], usedAt: number): Promise<Map<string, number>> {
  const rows = await executor
    .updateTable('page_view_strings')
    .set({ used_at: usedAt })
    .where(
      'hash',
      'in',
      hashes.map((hash) => Buffer.from(hash, 'hex')),
    )
    .returning(['id', 'hash'])
    .execute();
  return new Map(rows.map((row) => [Buffer.from(row.hash).toString('hex'), row.id]));
}

/** The values of the strings of `rows`, to store: each string column as the id of its value. */
export function withStringIds<T extends Pick<PageViewTable, PageViewStringColumn>>(
  row: T,
  ids: ReadonlyMap<string, number>,
): Omit<T, PageViewStringColumn> & Pick<PageViewStorageTable, StringIdColumn> {
  const stored: Record<string, unknown> = { ...row };
  for (const column of pageViewStringColumns) {
    const value = row[column];
    stored[`${column}_id`] = value === null ? null : ids.get(value)!;
    delete stored[column];
  }
  return stored as Omit<T, PageViewStringColumn> & Pick<PageViewStorageTable, StringIdColumn>;
}

/** The strings of a row, to give to stringIds. */
export function stringsOf(row: Pick<PageViewTable, PageViewStringColumn>): string[] {
  const values: string[] = [];
  for (const column of pageViewStringColumns) {
    const value = row[column];
    if (value !== null) values.push(value);
  }
  return values;
}

type StoredStrings = Partial<Record<StringIdColumn, number | null>> &
  Partial<Record<PageViewStringColumn, string | null>>;

/**
 * Rows read from page_views with their strings: each `…_id` column replaced by its value. A row of
 * a table not yet converted (`folio db convert-page-views`) may still hold the value itself, in the
 * column of its name, with no id: that value is kept.
 */
export async function withPageViewStrings<T extends StoredStrings>(
  executor: Executor,
  rows: readonly T[],
): Promise<Array<Omit<T, StringIdColumn> & Pick<PageViewTable, PageViewStringColumn>>> {
  const wanted = new Set<number>();
  for (const row of rows) {
    for (const column of stringIdColumns) {
      const id = row[column];
      if (id !== null && id !== undefined) wanted.add(Number(id));
    }
  }
  const values = new Map<number, string>();
  const ids = [...wanted];
  for (let start = 0; start < ids.length; start += chunkSize) {
    const found = await executor
      .selectFrom('page_view_strings')
      .select(['id', 'value'])
      .where('id', 'in', ids.slice(start, start + chunkSize))
      .execute();
    for (const row of found) values.set(Number(row.id), row.value);
  }
  return rows.map((row) => {
    const resolved: Record<string, unknown> = { ...row };
    for (const column of pageViewStringColumns) {
      const id = row[`${column}_id`];
      resolved[column] =
        id === null || id === undefined ? (row[column] ?? null) : (values.get(Number(id)) ?? null);
      delete resolved[`${column}_id`];
    }
    return resolved as Omit<T, StringIdColumn> & Pick<PageViewTable, PageViewStringColumn>;
  });
}
