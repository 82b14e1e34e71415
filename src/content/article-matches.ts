// The articles a list's filters match, exactly, from the project's article sets (article-sets.ts):
// the stored status sets less the articles scheduled at `now`, tag sets, and per search term the
// set of its piece of text (up to three characters) or the union of the sets of the words holding
// it. A term held by very many words is not read word by word when the other filters leave few
// articles: those few are checked in their texts instead. A term longer than the word windows is
// found from the words holding its start, then checked in the texts of those articles.
import { type CompiledQuery, type RawBuilder, sql } from 'kysely';
import type { DialectName } from '../db/database.ts';
import { articleTextContains, ordinalAmong, projectTokensHolding } from '../db/dialect-sql.ts';
import type { Executor, StoredArticleStatus } from '../db/schema.ts';
import type { ArticleFilter } from './article-queries.ts';
import {
  bitmapBytes,
  fragmentSetKey,
  OrdinalSet,
  statusSetKey,
  tagSetKey,
  termSource,
  windowStep,
} from './article-sets.ts';
import type { TermSets } from './search-cache.ts';
import { searchKey } from './search-text.ts';

/** Runs one compiled query somewhere (a worker, a transaction) and returns its rows. */
export type Run = <R>(query: CompiledQuery<R>) => Promise<R[]>;

/** A row of the sets' query: one stored chunk of a set, or (`scheduled`) one ordinal in `chunk`. */
export interface SetRow {
  part: string;
  chunk: number;
  members: Uint8Array | null;
}

/**
 * Chunks of the terms' word sets read with the other sets (each term its share, 200 at least):
 * past its share, a term is either checked in the texts of the articles the rest of the filter
 * leaves, or read alone (and cached).
 */
export const termChunksFirst = 2_000;
/**
 * Articles left by the rest of a filter that are checked in their texts rather than a large
 * term's sets read: on SQLite a text is checked in 2-10 µs, a chunk of a set read in about 2 µs,
 * and `tion` in 100,000 articles has 43,000 chunks (70-150 ms). PostgreSQL reads a text from its
 * row in 15-30 µs (10,000 texts: 150-300 ms, where the sets of `tion` took 70-180 ms): there the
 * texts are checked only when far fewer are left.
 */
export const checkedInTexts = { sqlite: 20_000, postgres: 3_000 } as const;
/**
 * Chunks of one term's sets read at most (about 100 ms to read and combine): a term held by more
 * words than that (a fragment of nearly every word of a project of unique tokens) is counted in
 * the texts instead.
 */
export const termChunksMost = 200_000;
/**
 * Articles left by the first terms of many that are checked in their texts for the others, rather
 * than the next terms' sets read (three at a time): on PostgreSQL a text is read from its row, 10
 * to 20 µs, and a 200-character query of frequent words checked 7,000 candidates that way in 130
 * to 330 ms, where its next three terms' sets (its rare word among them) took a few.
 */
export const laterCheckedInTexts = 1_000;
/** The limits above, as findMatches takes them (tests lower them). */
export interface MatchLimits {
  termChunksFirst: number;
  checkedInTexts: number;
  termChunksMost: number;
  laterCheckedInTexts: number;
}

/** The limits above for a database. */
export function matchLimitsOf(dialect: DialectName): MatchLimits {
  return { termChunksFirst, checkedInTexts: checkedInTexts[dialect], termChunksMost, laterCheckedInTexts };
}

/** Rows combined between two turns of the event loop (about a millisecond), so that other requests go on. */
const rowsPerTurn = 2_000;

type TermPlan =
  | { kind: 'empty' }
  | { kind: 'piece'; part: string }
  | { kind: 'known'; part: string; set: OrdinalSet }
  /** `tokens`: what the words must hold; `check`: the whole term, when it is longer (found in the texts). */
  | { kind: 'tokens'; part: string; key: string; tokens: string; check: boolean };

export interface Matches {
  /** The matching articles' ordinals. */
  set: OrdinalSet;
  /** Articles of the project, of any status. */
  all: OrdinalSet;
  /**
   * Terms held by so many words that their word sets were read alone, each with its set: the
   * project may store it whole (fragment-sets.ts) for the next searches.
   */
  readAlone: Array<{ fragment: string; set: OrdinalSet }>;
}

const storedStatuses: StoredArticleStatus[] = ['draft', 'published', 'archived'];

/**
 * The articles the filter matches; null when a term is held by too many words to combine (the
 * caller counts in the texts). `known` holds the sets of terms read before at this content version.
 */
