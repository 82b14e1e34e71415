// The SQL fragments that differ between SQLite and PostgreSQL, together in one place.
import { type Expression, type SqlBool, sql } from 'kysely';
import type { DialectName } from './database.ts';

/**
 * Case-insensitive substring match of one search term in an article's title or content: the FTS5
 * trigram index on SQLite (terms of three characters or more; shorter ones cannot use a trigram
 * index and scan with a Unicode-aware function), pg_trgm-backed ILIKE on PostgreSQL.
 */
export function articleContainsTerm(dialect: DialectName, term: string): Expression<SqlBool> {
  if (dialect === 'postgres') {
    const pattern = `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    return sql<SqlBool>`(articles.title ilike ${pattern} or articles.content ilike ${pattern})`;
  }
  if ([...term].length >= 3) {
    const phrase = `"${term.replaceAll('"', '""')}"`;
    return sql<SqlBool>`articles.search_rowid in (select rowid from article_search where article_search match ${phrase})`;
  }
  const needle = term.toLowerCase();
  return sql<SqlBool>`(folio_icontains(articles.title, ${needle}) or folio_icontains(articles.content, ${needle}))`;
}
