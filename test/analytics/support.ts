// Helpers of the analytics tests: tracking requests as a browser sends them, a factory that writes
// page views with known values at chosen times (through the same group-commit writer as the API),
// and a reference computation of every rollup straight from the raw rows, written from the documented rules
// (the OpenAPI descriptions) independently of src/analytics/contribution.ts.
import assert from 'node:assert/strict';
import {
  type Contribution,
  contributionFields,
  emptyContribution,
} from '../../src/analytics/contribution.ts';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type CompiledQuery, type Kysely, PostgresAdapter, sql, type Transaction } from 'kysely';
import { queueEntryOf } from '../../src/analytics/ingest/queries/write-store.ts';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { hourWidth, readTimeWidth, unpackCounts } from '../../src/analytics/rollups/packed-counts.ts';
import { newPageViewId } from '../../src/analytics/ingest/visitor.ts';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { insertPageViewRows } from '../../src/db/page-view-move.ts';
import { allPageViews } from '../../src/db/page-view-reads.ts';
import type { Database, Executor, PageViewTable, Project } from '../../src/db/schema.ts';
import { genericPlan, queryPlan } from '../helpers.ts';

export const browser =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const otherBrowser =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

export interface SendOptions {
  headers?: Record<string, string>;
  ip?: string;
  userAgent?: string | null;
  contentType?: string;
  query?: string;
}

function requestHeaders(options: SendOptions, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.userAgent !== null) headers['user-agent'] = options.userAgent ?? browser;
  if (hasBody) headers['content-type'] = options.contentType ?? 'application/json';
  return headers;
}

