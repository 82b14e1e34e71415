// Writes the changes of a batch to the rollups, in both databases: the visitor sets first (the ids
// they did not hold yet are the new distinct visitors), then every rollup row once, in key order
// (two instances then lock shared rows in the same order), as upserts that add the
// changes to the stored sums.
import { CompiledQuery } from 'kysely';
import type { Executor } from '../../../db/schema.ts';
import { preparedOnPostgres } from '../../../db/database.ts';
import { visitorEntryParameter } from '../../../db/visitor-entries.ts';
import { columnArrays, dialectOf, unnestArrays } from '../../../db/dialect-sql.ts';
import { contributionFields } from '../../contribution.ts';
import {
  type ArticleDay,
  countNewDayVisitors,
  type InsightChanges,
  reachColumns,
  type VisitorCandidate,
  visitorSetKey,
} from '../insight-changes.ts';
import type { KnownVisitors } from '../known-visitors.ts';
import { addToPacked, hourWidth, readTimeWidth } from '../packed-counts.ts';
import type { RollupChanges, VisitorKey } from '../rollup-changes.ts';

/**
 * The candidates whose visitor id was not yet in the set of their scope and day; adds them to
 * analytics_visitor_entries. One found in the sets an older release kept (analytics_visitor_sets,
 * emptied within two days of the upgrade) is not new either, and is not added: those sets are
 * forgotten with the day's entries.
 */
export async function addToVisitorSets(
  executor: Executor,
  candidates: VisitorCandidate[],
): Promise<VisitorCandidate[]> {
  if (candidates.length === 0) return [];
  const unique = [...new Map(candidates.map((candidate) => [candidate.key, candidate])).values()];
  if (dialectOf(executor) !== 'postgres') {
    const added: VisitorCandidate[] = [];
    for (const c of unique) {
      const entry = visitorEntryParameter(c.project_id, c.scope, c.visitor_id, 'sqlite');
      const inserted = await executor.executeQuery(
        CompiledQuery.raw(visitorEntryInsert, [
          c.project_id,
          c.day,
          entry,
          c.project_id,
          c.day,
          c.scope,
          c.visitor_id,
        ]),
      );
      if (Number(inserted.numAffectedRows ?? 0) > 0) added.push(c);
    }
    return added;
  }
  // An entry holds its project: the day and the entry name a candidate of the batch.
  const byEntry = new Map<string, VisitorCandidate>();
  const items = unique.map((c) => {
    const entry = visitorEntryParameter(c.project_id, c.scope, c.visitor_id, 'postgres') as string;
    byEntry.set(`${c.day} ${entry}`, c);
    return { ...c, entry };
  });
  const result = await executor.executeQuery<{ day: string; entry: string }>(
    CompiledQuery.raw(
      postgresVisitorEntryInsert,
      columnArrays(items, ['project_id', 'day', 'entry', 'scope', 'visitor_id']),
    ),
  );
  return result.rows.map((row) => byEntry.get(`${row.day} ${row.entry}`)!);
}

// As PostgreSQL's below, for one candidate: one statement.
const visitorEntryInsert = `insert into analytics_visitor_entries (project_num, day, entry)
  select (select num from project_nums where project_id = ?), ?, ?
  where not exists (select 1 from analytics_visitor_sets
    where project_id = ? and day = ? and scope = ? and visitor_id = ?)
  on conflict do nothing`;
// In the candidates' order (the key order, in which two instances lock the same entries), but
// those the older sets hold. Nothing joins the inserted rows back to the arrays: a join of two row
// sets whose sizes the planner cannot know was a nested loop, quadratic in the batch.
const postgresVisitorEntryInsert =
  preparedOnPostgres(`insert into analytics_visitor_entries (project_num, day, entry)
  select p.num, cast(u.day as date), u.entry
  from unnest($1::text[], $2::text[], $3::uuid[], $4::text[], $5::text[]) with ordinality
    as u(project_id, day, entry, scope, visitor_id, n)
  join project_nums as p on p.project_id = u.project_id
  where not exists (select 1 from analytics_visitor_sets as s
    where s.project_id = u.project_id and s.day = u.day and s.scope = u.scope and s.visitor_id = u.visitor_id)
  order by u.n
  on conflict do nothing
  returning cast(day as text) as day, cast(entry as text) as entry`);