export async function findMatches(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  run: Run,
  known: TermSets | null,
  limits: MatchLimits = matchLimitsOf(dialect),
): Promise<Matches | null> {
  const terms = planTerms(filter.searchTerms, known);
  const words = terms.filter((term): term is TokensTerm => term.kind === 'tokens');
  // Of many terms (a pasted sentence), the longest, likely the rarest, are read first, then the
  // next longest a few at a time while many articles are left: the rest are checked in the texts
  // of the few articles left.
  // A term found large before (at any content version) is not read with the other sets.
  const large = words.filter((term) => known?.isLarge(term.tokens) === true);
  const byLength = words
    .filter((term) => !large.includes(term))
    .sort((a, b) => b.tokens.length - a.tokens.length);
  const early = new Set(byLength.slice(0, earlyTerms));
  let later = byLength.slice(earlyTerms);
  const share = shareOf(limits, early.size);
  const first = await readParts(
    await run(firstQuery(executor, dialect, filter, terms, (term) => early.has(term), share)),
  );
  const base = combine(filter, first.parts);
  // A term whose fragment set the project stores is that set, whatever its words.
  const stored = (term: TokensTerm) => (term.check ? undefined : first.parts.get(fragmentSetKey(term.key)));
  const unstored = (term: TokensTerm) => stored(term) === undefined;
  let set = base.set;
  for (const term of terms) {
    if (term.kind === 'empty') set = new OrdinalSet();
    else if (term.kind === 'known') set = set.and(term.set);
    else if (term.kind === 'piece') set = set.and(first.parts.get(term.part) ?? new OrdinalSet());
    else if (!unstored(term)) {
      const fragment = stored(term)!;
      known?.set(term.key, fragment);
      // Its word sets are many: not read with the other sets again (its stored set is).
      known?.setLarge(term.tokens);
      set = set.and(fragment);
    }
  }
  later = later.filter(unstored);
  const found = { set, toCheck: [] as string[], large: large.filter(unstored) };
  takeTerms(found, [...early].filter(unstored), first, share, known);
  while (later.length > 0 && found.set.size > limits.laterCheckedInTexts) {
    const round = later.slice(0, earlyTerms);
    later = later.slice(earlyTerms);
    const roundShare = shareOf(limits, round.length);
    const rows = await run(
      sql<SetRow>`${sql.join(
        round.map((term) => termBranch(dialect, filter.projectId, term, roundShare)),
        sql` union all `,
      )}`.compile(executor),
    );
    takeTerms(found, round, await readParts(rows), roundShare, known);
  }
  found.toCheck.push(...later.map((term) => term.key));
  set = found.set;
  const readAlone: Matches['readAlone'] = [];
  for (const term of found.large) {
    if (set.size <= limits.checkedInTexts) {
      found.toCheck.push(term.key);
      continue;
    }
    const read = () => readTerm(executor, dialect, filter.projectId, term, run, limits.termChunksMost);
    const termSet = known === null ? await read() : await known.shared(term.tokens, read);
    if (termSet === null) return null;
    if (term.check) found.toCheck.push(term.key);
    else {
      known?.set(term.key, termSet);
      readAlone.push({ fragment: term.key, set: termSet });
    }
    set = set.and(termSet);
  }
  if (found.toCheck.length > 0 && set.size > 0)
    set = await checkInTexts(executor, dialect, filter, set, found.toCheck, run);
  return { set, all: base.all, readAlone };
}

/** Token terms whose word sets are read in the first statement, and in each later one. */
const earlyTerms = 3;

type TokensTerm = Extract<TermPlan, { kind: 'tokens' }>;

/** Chunks read per term at first: the terms share termChunksFirst (each 200 at least). */
function shareOf(limits: MatchLimits, terms: number): number {
  return Math.max(
    Math.min(limits.termChunksFirst, 200),
    Math.floor(limits.termChunksFirst / Math.max(1, terms)),
  );
}

/**
 * Applies the word sets read of these terms: a term with more than `share` chunks is large (read
 * alone or checked in the texts later); a long one is checked in the texts; the others are kept.
 */
function takeTerms(
  found: { set: OrdinalSet; toCheck: string[]; large: TokensTerm[] },
  terms: TokensTerm[],
  read: { parts: Map<string, OrdinalSet>; counts: Map<string, number> },
  share: number,
  known: TermSets | null,
): void {
  for (const term of terms) {
    if ((read.counts.get(term.part) ?? 0) > share) {
      found.large.push(term);
      known?.setLarge(term.tokens);
      continue;
    }
    const words = read.parts.get(term.part) ?? new OrdinalSet();
    if (term.check) found.toCheck.push(term.key);
    else known?.set(term.key, words);
    found.set = found.set.and(words);
  }
}