function payloadOf(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

export function track(
  app: FastifyInstance,
  body: unknown,
  options: SendOptions = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/v1/analytics/track${options.query ?? ''}`,
    headers: requestHeaders(options, body !== undefined),
    payload: payloadOf(body),
    remoteAddress: options.ip ?? '203.0.113.7',
  });
}

export function update(
  app: FastifyInstance,
  id: string,
  body: unknown,
  options: SendOptions & { method?: 'PUT' | 'POST' } = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: options.method ?? 'PUT',
    url: `/v1/analytics/track/${id}${options.query ?? ''}`,
    headers: requestHeaders(options, body !== undefined),
    payload: payloadOf(body),
    remoteAddress: options.ip ?? '203.0.113.7',
  });
}

/** Waits while the UTC day is about to change, so that a test and its requests see the same day. */
export async function awayFromMidnight(): Promise<void> {
  const msToMidnight = 86_400_000 - (Date.now() % 86_400_000);
  if (msToMidnight < 5000) await new Promise((resolve) => setTimeout(resolve, msToMidnight + 50));
}

/** The instant `days` days before today, at the UTC time of day `time`. */
export function daysAgo(days: number, time = '12:00:00.000'): Date {
  const today = new Date().toISOString().slice(0, 10);
  const [year, month, date] = today.split('-').map(Number);
  return new Date(`${new Date(Date.UTC(year, month - 1, date - days)).toISOString().slice(0, 10)}T${time}Z`);
}

export interface FactoryView {
  slug: string;
  at?: Date;
  timeOnPage?: number;
  scrollDepth?: number;
  bounced?: boolean;
  sdk?: boolean;
  country?: string | null;
  visitor?: string;
}

/** A page view as the API would store it, with the factory's known values. */
export function factoryRow(project: Project, view: FactoryView, index = 0): PageViewTable {
  const at = view.at ?? new Date();
  return {
    id: newPageViewId(at.getTime()),
    project_id: project.id,
    article_id: '',
    day: at.toISOString().slice(0, 10),
    test: 0,
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
    visitor_id: view.visitor ?? `visitor-${index}`,
    session_id: `session-${index}`,
    source: view.sdk ? 'sdk' : 'direct',
    country: view.country ?? null,
    time_on_page_ms: Math.round((view.timeOnPage ?? 0) * 1000),
    scroll_depth_centi: Math.round((view.scrollDepth ?? 0) * 100),
    exit_position: null,
    bounced: view.bounced === undefined ? null : view.bounced ? 1 : 0,
    screen_width: null,
    screen_height: null,
    event_count: 0,
    page_url: null,
    page_title: null,
    referrer: null,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_term: null,
    utm_content: null,
    events: '[]',
  };
}

/** Writes page views with known values at chosen instants, through the API's writer. */
export async function writePageViews(db: Db, project: Project, views: FactoryView[]): Promise<string[]> {
  const writer = new PageViewWriter(db);
  const ids = await Promise.all(
    views.map((view, index) => {
      const row = factoryRow(project, view, index);
      return writer.write({ kind: 'create', row, slug: view.slug }).then(() => row.id);
    }),
  );
  await writer.idle();
  return ids;
}

export type Counters = Contribution;
const counterNames = contributionFields;

function zero(): Counters {
  return Object.fromEntries(counterNames.map((name) => [name, 0])) as unknown as Counters;
}

/** The documented counting rules (bounce, engagement, funnel steps), applied to one stored page view. */
function countersOf(row: PageViewTable): Counters {
  const time = Number(row.time_on_page_ms);
  const depth = Number(row.scroll_depth_centi);
  const bounced = row.bounced === null ? time < 5000 : Number(row.bounced) === 1;
  return {
    views: 1,
    sdk_views: row.source === 'sdk' ? 1 : 0,
    time_on_page_ms: time,
    scroll_depth_centi: depth,
    bounced: bounced ? 1 : 0,
    engaged: time >= 10_000 || depth >= 5_000 ? 1 : 0,
    reached25: depth >= 2_500 ? 1 : 0,
    reached50: depth >= 5_000 ? 1 : 0,
    reached75: depth >= 7_500 ? 1 : 0,
    reached90: depth >= 9_000 ? 1 : 0,
  };
}

function add(total: Counters, more: Counters): void {
  for (const name of counterNames) total[name] += more[name];
}

export interface Rollups {
  articles: Record<string, Counters>;
  days: Record<string, Counters & { visitors: number }>;
  countries: Record<string, number>;
}

/** Inserts page views as they are (no article lookup, no roll-up), their strings stored once. */
export async function insertRawPageViews(executor: Executor, rows: PageViewTable[]): Promise<void> {
  const dialect = executor.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
  for (let start = 0; start < rows.length; start += 2000) {
    await insertPageViewRows(executor, dialect, rows.slice(start, start + 2000));
  }
}

/**
 * Page views written as before migration 0022: their strings in columns of their own (the table must
 * have them), each with its roll-up queue entry, as the tracking writes did then. `rows` name their
 * article by slug.
 */
export async function writeLegacyPageViews(
  db: Db,
  rows: Array<{ row: PageViewTable; slug: string }>,
): Promise<string[]> {
  const executor = db.kysely as unknown as Kysely<any>;
  for (const { row, slug } of rows) {
    const article = await executor
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', row.project_id)
      .where('slug', '=', slug)
      .executeTakeFirstOrThrow();
    const stored = { ...row, article_id: article.id as string };
    await executor.insertInto('page_views').values(stored).execute();
    await executor.insertInto('rollup_queue').values(queueEntryOf(stored, null)).execute();
  }
  return rows.map(({ row }) => row.id);
}

/** A project's page views as tracked: their strings read back from their ids. */
export async function rawPageViews(db: Db, projectId: string): Promise<PageViewTable[]> {
  const views = await allPageViews(db.kysely, projectId);
  return views
    .map(({ slug: _slug, ...view }) => view)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Every rollup of a project, recomputed from its raw page views. */
export async function referenceRollups(db: Db, projectId: string): Promise<Rollups> {
  const rows = await rawPageViews(db, projectId);
  const articles: Rollups['articles'] = {};
  const days: Rollups['days'] = {};
  const countries: Rollups['countries'] = {};
  const visitors = new Map<string, Set<string>>();
  for (const row of rows) {
    const counters = countersOf(row);
    const articleKey = `${row.day} ${row.article_id}`;
    articles[articleKey] ??= zero();
    add(articles[articleKey], counters);
    days[row.day] ??= { ...zero(), visitors: 0 };
    add(days[row.day], counters);
    if (!visitors.has(row.day)) visitors.set(row.day, new Set());
    visitors.get(row.day)!.add(row.visitor_id);
    if (row.country !== null)
      countries[`${row.day} ${row.country}`] = (countries[`${row.day} ${row.country}`] ?? 0) + 1;
  }
  for (const [day, ids] of visitors) days[day].visitors = ids.size;
  return { articles, days, countries };
}

/** Every rollup of a project as stored, once the writes queued so far are rolled up. */
export async function storedRollups(db: Db, projectId: string): Promise<Rollups> {
  await rollUpQueued(db);
  const articles: Rollups['articles'] = {};
  const days: Rollups['days'] = {};
  const countries: Rollups['countries'] = {};
  const numbers = <T extends object>(row: T) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [key, typeof value === 'string' ? value : Number(value)]),
    );
  for (const row of await db.kysely
    .selectFrom('analytics_daily_articles')
    .selectAll()
    .where('project_id', '=', projectId)
    .execute()) {
    // The counters only: the row's visitors and reach deciles are the insights' (insights.test.ts).
    const { day, article_id, ...columns } = numbers(row);
    articles[`${day} ${article_id}`] = Object.fromEntries(
      counterNames.map((name) => [name, columns[name]]),
    ) as unknown as Counters;
  }
  for (const row of await db.kysely
    .selectFrom('analytics_daily_totals')
    .selectAll()
    .where('project_id', '=', projectId)
    .execute()) {
    const { project_id: _project, day, ...counters } = numbers(row);
    days[day as string] = counters as unknown as Counters & { visitors: number };
  }
  for (const row of await db.kysely
    .selectFrom('analytics_daily_countries')
    .selectAll()
    .where('project_id', '=', projectId)
    .execute()) {
    countries[`${row.day} ${row.country}`] = Number(row.views);
  }
  return { articles, days, countries };
}

export async function pageViewCount(db: Db, projectId: string): Promise<number> {
  return (await allPageViews(db.kysely, projectId)).length;
}

/** A seeded pseudo-random sequence (mulberry32), so that a failing run can be replayed. */
export function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    below: (n: number) => Math.floor(next() * n),
    pick: <T>(items: T[]) => items[Math.floor(next() * items.length)],
    chance: (p: number) => next() < p,
    measure: (max: number) => Math.round(next() * max * 1000) / 1000,
  };
}

/** Client addresses that geolocate to several countries, one private and one IPv6. */
export const ips = ['8.8.8.8', '1.1.1.1', '81.2.69.142', '5.9.0.1', '10.0.0.1', '2a00:1450:4001:81b::200e'];

/**
 * Runs `take` in a transaction of a pool of its own on the PostgreSQL at `url` and keeps that
 * transaction open, holding the rows it locked (as another instance's batch or a writer does),
 * until the returned function is called, which commits it and closes the pool.
 */
export async function holdRows(
  url: string,
  take: (trx: Transaction<Database>) => Promise<unknown>,
): Promise<() => Promise<void>> {
  const holder = openDatabase(url, { poolSize: 2 });
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let taken = () => {};
  const held = new Promise<void>((resolve) => (taken = resolve));
  const holding = holder.kysely.transaction().execute(async (trx) => {
    await take(trx);
    taken();
    await released;
  });
  await Promise.race([held, holding]);
  return async () => {
    release();
    await holding;
    await holder.close();
  };
}

/** Whether `promise` settles within `ms` (it is awaited by the caller for its value). */
export async function endsWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return ended;
}

/**
 * PostgreSQL: `query`'s plan looks page_view_rows up by its whole key (project_num, day, rid), and
 * filters no ids (found among lists, every page view of the days was read). So does its generic
 * plan, which a prepared statement runs from its sixth run on, over the page views of `filledDay`
 * (fillDay): joined with the keys, that plan read the day's month partition whole and hashed it
 * (1.3 ms a PUT at 1,600 page views in the month). Empty partitions may be scanned: they are.
 */
export async function assertLooksUpPageViewsByKey(
  db: Db,
  query: CompiledQuery,
  filledDay: string,
): Promise<void> {
  const filledPartition = `page_view_rows_m${filledDay.slice(0, 4)}_${filledDay.slice(5, 7)} `;
  for (const plan of [await queryPlan(db, query), await genericPlan(db, query)]) {
    assert.match(plan, /Index Cond: .*project_num = .*day = .*rid = /, plan);
    assert.doesNotMatch(plan, /Filter: .*id = ANY/, plan);
    assert.ok(!plan.includes(`Seq Scan on ${filledPartition}`), plan);
  }
}

/** PostgreSQL: `count` page views of `projectId` on `day` (raw rows, no queue entries), analyzed. */
export async function fillDay(db: Db, projectId: string, day: string, count: number): Promise<void> {
  await sql`insert into article_nums (article_id, project_id) values ('fill-day-article', ${projectId})
    on conflict do nothing`.execute(db.kysely);
  await sql`insert into page_view_rows (project_num, day, rid, article_num, created_ms, updated_ms, visitor,
      session, source, test, time_on_page_ms, scroll_depth_centi, event_count)
    select p.num, ${day}, md5(n::text)::uuid, a.num, 43200000, 0, md5('visitor')::uuid, md5('session')::uuid,
      0, 0, 0, 0, 0
    from generate_series(1, ${count}) as n
      cross join project_nums as p cross join article_nums as a
    where p.project_id = ${projectId} and a.article_id = 'fill-day-article'`.execute(db.kysely);
  await sql`analyze page_view_rows`.execute(db.kysely);
}

/**
 * An article day's packed counts (packed-counts.ts) as the text they were stored as before
 * migration 0043: `key:count:…` entries in key order, joined by commas.
 */
export function countsText(bytes: Uint8Array, width: number): string {
  return [...unpackCounts(bytes, width)]
    .sort(([a], [b]) => a - b)
    .map(([key, counts]) => [key, ...counts].join(':'))
    .join(',');
}

/** A row of analytics_daily_articles with its hours and reading times as countsText: comparable. */
export function withCountsText<T extends Record<string, unknown>>(row: T): T {
  const text = (value: unknown, width: number) =>
    value instanceof Uint8Array ? countsText(value, width) : value;
  return { ...row, hours: text(row.hours, hourWidth), read_times: text(row.read_times, readTimeWidth) };
}

/**
 * PostgreSQL: `days` article days from 2026-01-01 (counts of zero) for every article of these
 * projects, straight into analytics_article_days: a history of the size the planner must see.
 */
export async function insertEmptyArticleDays(db: Db, projectIds: string[], days: number): Promise<void> {
  const counters = Object.keys(emptyContribution());
  const reach = Array.from({ length: 11 }, (_, decile) => `reach${decile}`);
  const counted = [...counters, ...reach];
  await sql`insert into analytics_article_days (project_num, day, article_num, hours, read_times,
      ${sql.join(counted.map((column) => sql.ref(column)))}, visitors)
    select p.num, to_char(date '2026-01-01' + d, 'YYYY-MM-DD'), a.num, ''::bytea, ''::bytea,
      ${sql.join(counted.map(() => sql`0`))}, 0
    from article_nums as a join articles as r on r.id = a.article_id
      join project_nums as p on p.project_id = r.project_id cross join generate_series(0, ${days - 1}) as d
    where r.project_id in (${sql.join(projectIds)})`.execute(db.kysely);
}
