// A Run (what the article queries run their statements through) that records the SQL of each
// statement, so that a test can tell which path a read took.
import type { CompiledQuery } from 'kysely';
import type { Run } from '../../src/content/article-matches.ts';
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