function planTerms(searchTerms: string[], known: TermSets | null): TermPlan[] {
  return searchTerms.map((term, i): TermPlan => {
    const key = searchKey(term);
    // No stored text holds a NUL (and PostgreSQL takes none in a parameter): nothing matches.
    if (key.includes('\u0000')) return { kind: 'empty' };
    const source = termSource(key);
    if (source.kind === 'piece') return { kind: 'piece', part: source.key };
    const set = known?.get(key);
    if (set !== undefined) return { kind: 'known', part: `term ${i}`, set };
    if (source.kind === 'tokens')
      return { kind: 'tokens', part: `term ${i}`, key, tokens: key, check: false };
    // Longer than a window step: its start lies whole in a window of every word that holds it.
    let end = windowStep;
    if (/[\ud800-\udbff]/u.test(key[end - 1])) end--;
    return { kind: 'tokens', part: `term ${i}`, key, tokens: key.slice(0, end), check: true };
  });
}

/** The word sets of one term: a branch of a union (`limit` chunks at most, plus one to tell). */
function termBranch(
  dialect: DialectName,
  projectId: string,
  term: { part: string; tokens: string },
  limit: number,
): RawBuilder<unknown> {
  return sql`select * from (select ${term.part} as part, s.chunk, s.members
    from search_tokens as t join article_sets as s on s.project_id = t.project_id and s.set_key = 't:' || t.token
    where ${projectTokensHolding(dialect, projectId, term.tokens)} limit ${limit + 1}) as ${sql.id(term.part.replace(' ', '_'))}`;
}

/** One statement, so that the sets are read from one snapshot: status, tags, pieces, terms' words. */
function firstQuery(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  terms: TermPlan[],
  readNow: (term: TokensTerm) => boolean,
  termChunks: number,
): CompiledQuery<SetRow> {
  const { projectId, status, published } = filter;
  const fixed = new Set<string>(storedStatuses.map(statusSetKey));
  for (const term of terms) {
    if (term.kind === 'piece') fixed.add(term.part);
    if (term.kind === 'tokens' && !term.check) fixed.add(fragmentSetKey(term.key));
  }
  for (const id of [...(filter.anyTagIds ?? []), ...(filter.allTagIds ?? []), ...filter.excludeTagIds])
    fixed.add(tagSetKey(id));
  const branches: RawBuilder<unknown>[] = [
    sql`select set_key as part, chunk, members from article_sets where project_id = ${projectId} and set_key in (${sql.join([...fixed])})`,
  ];
  for (const term of terms)
    if (term.kind === 'tokens' && readNow(term))
      branches.push(termBranch(dialect, projectId, term, termChunks));
  if (status === 'published' || status === 'scheduled' || published !== undefined)
    branches.push(scheduledBranch(projectId, filter.now));
  return sql<SetRow>`${sql.join(branches, sql` union all `)}`.compile(executor);
}

/** The project's articles scheduled after `now`: rows of the part `scheduled`, an ordinal each. */
function scheduledBranch(projectId: string, now: string): RawBuilder<unknown> {
  return sql`select 'scheduled' as part, ordinal as chunk, null as members from articles
    where project_id = ${projectId} and status = 'published' and published_at > ${now}`;
}

/** The articles published now: the stored published set, less those scheduled after now. */
function publishedNowOf(parts: Map<string, OrdinalSet>): OrdinalSet {
  return (parts.get(statusSetKey('published')) ?? new OrdinalSet()).minus(
    parts.get('scheduled') ?? new OrdinalSet(),
  );
}

/**
 * Each tag's articles (by tag id), counted from its tag set: all of them, or (`published`) those
 * published now or not, in one statement. The tag sets are the keys from `g:` to `g;` (`;`
 * follows `:`), a range of the key's index, where a LIKE would read every set of the project on
 * SQLite (its LIKE ignores case, so no index serves it).
 */
export async function tagArticleCounts(
  executor: Executor,
  projectId: string,
  filter: { published: boolean | undefined; now: string },
  run: Run,
): Promise<Map<string, number>> {
  const { published, now } = filter;
  const keys =
    published === undefined
      ? sql`set_key >= 'g:' and set_key < 'g;'`
      : sql`((set_key >= 'g:' and set_key < 'g;') or set_key = ${statusSetKey('published')})`;
  const branches = [
    sql`select set_key as part, chunk, members from article_sets where project_id = ${projectId} and ${keys}`,
  ];
  if (published !== undefined) branches.push(scheduledBranch(projectId, now));
  const { parts } = await readParts(
    await run(sql<SetRow>`${sql.join(branches, sql` union all `)}`.compile(executor)),
  );
  const publishedNow = published === undefined ? null : publishedNowOf(parts);
  const counts = new Map<string, number>();
  for (const [key, set] of parts) {
    if (!key.startsWith('g:')) continue;
    const counted = publishedNow === null ? set : published ? set.and(publishedNow) : set.minus(publishedNow);
    counts.set(key.slice(2), counted.size);
  }
  return counts;
}

