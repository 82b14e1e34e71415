// Writes the changes of a batch to the insights rollups, in both databases: the visitor sets first
// (the ids they did not hold yet are the new distinct visitors), then every rollup row once, in key
// order (two instances then lock shared rows in the same order), as multi-row upserts.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { type InsightChanges, reachColumns, type VisitorCandidate } from '../insight-changes.ts';

type Executor = Kysely<Database>;
type Counted = 'views' | 'visitors' | 'time_on_page_ms' | 'scroll_depth_centi' | 'events' | 'deep_views';

// Well under SQLite's 32,766 and PostgreSQL's 65,535 parameters for the widest row (14 columns).
const rowsPerStatement = 1000;

function chunks<T>(rows: T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    result.push(rows.slice(start, start + rowsPerStatement));
  }
  return result;
}

/** The candidates whose visitor id was not yet in the set of their scope and day; adds them. */
export async function addToVisitorSets(
  db: Executor,
  candidates: VisitorCandidate[],
): Promise<VisitorCandidate[]> {
  const added: VisitorCandidate[] = [];
  for (const chunk of chunks(candidates)) {
    const byKey = new Map(
      chunk.map((c) => [`${c.project_id}\u0000${c.day}\u0000${c.scope}\u0000${c.visitor_id}`, c]),
    );
    const rows = await db
      .insertInto('analytics_visitor_sets')
      .values(chunk.map(({ project_id, day, scope, visitor_id }) => ({ project_id, day, scope, visitor_id })))
      .onConflict((conflict) => conflict.doNothing())
      .returning(['project_id', 'day', 'scope', 'visitor_id'])
      .execute();
    for (const row of rows)
      added.push(byKey.get(`${row.project_id}\u0000${row.day}\u0000${row.scope}\u0000${row.visitor_id}`)!);
  }
  return added;
}

export async function writeInsights(db: Executor, changes: InsightChanges): Promise<void> {
  if (changes.isEmpty) return;
  await changes.countVisitors((candidates) => addToVisitorSets(db, candidates));
  await writeInsightRollups(db, changes);
}

/** The rollup rows of `changes`, added to those stored (visitors already counted). */
export async function writeInsightRollups(db: Executor, changes: InsightChanges): Promise<void> {
  const add = (table: string, columns: readonly string[]) =>
    Object.fromEntries(
      columns.map((column) => [
        column,
        (eb: any) => eb(`${table}.${column}`, '+', eb.ref(`excluded.${column}`)),
      ]),
    );
  const set = (table: string, columns: readonly string[]) => (eb: any) =>
    Object.fromEntries(Object.entries(add(table, columns)).map(([column, make]) => [column, make(eb)]));

  const seriesCounted: Counted[] = ['views', 'visitors', 'time_on_page_ms', 'scroll_depth_centi'];
  for (const chunk of chunks(changes.series)) {
    await db
      .insertInto('analytics_series')
      .values(chunk)
      .onConflict((conflict) =>
        conflict
          .columns(['project_id', 'article_id', 'granularity', 'bucket'])
          .doUpdateSet(set('analytics_series', seriesCounted)),
      )
      .execute();
  }
  for (const chunk of chunks(changes.breakdowns)) {
    await db
      .insertInto('analytics_breakdowns')
      .values(chunk)
      .onConflict((conflict) =>
        conflict
          .columns(['project_id', 'dimension', 'day', 'value'])
          .doUpdateSet(set('analytics_breakdowns', ['views', 'visitors', 'events'])),
      )
      .execute();
  }
  for (const chunk of chunks(changes.reading)) {
    await db
      .insertInto('analytics_reading')
      .values(chunk)
      .onConflict((conflict) =>
        conflict
          .columns(['project_id', 'article_id', 'day'])
          .doUpdateSet(set('analytics_reading', reachColumns)),
      )
      .execute();
  }
  for (const chunk of chunks(changes.readTimes)) {
    await db
      .insertInto('analytics_read_times')
      .values(chunk)
      .onConflict((conflict) =>
        conflict
          .columns(['project_id', 'article_id', 'day', 'seconds'])
          .doUpdateSet(set('analytics_read_times', ['views', 'deep_views'])),
      )
      .execute();
  }
}