/** The keys whose visitor id was not yet in the day's set of the project; adds them. */
async function addToDailyVisitors(executor: Executor, keys: VisitorKey[]): Promise<VisitorKey[]> {
  if (dialectOf(executor) !== 'postgres')
    return addEach(executor, dailyVisitorInsert, keys, (k) => [k.project_id, k.day, k.visitor_id]);
  return addByArrays(executor, 'analytics_daily_visitors', ['project_id', 'day', 'visitor_id'], keys);
}

/**
 * PostgreSQL: inserts the items' `columns` (all text) from one array parameter per column, skipping
 * those stored already; the items it added, found by the rows it returns.
 */
async function addByArrays<T extends object>(
  executor: Executor,
  table: string,
  columns: string[],
  items: T[],
) {
  if (items.length === 0) return [];
  const values = items as Array<Record<string, unknown>>;
  const keyOf = (item: Record<string, unknown>) => columns.map((column) => item[column]).join('\u0000');
  const byKey = new Map(values.map((item, index) => [keyOf(item), items[index]]));
  const text = preparedOnPostgres(
    `insert into ${table} (${columns.join(', ')}) select * from ${unnestArrays(
      columns.map(() => 'text'),
      columns,
    )} on conflict do nothing returning ${columns.join(', ')}`,
  );
  const result = await executor.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(text, columnArrays(values, columns)),
  );
  return result.rows.map((row) => byKey.get(keyOf(row))!);
}

const dailyVisitorInsert =
  'insert into analytics_daily_visitors (project_id, day, visitor_id) values (?, ?, ?) on conflict do nothing';

/** SQLite: inserts each item by one cached prepared statement; the items it added. */
async function addEach<T>(executor: Executor, text: string, items: T[], parameters: (item: T) => unknown[]) {
  const added: T[] = [];
  for (const item of items) {
    const result = await executor.executeQuery(CompiledQuery.raw(text, parameters(item)));
    if (Number(result.numAffectedRows ?? 0) > 0) added.push(item);
  }
  return added;
}

/**
 * Adds a batch's changes to the daily and insights rollups and the view counts. `known`: visitor-set entries known to be stored, which are neither new nor written again;
 * returns the entries of `known`'s day that the batch stored or found, for the caller to add to it
 * once the batch is committed.
 */
export async function writeRollups(
  executor: Executor,
  daily: RollupChanges,
  insights: InsightChanges,
  options: { known?: KnownVisitors } = {},
): Promise<string[]> {
  const { known } = options;
  const stored: string[] = [];
  const unknown = <T extends { day: string }>(items: T[], keyOf: (item: T) => string): T[] => {
    if (known === undefined) return items;
    return items.filter((item) => {
      if (item.day !== known.day) return true;
      const key = keyOf(item);
      if (known.has(key)) return false;
      stored.push(key);
      return true;
    });
  };
  const dailyKeys = unknown(daily.visitors, (item) => visitorKey(item, dailyScope));
  countNewDayVisitors(daily, insights, await addToDailyVisitors(executor, dailyKeys));
  await insights.countVisitors((candidates) =>
    addToVisitorSets(
      executor,
      unknown(candidates, (candidate) => candidate.key),
    ),
  );
  const articleDays = await articleDayRows(executor, daily, insights);
  await writeSums(executor, [...dailyTables(daily, articleDays), ...insightTables(insights)]);
  return stored;
}

// The daily visitor set (analytics_daily_visitors) among the scopes of the visitor sets.
const dailyScope = '\u0001daily';