/** The rows as one set per part, and the rows of each part; a turn of the event loop every so often. */
async function readParts(
  rows: SetRow[],
): Promise<{ parts: Map<string, OrdinalSet>; counts: Map<string, number> }> {
  const parts = new Map<string, OrdinalSet>();
  const counts = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % rowsPerTurn === 0) await new Promise((resolve) => setImmediate(resolve));
    const { part, chunk, members } = rows[i];
    let set = parts.get(part);
    if (set === undefined) parts.set(part, (set = new OrdinalSet()));
    counts.set(part, (counts.get(part) ?? 0) + 1);
    if (members === null) set.add(Number(chunk));
    else set.addStored(Number(chunk), members);
  }
  return { parts, counts };
}

/** A row of a term's joined word sets: the members of `stored` chunks of one number, end to end. */
interface JoinedRow {
  chunk: number;
  bitmaps: boolean | number;
  stored: number | string;
  members: Uint8Array;
}

/**
 * All the word sets of one term, or null past termChunksMost. The database joins the stored
 * chunks of each chunk number end to end (bitmaps apart from lists), so that a term held by a
 * thousand words comes back as a few dozen rows rather than tens of thousands, each with a buffer
 * of its own to decode and, on SQLite, to copy from the reading thread (measured for `tion` in
 * 100,000 articles on SQLite: the copy of its 43,000 rows took as long as reading them).
 */
async function readTerm(
  executor: Executor,
  dialect: DialectName,
  projectId: string,
  term: { part: string; tokens: string },
  run: Run,
  most: number,
): Promise<OrdinalSet | null> {
  // SQLite's group_concat appends a blob's bytes as they are (NULs included) and the cast gives
  // them back as a blob: half the bytes and none of the work of joining them as hexadecimal text
  // (`tion` in 100,000 articles: 100 ms instead of 250 on a busy machine).
  const joined =
    dialect === 'postgres'
      ? sql`string_agg(w.members, ''::bytea)`
      : sql`cast(group_concat(w.members, '') as blob)`;
  const rows = await run(
    sql<JoinedRow>`select w.chunk, length(w.members) = ${sql.lit(bitmapBytes)} as bitmaps, count(*) as stored, ${joined} as members
      from (${termBranch(dialect, projectId, term, most)}) as w group by 1, 2`.compile(executor),
  );
  if (rows.reduce((sum, row) => sum + Number(row.stored), 0) > most) return null;
  const set = new OrdinalSet();
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % joinedRowsPerTurn === 0) await new Promise((resolve) => setImmediate(resolve));
    set.addJoined(Number(rows[i].chunk), rows[i].members, Boolean(rows[i].bitmaps));
  }
  return set;
}

/** Joined rows combined between two turns of the event loop (each up to a few thousand stored chunks). */
const joinedRowsPerTurn = 4;

/** Those of `candidates` whose text holds every one of the keys. */
async function checkInTexts(
  executor: Executor,
  dialect: DialectName,
  filter: ArticleFilter,
  candidates: OrdinalSet,
  keys: string[],
  run: Run,
): Promise<OrdinalSet> {
  let query = executor
    .selectFrom('articles')
    .select('articles.ordinal')
    .where('articles.project_id', '=', filter.projectId)
    .where(ordinalAmong(dialect, candidates.ordinals()));
  for (const key of keys) query = query.where(articleTextContains(dialect, key));
  const rows = await run(query.compile());
  return OrdinalSet.of(rows.map((row) => Number(row.ordinal)));
}

/** The status, published and tag filters applied to the sets read. */
function combine(
  filter: ArticleFilter,
  parts: Map<string, OrdinalSet>,
): { set: OrdinalSet; all: OrdinalSet } {
  const { status, published } = filter;
  const setOf = (part: string) => parts.get(part) ?? new OrdinalSet();
  const union = (keys: string[]) => keys.reduce((all, key) => all.or(setOf(key)), new OrdinalSet());
  const tagKeys = (ids: string[] | null) => (ids ?? []).map(tagSetKey);
  const all = union(storedStatuses.map(statusSetKey));
  const publishedNow = () => publishedNowOf(parts);
  let result: OrdinalSet;
  if (status === undefined) result = all;
  else if (status === 'published') result = publishedNow();
  else if (status === 'scheduled') result = setOf('scheduled');
  else result = setOf(statusSetKey(status));
  if (published === true) result = result.and(publishedNow());
  if (published === false) result = result.minus(publishedNow());
  if (filter.anyTagIds !== null) result = result.and(union(tagKeys(filter.anyTagIds)));
  // An empty list of all-of tags holds a name that matches no tag: no article has them all.
  if (filter.allTagIds?.length === 0) result = new OrdinalSet();
  for (const key of tagKeys(filter.allTagIds)) result = result.and(setOf(key));
  if (filter.excludeTagIds.length > 0) result = result.minus(union(tagKeys(filter.excludeTagIds)));
  return { set: result, all };
}
