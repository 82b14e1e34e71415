// The SQL fragments that differ between SQLite and PostgreSQL, together in one place.
import { type Expression, type SqlBool, sql } from 'kysely';
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
    if (!SIGMA.test(term)) {
      const pattern = `%${escaped}%`;
      return sql<SqlBool>`(articles.title ilike ${pattern} or articles.content ilike ${pattern})`;
    }
    // A wildcard in place of each sigma keeps the trigram index usable; the second comparison,
    // with every sigma made σ on both sides, is the exact one.
    const loose = `%${escaped.replace(SIGMAS, '_')}%`;
    const folded = `%${escaped.replace(SIGMAS, 'σ')}%`;
    return sql<SqlBool>`((articles.title ilike ${loose} and translate(articles.title, 'Σς', 'σσ') ilike ${folded}) or (articles.content ilike ${loose} and translate(articles.content, 'Σς', 'σσ') ilike ${folded}))`;
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
