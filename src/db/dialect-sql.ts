// The SQL fragments that differ between SQLite and PostgreSQL, together in one place.
import { type Expression, PostgresAdapter, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DialectName } from './database.ts';
import type { Executor } from './schema.ts';

/** The dialect an executor speaks (the database's Kysely, a transaction's, a connection's). */
export function dialectOf(executor: Executor): DialectName {
  return executor.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Substring match of one search term in an article's search text (title, excerpt and plain text,
 * lower-cased at import: content/search-text.ts), the term given as its key (lower-cased the same
 * way, by searchKey: the caller's, since the rule is content's). Keys of three characters or more
 * use the trigram index (FTS5 on SQLite, pg_trgm on PostgreSQL); shorter ones cannot, and compare
 * with each text of the project.
 */
export function articleContainsTerm(dialect: DialectName, key: string): Expression<SqlBool> {
  // No stored text holds a NUL (PostgreSQL cannot store one), and neither database takes one in a
  // pattern: such a term matches nothing.
  if (key.includes('\u0000')) return sql<SqlBool>`1 = 0`;
  if (dialect === 'postgres') return sql<SqlBool>`articles.search_text like ${containsPattern(key)}`;
  if ([...key].length >= 3) {
    return sql<SqlBool>`articles.search_rowid in (select rowid from article_search where article_search match ${ftsPhrase(key)})`;
  }
  return sql<SqlBool>`instr(articles.search_text, ${key}) > 0`;
}

/**
 * The tokens (alias `t` of search_tokens) of a project that hold a term of three code points or
 * more, already lower-cased with searchKey and free of NUL: found with the trigram index of the
 * tokens (FTS5 on SQLite, pg_trgm on PostgreSQL), which is much smaller than that of the texts.
 */
export function projectTokensHolding(
  dialect: DialectName,
  projectId: string,
  term: string,
): Expression<SqlBool> {
  if (dialect === 'postgres') {
    return sql<SqlBool>`t.project_id = ${projectId} and t.token like ${containsPattern(term)}`;
  }
  // The unary plus keeps SQLite from scanning the project's tokens by the (project_id, token)
  // index: the few tokens the trigram index finds are looked up by rowid instead.
  return sql<SqlBool>`t.id in (select rowid from search_token_index where search_token_index match ${ftsPhrase(term)}) and +t.project_id = ${projectId}`;
}

/** PostgreSQL: a LIKE pattern matching texts that hold `text` (its `\\`, `%` and `_` literal). */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** SQLite FTS5: `text` as one quoted phrase (a trigram index then matches it as a substring). */
function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * Strings as a table `k` with one column, `value` (any number of them, as one parameter). Joined
 * or correlated by value, each is looked up by itself: PostgreSQL took a long IN list on a table
 * it had no statistics for (article_sets filled by a first import) as a filter over a range
 * instead (30 ms per 500 keys, 30 s of a 4,000-article import).
 */
export function valueList(dialect: DialectName, values: string[]): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`unnest(cast(${values} as text[])) as k(value)`
    : sql`json_each(${JSON.stringify(values)}) as k`;
}

/**
 * A set of ordinals as flags: bit n of `bits` (byte n >> 3, bit n & 7, PostgreSQL's `get_bit`
 * order) is set for a member; every member is below `end`.
 */
export interface OrdinalFlags {
  bits: Uint8Array;
  end: number;
}

/** SQLite's form of the flags, one byte per ordinal, made once per set of flags. */
const flagBytes = new WeakMap<OrdinalFlags, Uint8Array>();

/**
 * The article's ordinal is one of these, looked up by its place in a parameter of flags: one
 * check of a few bytes per article walked, with nothing to build or probe first. PostgreSQL reads
 * the bit (`get_bit`), guarded because it refuses a bit past the end; SQLite, whose SQL reads bytes
 * but not bits, one byte per ordinal (1 for a member), where a place past the end reads as no
 * byte. For a long walk where most articles are members, where a probe of an index per article
 * walked (a tag's) or a set built of every member (`ordinalAmong`) costs far more: measured on
 * 100,000 articles, the marks of a 50% tag's page 2,500 (24,000 members walked) took 100 ms on
 * PostgreSQL with a probe of `article_tags` per article, 8 ms so.
 */
