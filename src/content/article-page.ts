// Reading one page of the article list: its matches and exact total (article-matches.ts, or the
// texts for the searches the sets cannot count), then the page, read from the nearer end of the
// list and, when deep, found by its ids first. Searches on PostgreSQL run a few at a time, each in
// one snapshot with a statement timeout (SEARCH_CONCURRENCY, SEARCH_TIMEOUT_MS).
import { sql } from 'kysely';
import { defaultLimits } from '../config.ts';
import type { Db } from '../db/database.ts';
import { type OrdinalFlags, preferIndexScans } from '../db/dialect-sql.ts';
import type { Project } from '../db/schema.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { findMatches, type Run } from './article-matches.ts';
import {
  type ArticleFilter,
  type ArticleOrder,
  type ArticleRow,
  articleCountQuery,
  articleFlaggedPageIdsQuery,
  articlePageIdsQuery,
  articlePageQuery,
  type MarkedSort,
  marksVersionColumn,
  pagePlan,
  pageWindow,
  type PageWindow,
  shortWalk,
  type SortPart,
  sortPartCountQuery,
  sortPartIdsQuery,
  sortParts,
} from './article-queries.ts';
import { keepFragmentSets } from './fragment-sets.ts';
import { markBefore, markEvery, marksApply } from './page-marks.ts';
import { termSetsOf } from './search-cache.ts';

/**
 * From this offset a page is found by its ids first, then read: the rows skipped are read for
 * their sort key and filters only. Below it the one query is quicker than two round trips.
 */
const idsFirstFrom = 50;

export interface PageRead {
  filter: ArticleFilter;
  order: ArticleOrder;
  page: { offset: number; limit: number };
  columns: { content: boolean; html: boolean };
  project: Project;
}

/**
 * `oneSnapshot`: every query given to `run` reads the same snapshot (a PostgreSQL transaction of
 * repeatable read, or SQLite statements between which nothing was committed), so the matches are
 * exact for the page too. `shortWalkRows`: see pagePlan; `markStep`: see page-marks.ts (tests
 * lower both).
 */
