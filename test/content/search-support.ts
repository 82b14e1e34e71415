// What the search and list tests share: a Run (what the article queries run their statements
// through) that records the SQL of each statement, so that a test can tell which path a read took,
// and the filter of a plain search.
import type { CompiledQuery } from 'kysely';
import type { Run } from '../../src/content/article-matches.ts';
import type { ArticleFilter } from '../../src/content/article-queries.ts';
import type { Db } from '../../src/db/database.ts';

/** `offThread`: through the database's read lanes (as a list page reads); else through Kysely. */
export function recordingRun(db: Db, options: { offThread: boolean }): { run: Run; statements: string[] } {
  const statements: string[] = [];
  const run: Run = async <R>(query: CompiledQuery<R>) => {
    statements.push(query.sql);
    if (options.offThread) return (await db.readOffThread(query)) as R[];
    return (await db.kysely.executeQuery(query)).rows;
  };
  return { run, statements };
}

/** A search of a project's articles for `searchTerms`, without tags, as of now. */
export function searchFilter(projectId: string, searchTerms: string[]): ArticleFilter {
  return {
    projectId,
    now: new Date().toISOString(),
    searchTerms,
    anyTagIds: null,
    allTagIds: null,
    excludeTagIds: [],
  };
}
