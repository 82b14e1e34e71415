// Writes the changes of a batch to the rollups, in both databases: the visitor sets first (the ids
// they did not hold yet are the new distinct visitors), then every rollup row once, in key order
// (two instances then lock shared rows in the same order), as multi-row upserts that add the
// changes to the stored sums.
import { CompiledQuery, type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { contributionFields } from '../contribution.ts';
import { type InsightChanges, reachColumns, type VisitorCandidate } from '../insight-changes.ts';
import type { RollupChanges, VisitorKey } from '../rollup-changes.ts';

type Executor = Kysely<Database>;

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
  if (!isPostgres(db)) {
    return addEach(db, visitorSetInsert, candidates, (c) => [c.project_id, c.day, c.scope, c.visitor_id]);
  }
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

/** The keys whose visitor id was not yet in the day's set of the project; adds them. */
async function addToDailyVisitors(db: Executor, keys: VisitorKey[]): Promise<VisitorKey[]> {
  if (!isPostgres(db))
    return addEach(db, dailyVisitorInsert, keys, (k) => [k.project_id, k.day, k.visitor_id]);
  const added: VisitorKey[] = [];
  for (const chunk of chunks(keys)) {
    const rows = await db
      .insertInto('analytics_daily_visitors')
      .values(chunk)
      .onConflict((conflict) => conflict.doNothing())
      .returning(['project_id', 'day', 'visitor_id'])
      .execute();
    added.push(...rows);
  }
  return added;
}

const visitorSetInsert =
  'insert into analytics_visitor_sets (project_id, day, scope, visitor_id) values (?, ?, ?, ?) on conflict do nothing';
const dailyVisitorInsert =
  'insert into analytics_daily_visitors (project_id, day, visitor_id) values (?, ?, ?) on conflict do nothing';

/** SQLite: inserts each item by one cached prepared statement; the items it added. */
async function addEach<T>(db: Executor, text: string, items: T[], parameters: (item: T) => unknown[]) {
  const added: T[] = [];
  for (const item of items) {
    const result = await db.executeQuery(CompiledQuery.raw(text, parameters(item)));
    if (Number(result.numAffectedRows ?? 0) > 0) added.push(item);
  }
  return added;
}

function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Adds a batch's changes to the daily and insights rollups and the view counts. `oneStatement`: the upserts go as one
 * statement of data-modifying WITH clauses (PostgreSQL; SQLite has none), a round trip per table
 * fewer. `known`: visitor-set entries known to be stored, which are neither new nor written again;
 * returns the entries of `known`'s day that the batch stored or found, for the caller to add to it
 * once the batch is committed.
 */
export async function writeRollups(
  db: Executor,
  daily: RollupChanges,
  insights: InsightChanges,
  options: { oneStatement?: boolean; known?: KnownVisitors } = {},
): Promise<string[]> {
  const { known } = options;
  const stored: string[] = [];
  const unknown = <T extends { project_id: string; day: string; visitor_id: string }>(
    items: T[],
    scopeOf: (item: T) => string,
  ): T[] => {
    if (known === undefined) return items;
    return items.filter((item) => {
      if (item.day !== known.day) return true;
      const key = visitorKey(item, scopeOf(item));
      if (known.has(key)) return false;
      stored.push(key);
      return true;
    });
  };
  const dailyKeys = unknown(daily.visitors, () => dailyScope);
  for (const key of await addToDailyVisitors(db, dailyKeys)) daily.addNewVisitor(key);
  await insights.countVisitors((candidates) =>
    addToVisitorSets(
      db,
      unknown(candidates, (candidate) => candidate.scope),
    ),
  );
  await writeSums(db, [...dailyTables(daily), ...insightTables(insights)], options);
  return stored;
}

// The daily visitor set (analytics_daily_visitors) among the scopes of the visitor sets.
const dailyScope = '\u0001daily';

function visitorKey(item: { project_id: string; day: string; visitor_id: string }, scope: string): string {
  return `${item.project_id}\u0000${item.day}\u0000${scope}\u0000${item.visitor_id}`;
}

/** Keys kept at most; past it the memo starts again (it only saves writes). */
const maxKnownVisitors = 200_000;

/**
 * The visitor-set entries of today (UTC) that a committed roll-up of this process stored or found
 * stored: a page view's ~10 candidates (its visitor in the day's and hour's sets of the project,
 * the article and each breakdown value) are then a lookup here, not a write each, for every page
 * view after a visitor's first. Sound because today's entries are never deleted while the process
 * runs, except by a rebuild, which stores again every visitor of the page views it recounts (these
 * included): retention and salt rotation remove earlier days only, and a deleted project's id is
 * never reused. Entries of other days are not kept, and the memo is emptied when the day changes.
 */
export class KnownVisitors {
  #day = '';
  readonly #keys = new Set<string>();

  /** The day whose entries are kept (today, as of the last call of `at`). */
  get day(): string {
    return this.#day;
  }

  /** Moves to `day`, forgetting the entries of an earlier one. */
  at(day: string): this {
    if (day !== this.#day) {
      this.#day = day;
      this.#keys.clear();
    }
    return this;
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  /** Adds the entries that a committed batch stored or found. */
  learn(keys: string[]): void {
    if (this.#keys.size + keys.length > maxKnownVisitors) this.#keys.clear();
    for (const key of keys) this.#keys.add(key);
  }
}

/** The insights rollup rows of `changes`, added to those stored (visitors already counted). */
export async function writeInsightRollups(db: Executor, changes: InsightChanges): Promise<void> {
  await writeSums(db, insightTables(changes), {});
}

/**
 * Adds the rows of `tables` to the stored sums. SQLite: one cached prepared statement per row, a
 * call of microseconds (a multi-row statement would be prepared anew for each row count, and its
 * building costs more than the rows). PostgreSQL: a multi-row statement per table (per 1,000 rows),
 * or with `oneStatement` all of them as the WITH clauses of one, a round trip for all.
 */
async function writeSums(
  db: Executor,
  tables: SummedTable[],
  options: { oneStatement?: boolean },
): Promise<void> {
  if (!isPostgres(db)) {
    for (const { table, rows, key, counted } of tables) {
      if (rows.length === 0) continue;
      const columns = Object.keys(rows[0]);
      let start = 0;
      for (const size of [rowsPerSqliteStatement, 1]) {
        const text = upsertText(table, columns, key, counted, size);
        for (; start + size <= rows.length; start += size) {
          const parameters: unknown[] = [];
          for (const row of rows.slice(start, start + size)) {
            const values = row as Record<string, unknown>;
            for (const column of columns) parameters.push(values[column]);
          }
          await db.executeQuery(CompiledQuery.raw(text, parameters));
        }
      }
    }
    return;
  }
  const upserts = sumUpserts(db, tables);
  if (options.oneStatement === true && upserts.length > 1) {
    // Each upsert a WITH clause of one statement; they write different tables.
    // Kysely types each WITH clause from the last; the clauses are only written here.
    let combined: any = db;
    upserts.forEach((upsert, index) => {
      combined = combined.with(`u${index}`, () => upsert);
    });
    await combined.selectNoFrom(sql<number>`1`.as('one')).execute();
    return;
  }
  for (const upsert of upserts) await upsert.execute();
}

/** SQLite: rows per statement; the rest of a table's rows go one by one, so that two texts per
 * table are prepared, whatever the number of rows. */
const rowsPerSqliteStatement = 32;
const upsertTexts = new Map<string, string>();

function upsertText(
  table: string,
  columns: string[],
  key: readonly string[],
  counted: readonly string[],
  rows: number,
): string {
  const id = `${table}(${columns.join(',')})×${rows}`;
  let text = upsertTexts.get(id);
  if (text === undefined) {
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    text = `insert into ${table} (${columns.join(', ')}) values ${Array.from({ length: rows }, () => tuple).join(', ')} on conflict (${key.join(', ')}) do update set ${counted.map((column) => `${column} = ${table}.${column} + excluded.${column}`).join(', ')}`;
    upsertTexts.set(id, text);
  }
  return text;
}

interface SummedTable {
  table: string;
  rows: object[];
  /** The primary key: a row with the same key adds its other columns to the stored ones. */
  key: readonly string[];
  counted: readonly string[];
}

function dailyTables(changes: RollupChanges): SummedTable[] {
  return [
    {
      table: 'analytics_daily_totals',
      rows: changes.days,
      key: ['project_id', 'day'],
      counted: ['visitors', ...contributionFields],
    },
    {
      table: 'analytics_daily_articles',
      rows: changes.articles,
      key: ['project_id', 'day', 'article_id'],
      counted: contributionFields,
    },
    {
      table: 'analytics_daily_countries',
      rows: changes.countries,
      key: ['project_id', 'day', 'country'],
      counted: ['views'],
    },
    { table: 'article_views', rows: changes.viewCounts, key: ['article_id'], counted: ['view_count'] },
  ];
}

function insightTables(changes: InsightChanges): SummedTable[] {
  return [
    {
      table: 'analytics_series',
      rows: changes.series,
      key: ['project_id', 'article_id', 'granularity', 'bucket'],
      counted: ['views', 'visitors', 'time_on_page_ms', 'scroll_depth_centi'],
    },
    {
      table: 'analytics_breakdowns',
      rows: changes.breakdowns,
      key: ['project_id', 'dimension', 'day', 'value'],
      counted: ['views', 'visitors', 'events'],
    },
    {
      table: 'analytics_reading',
      rows: changes.reading,
      key: ['project_id', 'article_id', 'day'],
      counted: reachColumns,
    },
    {
      table: 'analytics_read_times',
      rows: changes.readTimes,
      key: ['project_id', 'article_id', 'day', 'seconds'],
      counted: ['views', 'deep_views'],
    },
  ];
}

/** PostgreSQL: the upserts of `tables`' rows, a statement per table (per 1,000 rows). */
function sumUpserts(db: Executor, tables: SummedTable[]) {
  const set = (table: string, columns: readonly string[]) => (eb: any) =>
    Object.fromEntries(
      columns.map((column) => [column, eb(`${table}.${column}`, '+', eb.ref(`excluded.${column}`))]),
    );
  const upserts = [];
  for (const { table, rows, key, counted } of tables) {
    for (const chunk of chunks<object>(rows)) {
      upserts.push(
        (db as Kysely<any>)
          .insertInto(table)
          .values(chunk)
          .onConflict((conflict) => conflict.columns(key).doUpdateSet(set(table, counted))),
      );
    }
  }
  return upserts;
}