export function ordinalFlagged(dialect: DialectName, flags: OrdinalFlags): Expression<SqlBool> {
  if (dialect === 'postgres')
    return sql<SqlBool>`case when articles.ordinal < ${flags.end} then get_bit(cast(${Buffer.from(flags.bits.buffer, flags.bits.byteOffset, flags.bits.byteLength)} as bytea), articles.ordinal) = 1 else false end`;
  let bytes = flagBytes.get(flags);
  if (bytes === undefined) {
    bytes = new Uint8Array(flags.end);
    const { bits } = flags;
    for (let byte = 0; byte < bits.length; byte++) {
      const value = bits[byte];
      if (value === 0) continue;
      for (let bit = 0; bit < 8; bit++) if ((value >> bit) & 1) bytes[(byte << 3) | bit] = 1;
    }
    flagBytes.set(flags, bytes);
  }
  return sql<SqlBool>`substr(${bytes}, articles.ordinal + 1, 1) = x'01'`;
}

/** The article's ordinal is one of these (any number of them, as one parameter). */
export function ordinalAmong(dialect: DialectName, ordinals: number[]): Expression<SqlBool> {
  return dialect === 'postgres'
    ? sql<SqlBool>`articles.ordinal = any(cast(${ordinals} as integer[]))`
    : sql<SqlBool>`articles.ordinal in (select value from json_each(${JSON.stringify(ordinals)}))`;
}

/**
 * The same match as articleContainsTerm (of a key given by searchKey), checked on the article's own text without an index: for
 * a walk along a sort index where most articles match, so that only the walked rows are read.
 */
export function articleTextContains(dialect: DialectName, key: string): Expression<SqlBool> {
  if (key.includes('\u0000')) return sql<SqlBool>`1 = 0`;
  return dialect === 'postgres'
    ? sql<SqlBool>`strpos(articles.search_text, ${key}) > 0`
    : sql<SqlBool>`instr(articles.search_text, ${key}) > 0`;
}

/**
 * PostgreSQL, inside a transaction: plan the rest of it with index scans where any exists. Its
 * planner prices a sequential scan of `articles` by the heap's pages, but the Markdown lives in
 * TOAST and every row must be fetched and decompressed to run ILIKE on it, so it skips the
 * trigram index. Measured on 10,000 articles: a list searching a rare term went from 300 to 21 ms;
 * a term found in every article stays about 300 ms, since every text must then be read anyway.
 */
export async function preferIndexScans(executor: Executor): Promise<void> {
  await sql`set local enable_seqscan = off`.execute(executor);
}

/**
 * PostgreSQL: `unnest($n::type[], …) as u(names)`, the rows of a batch given as one array
 * parameter per column (see columnArrays), numbered from `offset + 1`: the statement's text is the
 * same for any number of rows.
 */
export function unnestArrays(types: readonly string[], names: readonly string[], offset = 0): string {
  return `unnest(${types.map((type, index) => `$${offset + index + 1}::${type}[]`).join(', ')}) as u(${names.join(', ')})`;
}

/**
 * The arrays of `columns` of `rows`, in that order, as PostgreSQL array literals: the parameters of
 * unnestArrays. Written here rather than by pg, which quotes every element and escapes it with two
 * regular expressions (3.0-3.6 µs against 1.2-1.6 µs for a page view's 25 columns, measured; 6% of
 * the event loop's time at 2,000 POST/s).
 */
export function columnArrays<T>(rows: readonly T[], columns: ReadonlyArray<keyof T>): string[] {
  return columns.map((column) => arrayLiteral(rows.map((row) => row[column])));
}

/** A PostgreSQL array literal of strings, numbers, bytes and nulls: `{"a",1,"\\x0aff",NULL}`. */
export function arrayLiteral(values: readonly unknown[]): string {
  let text = '{';
  for (let index = 0; index < values.length; index++) {
    if (index > 0) text += ',';
    const value = values[index];
    if (value === null || value === undefined) text += 'NULL';
    else if (typeof value === 'string') {
      text +=
        value.includes('\\') || value.includes('"') ? `"${value.replace(/[\\"]/g, '\\$&')}"` : `"${value}"`;
    } else if (value instanceof Uint8Array) {
      // bytea's hex input, its backslash escaped within the quotes.
      text += `"\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}"`;
    } else if (typeof value === 'bigint' || (typeof value === 'number' && Number.isFinite(value))) {
      text += String(value);
    } else {
      throw new TypeError(`an array element of type ${typeof value} has no literal here`);
    }
  }
  return `${text}}`;
}