export async function readArticlePage(
  db: Db,
  { filter, order, page, columns, project }: PageRead,
  run: Run,
  oneSnapshot = false,
  shortWalkRows = shortWalk,
  markStep = markEvery,
): Promise<{ rows: ArticleRow[]; total: number }> {
  const known =
    filter.searchTerms.length > 0 ? termSetsOf(db, project.id, Number(project.content_version)) : null;
  const matches = await findMatches(db.kysely, db.dialect, filter, run, known);
  if (matches !== null) keepFragmentSets(db, project.id, Number(project.content_version), matches.readAlone);
  const total =
    matches !== null
      ? matches.set.size
      : Number((await run(articleCountQuery(db.kysely, db.dialect, filter)))[0].count);
  if (page.offset >= total) return { rows: [], total };
  const window = pageWindow(page, total);
  const plan = pagePlan(filter, total, window, matches, oneSnapshot, shortWalkRows);
  // PostgreSQL prices a walk of the sort index by the matches it expects, and may instead read
  // every match from a bitmap and sort them (1.7 s for page 2,000 of a term in every article,
  // against 0.1 s walked): told to walk when the plan walks.
  if (db.dialect === 'postgres' && typeof plan !== 'string' && 'members' in plan && plan.walk)
    await run(withoutBitmapScans.compile(db.kysely));
  const rowsOf = (ids: string[]) =>
    run(
      articlePageQuery(
        db.kysely,
        db.dialect,
        filter,
        order,
        { offset: 0, limit: ids.length, reverse: window.reverse },
        columns.content,
        { ids },
        columns.html,
      ),
    );
  // A filtered list's matches as flags, made once for the marks and the page (page-marks.ts).
  let flags: OrdinalFlags | null = null;
  const flagged = matches !== null && filtersArticles(filter) ? () => (flags ??= matches.set.flags()) : null;
  // A deep page of a list without search: a seek from the nearest mark (page-marks.ts).
  const mark =
    (plan === 'driven' || plan === 'walk') && marksApply(filter, order)
      ? await markBefore(db, run, { filter, order, project, matches: flagged }, window, markStep)
      : null;
  const from =
    mark === null ? window : { ...window, offset: window.offset - mark.skipped, after: mark.after };
  let rows: ArticleRow[];
  const parts = plan === 'driven' && withoutSetFilters(filter) ? sortParts(order, window.reverse) : null;
  if (parts !== null) {
    const ids = await pageIdsFromParts(db, run, filter, { parts, order: order.order }, window);
    rows = ids.length === 0 ? [] : await rowsOf(ids);
  } else if (from.offset < idsFirstFrom) {
    rows = await run(
      articlePageQuery(db.kysely, db.dialect, filter, order, from, columns.content, plan, columns.html),
    );
  } else {
    const ids =
      (mark !== null && flagged !== null ? await flaggedPageIds(flagged()) : null) ??
      (await run(articlePageIdsQuery(db.kysely, db.dialect, filter, order, from, plan))).map((row) => row.id);
    rows = ids.length === 0 ? [] : await rowsOf(ids);
  }
  return { rows: window.reverse ? rows.reverse() : rows, total };

  /**
   * A filtered list's deep page from its mark, each article walked looked up among the matches by
   * its ordinal rather than checked by itself (a probe of its tags): null when the list may have
   * changed since the matches were read (the project's version of the marks moved), or no article
   * was found to tell.
   */
  async function flaggedPageIds(flags: OrdinalFlags): Promise<string[] | null> {
    const marked = order as { sort: MarkedSort; order: 'asc' | 'desc' };
    // The project's version as read before the matches were.
    const version = Number(project[marksVersionColumn(marked.sort)]);
    const found = await run(articleFlaggedPageIdsQuery(db.kysely, db.dialect, filter, marked, from, flags));
    if (found.length === 0 || found.some((row) => Number(row.version) !== version)) return null;
    return found.map((row) => row.id);
  }
}

/** Whether the filter keeps only some of the project's articles (a status, published or not, tags). */
function filtersArticles(filter: ArticleFilter): boolean {
  return (
    filter.status !== undefined ||
    filter.published !== undefined ||
    filter.anyTagIds !== null ||
    filter.allTagIds !== null ||
    filter.excludeTagIds.length > 0
  );
}

/** No search and no tag filter: what the marks and the view-count parts apply to. */
function withoutSetFilters(filter: ArticleFilter): boolean {
  return (
    filter.searchTerms.length === 0 &&
    filter.anyTagIds === null &&
    filter.allTagIds === null &&
    filter.excludeTagIds.length === 0
  );
}

/**
 * The ids of a page of a sort read in two parts (SortPart), in the order read: a walk of one index
 * each, where the sort key computed for every article and sorted took 270 ms for the first page
 * by view count of 100,000 articles. The second part is read only for the rest of a page that the
 * first ends in, or, past the first, after counting it.
 */
async function pageIdsFromParts(
  db: Db,
  run: Run,
  filter: ArticleFilter,
  { parts: [first, second], order }: { parts: [SortPart, SortPart]; order: 'asc' | 'desc' },
  window: PageWindow,
): Promise<string[]> {
  const direction = window.reverse ? (order === 'asc' ? 'desc' : 'asc') : order;
  const ids = await run(sortPartIdsQuery(db.kysely, db.dialect, filter, first, direction, window));
  if (ids.length === window.limit) return ids.map((row) => row.id);
  const inFirst =
    ids.length > 0
      ? window.offset + ids.length
      : Number((await run(sortPartCountQuery(db.kysely, db.dialect, filter, first)))[0].count);
  const rest = await run(
    sortPartIdsQuery(db.kysely, db.dialect, filter, second, direction, {
      offset: Math.max(0, window.offset - inFirst),
      limit: window.limit - ids.length,
    }),
  );
  return [...ids, ...rest].map((row) => row.id);
}

