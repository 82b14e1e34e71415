// The SQL fragments that differ between SQLite and PostgreSQL, together in one place.
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { DialectName } from './database.ts';

// Greek sigma has two lower-case forms, σ and the word-final ς, which Unicode case folding makes
// one letter. SQLite's trigram index folds them; ILIKE and JavaScript's toLowerCase do not.
const SIGMA = /[Σσς]/u;
const SIGMAS = /[Σσς]/gu;

/**
 * Case-insensitive substring match of one search term in an article's title or content: the FTS5
 * trigram index on SQLite (terms of three characters or more; shorter ones cannot use a trigram
 * index and scan with a Unicode-aware function), pg_trgm-backed ILIKE on PostgreSQL.
 */
export function articleContainsTerm(dialect: DialectName, term: string): Expression<SqlBool> {
  // No stored text holds a NUL (PostgreSQL cannot store one), and neither database takes one in a
  // pattern: such a term matches nothing.
  if (term.includes('\u0000')) return sql<SqlBool>`1 = 0`;
  if (dialect === 'postgres') {
    const escaped = term.replace(/[\\%_]/g, (char) => `\\${char}`);
    // Each column is searched in a subquery of its own, whose only index is the trigram one, so
    // that the planner cannot trade it for a scan of the project's rows (see preferIndexScans).
    if (!SIGMA.test(term)) {
      const pattern = `%${escaped}%`;
      return sql<SqlBool>`articles.id in (select t.id from articles t where t.title ilike ${pattern} union all select c.id from articles c where c.content ilike ${pattern})`;
    }
    // A wildcard in place of each sigma keeps the trigram index usable; the second comparison,
    // with every sigma made σ on both sides, is the exact one.
    const loose = `%${escaped.replace(SIGMAS, '_')}%`;
    const folded = `%${escaped.replace(SIGMAS, 'σ')}%`;
    return sql<SqlBool>`articles.id in (select t.id from articles t where t.title ilike ${loose} and translate(t.title, 'Σς', 'σσ') ilike ${folded} union all select c.id from articles c where c.content ilike ${loose} and translate(c.content, 'Σς', 'σσ') ilike ${folded})`;
  }
  if ([...term].length >= 3) {
    const phrase = `"${term.replaceAll('"', '""')}"`;
    return sql<SqlBool>`articles.search_rowid in (select rowid from article_search where article_search match ${phrase})`;
  }
  // toLowerCase writes a sigma as ς or σ depending on its neighbours: try the needle with each form.
  const conditions = sigmaForms(term.toLowerCase()).map(
    (needle) =>
      sql<SqlBool>`folio_icontains(articles.title, ${needle}) or folio_icontains(articles.content, ${needle})`,
  );
  return sql<SqlBool>`(${sql.join(conditions, sql` or `)})`;
}

/** Every spelling of `text` with each sigma written σ or ς (a short term has at most two). */
function sigmaForms(text: string): string[] {
  let forms = [''];
  for (const char of text) {
    const options = SIGMA.test(char) ? ['σ', 'ς'] : [char];
    forms = forms.flatMap((form) => options.map((option) => form + option));
  }
  return forms;
}

/**
 * PostgreSQL, inside a transaction: plan the rest of it with index scans where any exists. Its
 * planner prices a sequential scan of `articles` by the heap's pages, but the Markdown lives in
 * TOAST and every row must be fetched and decompressed to run ILIKE on it, so it skips the
 * trigram index. Measured on 10,000 articles: a list searching a rare term went from 300 to 21 ms;
 * a term found in every article stays about 300 ms, since every text must then be read anyway.
 */
export async function preferIndexScans(trx: Kysely<any>): Promise<void> {
  await sql`set local enable_seqscan = off`.execute(trx);
}