/** The key of a visitor-set entry: that of a VisitorCandidate of the same scope. */
function visitorKey(item: { project_id: string; day: string; visitor_id: string }, scope: string): string {
  return `${visitorSetKey(item.project_id, item.day, scope)}\u0000${item.visitor_id}`;
}

/**
 * The insights rollup rows of `changes` but its articles' days (which writeRollups adds to the
 * daily rows), added to those stored (visitors already counted).
 */
export async function writeInsightRollups(executor: Executor, changes: InsightChanges): Promise<void> {
  await writeSums(executor, insightTables(changes));
}

/**
 * Adds the rows of `tables` to the stored sums. SQLite: one cached prepared statement per row, a
 * call of microseconds (a multi-row statement would be prepared anew for each row count, and its
 * building costs more than the rows). PostgreSQL: one statement, a WITH clause per table, each
 * inserting from one array parameter per column (unnest), so that its text depends only on which
 * tables have rows: a named prepared statement, parsed and planned once per connection (a
 * multi-row VALUES of a 500-entry batch had ~40,000 parameters to build, send, parse and plan).
 */
async function writeSums(executor: Executor, tables: SummedTable[]): Promise<void> {
  if (dialectOf(executor) !== 'postgres') {
    for (const { table, rows, key, counted, replaced, numbered } of tables) {
      if (rows.length === 0) continue;
      const columns = Object.keys(rows[0]);
      let start = 0;
      for (const size of [rowsPerSqliteStatement, 1]) {
        const text = upsertText(table, columns, key, updates(table, counted, replaced), size, numbered);
        for (; start + size <= rows.length; start += size) {
          const parameters: unknown[] = [];
          for (const row of rows.slice(start, start + size)) {
            const values = row as Record<string, unknown>;
            for (const column of columns) parameters.push(values[column]);
          }
          await executor.executeQuery(CompiledQuery.raw(text, parameters));
        }
      }
    }
    return;
  }
  const clauses: string[] = [];
  const parameters: unknown[] = [];
  for (const { table, rows, key, counted, replaced, numbered } of tables) {
    if (rows.length === 0) continue;
    const values = rows as Array<Record<string, unknown>>;
    const columns = Object.keys(values[0]);
    // Every summed column is an integer, every other one text or (packed counts) bytes.
    const types = columns.map((column) => {
      const value = values[0][column];
      return typeof value === 'string' ? 'text' : value instanceof Uint8Array ? 'bytea' : 'bigint';
    });
    const source = unnestArrays(types, columns, parameters.length);
    const select = numbered
      ? `select ${columns.map((column) => numberedColumns[column]?.value ?? `u.${column}`).join(', ')} from ${source}, project_nums as p, article_nums as a where p.project_id = u.project_id and a.article_id = u.article_id`
      : `select * from ${source}`;
    clauses.push(
      `insert into ${table} (${storedColumns(columns, numbered).join(', ')}) ${select} on conflict (${key.join(', ')}) do update set ${updates(table, counted, replaced)}`,
    );
    parameters.push(...columnArrays(values, columns));
  }
  if (clauses.length === 0) return;
  // Each upsert a WITH clause of one statement (they write different tables): one round trip.
  const text =
    clauses.length === 1
      ? clauses[0]
      : `with ${clauses.map((clause, index) => `u${index} as (${clause})`).join(', ')} select 1`;
  await executor.executeQuery(CompiledQuery.raw(preparedOnPostgres(text), parameters));
}

/** SQLite: rows per statement; the rest of a table's rows go one by one, so that two texts per
 * table are prepared, whatever the number of rows. */
const rowsPerSqliteStatement = 32;
const upsertTexts = new Map<string, string>();

/** The SET list of an upsert: the counted columns added, the replaced ones replaced. */
function updates(table: string, counted: readonly string[], replaced: readonly string[] = []): string {
  return [
    ...counted.map((column) => `${column} = ${table}.${column} + excluded.${column}`),
    ...replaced.map((column) => `${column} = excluded.${column}`),
  ].join(', ');
}