/**
 * What changes when a commit is made: data_version by another connection, total_changes by this
 * one (an in-memory database is read on its only connection).
 */
const commitsSeen = sql<{
  data_version: number;
  changes: number;
}>`select data_version, total_changes() as changes from pragma_data_version`;

/**
 * SQLite: a search's page read as if in one snapshot. Each statement of the read thread sees what
 * was committed when it runs; when no other connection committed between the first and the last
 * (commitsSeen is the same), the matches were exact for the page too,
 * which is then found by ordinals alone rather than by checking each article's text (page 2,000
 * of `tion` in 100,000 articles walked 20,000 texts); else the page is read again that way.
 */
export async function readSearchPageOnSqlite(
  db: Db,
  read: PageRead,
  run: Run,
  shortWalkRows = shortWalk,
): Promise<{ rows: ArticleRow[]; total: number }> {
  const version = async () => {
    const [row] = await run(commitsSeen.compile(db.kysely));
    return `${row.data_version} ${row.changes}`;
  };
  const before = await version();
  const exact = await readArticlePage(db, read, run, true, shortWalkRows);
  // No page was read (no match, or a page past the last): the total stands as the sets counted it,
  // and a second look at the commits would only cost a trip to the reading thread.
  if (read.page.offset >= exact.total) return exact;
  if ((await version()) === before) return exact;
  return readArticlePage(db, read, run, false, shortWalkRows);
}

/** How searches share a PostgreSQL database (config.ts: SEARCH_CONCURRENCY, SEARCH_TIMEOUT_MS). */
export interface SearchSettings {
  concurrency: number;
  timeoutMs: number;
}

export const defaultSearchSettings: SearchSettings = {
  concurrency: defaultLimits.searchConcurrency,
  timeoutMs: defaultLimits.searchTimeoutMs,
};

const setRepeatableRead = sql`set transaction isolation level repeatable read`;
const withoutBitmapScans = sql`set local enable_bitmapscan = off`;

/**
 * Searches running at once on a PostgreSQL database, per handle: the others wait in turn (first
 * come, first served), so that the pool keeps connections for the other requests. Each search
 * holds its slot for the few statements it runs, milliseconds once its sets are read.
 */
class SearchSlots {
  settings = defaultSearchSettings;
  #running = 0;
  readonly #waiting: Array<() => void> = [];
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async run<T>(read: (run: Run, oneSnapshot: boolean) => Promise<T>): Promise<T> {
    if (this.#running >= this.settings.concurrency)
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await this.#db.transactionWithTimeout(this.settings.timeoutMs, async (trx) => {
        // One snapshot for the sets, the texts checked and the page: the total is the page's.
        await trx.executeQuery(setRepeatableRead.compile(trx));
        await preferIndexScans(trx);
        const run: Run = async (compiled) => (await trx.executeQuery(compiled)).rows;
        return read(run, true);
      });
    } catch (error) {
      // PostgreSQL cancelled it at the statement timeout (57014), which the pool reports as a
      // timeout of the database with the cancellation as its cause.
      const failure = error as { code?: unknown; cause?: { code?: unknown } };
      if (failure.code === '57014' || failure.cause?.code === '57014')
        throw new ServiceUnavailableError('The search took too long; try more or longer terms');
      throw error;
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}

const slots = new WeakMap<Db, SearchSlots>();

/** The search slots of a database handle, with these settings from now on. */
export function searchSlotsOf(db: Db, settings: SearchSettings = defaultSearchSettings): SearchSlots {
  let found = slots.get(db);
  if (found === undefined) slots.set(db, (found = new SearchSlots(db)));
  found.settings = settings;
  return found;
}