/**
 * The columns of a numbered table's rows that name a project or article by id, the column that
 * stores its number instead, and the number's SQL: of a parameter on SQLite, of the row's join
 * (p, a) on PostgreSQL.
 */
const numberedColumns: Record<string, { stored: string; parameter: string; value: string }> = {
  project_id: {
    stored: 'project_num',
    parameter: '(select num from project_nums where project_id = ?)',
    value: 'p.num',
  },
  article_id: {
    stored: 'article_num',
    parameter: '(select num from article_nums where article_id = ?)',
    value: 'a.num',
  },
};

function storedColumns(columns: string[], numbered = false): string[] {
  return numbered ? columns.map((column) => numberedColumns[column]?.stored ?? column) : columns;
}

function upsertText(
  table: string,
  columns: string[],
  key: readonly string[],
  update: string,
  rows: number,
  numbered = false,
): string {
  const id = `${table}(${columns.join(',')})×${rows}`;
  let text = upsertTexts.get(id);
  if (text === undefined) {
    const placeholder = (column: string) =>
      (numbered ? numberedColumns[column]?.parameter : undefined) ?? '?';
    const tuple = `(${columns.map(placeholder).join(', ')})`;
    text = `insert into ${table} (${storedColumns(columns, numbered).join(', ')}) values ${Array.from({ length: rows }, () => tuple).join(', ')} on conflict (${key.join(', ')}) do update set ${update}`;
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
  /** Columns whose new value replaces the stored one. */
  replaced?: readonly string[];
  /**
   * The rows name their project and article by id (`project_id`, `article_id`) and the table
   * stores their numbers (migration 0039): the statement looks the numbers up.
   */
  numbered?: boolean;
}

/**
 * The daily rows of the batch's articles: the counters of `daily` with the visitors and reach of
 * `insights` to add, and the counts by hour and reading time to store (the stored ones with the
 * batch's added: text is not added by an upsert). One row per article and day, in key order. The
 * stored counts are read under the roll-up lock, which every writer of these rows holds.
 */
async function articleDayRows(
  executor: Executor,
  daily: RollupChanges,
  insights: InsightChanges,
): Promise<object[]> {
  const rows = new Map<string, ArticleDayRow>();
  const rowOf = (item: { project_id: string; day: string; article_id: string }) => {
    const key = `${item.project_id}\u0000${item.day}\u0000${item.article_id}`;
    let row = rows.get(key);
    if (row === undefined) {
      row = {
        project_id: item.project_id,
        day: item.day,
        article_id: item.article_id,
        hours: noCounts,
        read_times: noCounts,
      };
      for (const column of articleDayCounted) row[column] = 0;
      rows.set(key, row);
    }
    return row;
  };
  for (const item of daily.articles) {
    const row = rowOf(item);
    for (const field of contributionFields) row[field] = item[field];
  }
  const packed = new Map<ArticleDayRow, ArticleDay>();
  for (const item of insights.articleDays) {
    const row = rowOf(item);
    row.visitors = item.visitors;
    for (const column of reachColumns) row[column] = item[column];
    if (item.hours.size > 0 || item.readTimes.size > 0) packed.set(row, item);
  }
  const keys = [...rows.keys()].sort();
  const stored = await storedArticleDayCounts(executor, [...rows.values()]);
  for (const key of keys) {
    const row = rows.get(key)!;
    const before = stored.get(key) ?? { hours: noCounts, read_times: noCounts };
    const change = packed.get(row);
    row.hours = change === undefined ? before.hours : addToPacked(before.hours, change.hours, hourWidth);
    row.read_times =
      change === undefined
        ? before.read_times
        : addToPacked(before.read_times, change.readTimes, readTimeWidth);
  }
  return keys
    .map((key) => rows.get(key)!)
    .filter((row) => packed.has(row) || articleDayCounted.some((column) => row[column] !== 0));
}

type ArticleDayRow = Record<string, string | number | Uint8Array> & {
  project_id: string;
  day: string;
  article_id: string;
  hours: Uint8Array;
  read_times: Uint8Array;
};

const noCounts = new Uint8Array(0);

const articleDayCounted = [...contributionFields, 'visitors', ...reachColumns] as const;

/** The stored counts by hour and reading time of the rows' article days, by their key. */
async function storedArticleDayCounts(
  executor: Executor,
  rows: ArticleDayRow[],
): Promise<Map<string, { hours: Uint8Array; read_times: Uint8Array }>> {
  let found: StoredArticleDay[] = [];
  if (rows.length === 0) return new Map();
  if (dialectOf(executor) === 'postgres') {
    const result = await executor.executeQuery(storedArticleDaysOnPostgres(rows));
    found = result.rows;
  } else {
    for (const row of rows) {
      const result = await executor.executeQuery<StoredArticleDay>(
        CompiledQuery.raw(storedCountsSelect, [row.project_id, row.day, row.article_id]),
      );
      found.push(...result.rows);
    }
  }
  return new Map(found.map((row) => [`${row.project_id}\u0000${row.day}\u0000${row.article_id}`, row]));
}

/** An article day's stored counts by hour and by reading time. */
interface StoredArticleDay {
  project_id: string;
  day: string;
  article_id: string;
  hours: Uint8Array;
  read_times: Uint8Array;
}

/**
 * PostgreSQL: the stored hours and reading times of these article days, each row looked up by its
 * key, numbers and all (a lateral subquery with a limit, which the planner cannot flatten into a
 * join). Joined to the view instead, the prepared statement's generic plan read every article day
 * of the project for each row (its index searched by the project alone): 210 ms for 50 rows of a
 * project with 2,740 article days, against 0.7 ms so; and the roll-ups run on the event loop on
 * PostgreSQL (the read mix while tracking fell from 90% to 67% of the quiet one).
 */
export function storedArticleDaysOnPostgres(
  rows: ReadonlyArray<{ project_id: string; day: string; article_id: string }>,
): CompiledQuery<StoredArticleDay> {
  const text = preparedOnPostgres(
    `select u.project_id, u.day, u.article_id, d.hours, d.read_times
      from ${unnestArrays(['text', 'text', 'text'], ['project_id', 'day', 'article_id'])}
      cross join lateral (select d.hours, d.read_times from analytics_article_days as d
        where d.project_num = (select num from project_nums where project_nums.project_id = u.project_id)
          and d.day = u.day
          and d.article_num = (select num from article_nums where article_nums.article_id = u.article_id)
        limit 1) as d`,
  );
  return CompiledQuery.raw(text, columnArrays(rows, ['project_id', 'day', 'article_id']));
}

const storedCountsSelect =
  'select project_id, day, article_id, hours, read_times from analytics_daily_articles where project_id = ? and day = ? and article_id = ?';

function dailyTables(changes: RollupChanges, articleDays: object[]): SummedTable[] {
  return [
    {
      table: 'analytics_daily_totals',
      rows: changes.days,
      key: ['project_id', 'day'],
      counted: ['visitors', ...contributionFields],
    },
    {
      // The rows of the view analytics_daily_articles (migration 0042).
      table: 'analytics_article_days',
      rows: articleDays,
      key: ['project_num', 'day', 'article_num'],
      counted: articleDayCounted,
      replaced: ['hours', 'read_times'],
      numbered: true,
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
      rows: changes.storedSeries,
      key: ['project_id', 'article_id', 'granularity', 'bucket'],
      counted: ['views', 'visitors', 'time_on_page_ms', 'scroll_depth_centi'],
    },
    {
      table: 'analytics_breakdowns',
      rows: changes.breakdowns,
      key: ['project_id', 'dimension', 'day', 'value'],
      counted: ['views', 'visitors', 'events'],
    },
  ];
}
