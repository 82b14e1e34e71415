// Storage per page view, on SQLite and (with BENCH_POSTGRES_URL) PostgreSQL: BENCH_STORAGE_VIEWS
// page views (200,000) of 1,000 articles over the last BENCH_STORAGE_DAYS days (365) are written
// through the page-view writer (the batches of POST /v1/analytics/track, without HTTP) and rolled up
// by the roll-up queue, as the service does: a day at a time in the order of their times, each day
// rolled up and followed by the server's cleanup at the day's end (which forgets the visitor ids
// of the days before yesterday), so that indexes grow as tracking grows them and the visitor sets
// hold two days, as on a server. Their fields are made like a real blog's: canonical
// URLs and titles per article (some with a query string), a third of the views with a referrer from
// a few dozen sites and a few thousand pages, UTM fields on a fifth, twenty countries, common
// screens, events on a fifth, times and depths as after the tracker's updates. Reported: the bytes
// of every table and index divided by the page views (PostgreSQL: pg_relation_size of each, with
// its partitions and TOAST; SQLite: the dbstat virtual table), the numbers to hold to 300 B.
//
// The rollups take a row per article and day (and hour) with a view, whatever the views: their bytes
// per view fall as views per article and day grow. The default, 200,000 views over 365 days × 1,000
// articles, is 0.55 a day an article: a quiet blog. A busier one, 1,000,000 views over 90 days (11 a
// day an article), has the density of BENCH_STORAGE_VIEWS=200000 BENCH_STORAGE_DAYS=18, which
// measures it in a fifth of the time (page views cost the same per view either way).
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { PageViewWriter } from '../src/analytics/ingest/page-view-writer.ts';
import { newPageViewId } from '../src/analytics/ingest/visitor.ts';
import { rollUpQueued } from '../src/analytics/rollups/rollup-queue.ts';
import { runCleanup } from '../src/analytics/rollups/retention.ts';
import { importContent } from '../src/content/import.ts';
import { type Db, openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import type { PageViewTable } from '../src/db/schema.ts';
import { createProject } from '../src/projects/service.ts';
import { benchArticles } from './analytics-data.ts';
import { loadAverage, withPostgresDatabase } from './lib.ts';

const pageViews = Number(process.env.BENCH_STORAGE_VIEWS ?? 200_000);
const days = Number(process.env.BENCH_STORAGE_DAYS ?? 365);
const articles = 1000;
const countries = ['US', 'GB', 'DE', 'FR', 'NL', 'SE', 'ES', 'IT', 'CA', 'AU', 'JP', 'BR', 'IN', 'PL', 'CH'];
const screens: Array<[number, number]> = [
  [390, 844],
  [414, 896],
  [375, 667],
  [820, 1180],
  [1280, 800],
  [1440, 900],
  [1536, 864],
  [1920, 1080],
  [2560, 1440],
];
const referrerSites = [
  ['https://www.google.com/', 1],
  ['https://duckduckgo.com/', 1],
  ['https://www.bing.com/', 1],
  ['https://news.ycombinator.com/item?id=', 300],
  ['https://www.reddit.com/r/programming/comments/', 200],
  ['https://t.co/', 1000],
  ['https://lobste.rs/s/', 100],
  ['https://mastodon.social/@', 300],
  ['https://github.com/', 500],
  ['https://www.linkedin.com/', 1],
  ['https://blog.example.com/posts/article-', 1000],
  ['https://newsletter.example.net/issues/', 60],
] as const;
const campaigns = Array.from({ length: 50 }, (_, i) => `spring-launch-${i}`);

/** A pseudo-random draw, the same on every run (mulberry32). */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = generator(42);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
const hashId = (text: string) => createHash('sha256').update(text).digest().subarray(0, 16);

/** Page view `i`, made at `createdMs`, its fields as a tracker sends them. */
function pageView(i: number, projectId: string, createdMs: number): { row: PageViewTable; slug: string } {
  const created = new Date(createdMs).toISOString();
  const updated = new Date(createdMs + Math.floor(random() * 300_000)).toISOString();
  const day = created.slice(0, 10);
  // Articles skewed towards low numbers (the smaller of two draws), ~2,000 visitors a day.
  const article = Math.min(Math.floor(random() * articles), Math.floor(random() * articles));
  const visitor = Math.floor(random() * 2000);
  const visitorId = hashId(`${day}/${visitor}`).toString('base64url');
  const session = hashId(`${day}/${visitor}/session`).toString('hex');
  const utm = random() < 0.2;
  const campaign = pick(campaigns);
  const referrerDraw = random();
  const [site, pages] = referrerDraw < 0.35 ? pick(referrerSites) : [null, 0];
  const screen = random() < 0.9 ? pick(screens) : null;
  const eventCount = random() < 0.2 ? 1 + Math.floor(random() * 3) : 0;
  const events = Array.from({ length: eventCount }, (_, n) =>
    n % 2 === 0
      ? { type: 'click', element: `a.cta-${n}`, timeOffset: 1000 * (n + 1) }
      : { type: 'copy', timeOffset: 1500 * (n + 1) },
  );
  const bouncedDraw = random();
  const row: PageViewTable = {
    id: newPageViewId(createdMs),
    project_id: projectId,
    article_id: '',
    day,
    test: 0,
    created_at: created,
    updated_at: updated,
    visitor_id: visitorId,
    session_id:
      i % 4 === 0
        ? randomUUID()
        : `${session.slice(0, 8)}-${session.slice(8, 12)}-4${session.slice(13, 16)}-8${session.slice(17, 20)}-${session.slice(20, 32)}`,
    source: i % 4 === 0 ? 'sdk' : 'direct',
    country: random() < 0.9 ? pick(countries) : null,
    time_on_page_ms: Math.floor(random() * 300_000),
    scroll_depth_centi: Math.floor(random() * 10_001),
    exit_position: random() < 0.5 ? Math.round(random() * 10_000) / 100 : null,
    bounced: bouncedDraw < 0.33 ? null : bouncedDraw < 0.66 ? 1 : 0,
    screen_width: screen?.[0] ?? null,
    screen_height: screen?.[1] ?? null,
    event_count: events.length,
    page_url: `https://blog.example.com/posts/article-${article}${utm ? `?utm_source=newsletter&utm_campaign=${campaign}` : ''}`,
    page_title: `Article number ${article}: notes on something worth reading – Example Blog`,
    referrer: site === null ? null : `${site}${pages > 1 ? Math.floor(random() * pages) : ''}`,
    utm_source: utm ? pick(['newsletter', 'twitter', 'mastodon', 'linkedin']) : null,
    utm_medium: utm ? pick(['email', 'social']) : null,
    utm_campaign: utm ? campaign : null,
    utm_term: utm && random() < 0.25 ? pick(['typescript', 'databases', 'analytics']) : null,
    utm_content: utm && random() < 0.25 ? pick(['header-link', 'footer-link']) : null,
    events: JSON.stringify(events),
  };
  return { row, slug: `article-${article}` };
}

interface RelationSize {
  name: string;
  /** The table a relation belongs to (itself for a table). */
  table: string;
  kind: 'table' | 'index';
  bytes: number;
}

/** PostgreSQL: each table (heap, TOAST, free space and visibility maps) and index, partitions summed. */
async function postgresSizes(db: Db): Promise<RelationSize[]> {
  await sql`vacuum analyze`.execute(db.kysely);
  // The rows the cleanup and the roll-ups deleted are a bench's artefact (a server makes a day of
  // visitor sets at a time, and queue entries a batch at a time): their tables are compacted.
  await sql`vacuum full analytics_visitor_sets, analytics_visitor_entries, analytics_daily_visitors, rollup_queue`.execute(
    db.kysely,
  );
  const { rows } = await sql<{ name: string; table: string; kind: string; bytes: string }>`
    select c.relname as name, coalesce(t.relname, c.relname) as table,
      case when c.relkind in ('i', 'I') then 'index' else 'table' end as kind,
      case c.relkind
        when 'p' then (select sum(pg_table_size(p.relid)) from pg_partition_tree(c.oid) p where p.isleaf)
        when 'I' then (select sum(pg_relation_size(p.relid)) from pg_partition_tree(c.oid) p where p.isleaf)
        when 'i' then pg_relation_size(c.oid)
        else pg_table_size(c.oid) end as bytes
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
    left join pg_index x on x.indexrelid = c.oid
    left join pg_class t on t.oid = x.indrelid
    where c.relkind in ('r', 'p', 'i', 'I') and not c.relispartition`.execute(db.kysely);
  return rows.map((row) => ({
    name: row.name,
    table: row.table,
    kind: row.kind as 'table' | 'index',
    bytes: Number(row.bytes ?? 0),
  }));
}

/** SQLite: the pages of each table and index (dbstat), with an index's table from sqlite_schema. */
async function sqliteSizes(db: Db): Promise<RelationSize[]> {
  const { rows } = await sql<{ name: string; table: string; type: string; bytes: number }>`
    select d.name, coalesce(s.tbl_name, d.name) as "table", coalesce(s.type, 'table') as type, sum(d.pgsize) as bytes
    from dbstat d left join sqlite_schema s on s.name = d.name group by d.name`.execute(db.kysely);
  return rows.map((row) => ({
    name: row.name,
    table: row.table,
    kind: row.type === 'index' ? 'index' : 'table',
    bytes: Number(row.bytes),
  }));
}

async function measure(label: string, databaseUrl: string): Promise<void> {
  const db = openDatabase(databaseUrl);
  try {
    await migrateToLatest(db);
    const project = await createProject(db, { name: 'Bench', slug: 'bench', storageLimit: '100 GB' });
    await importContent(db, 'bench', { tags: [], articles: benchArticles(articles) });
    const before = new Map(
      (db.dialect === 'postgres' ? await postgresSizes(db) : await sqliteSizes(db)).map((r) => [
        r.name,
        r.bytes,
      ]),
    );
    console.log(`\n${label}: writing ${pageViews} page views of ${articles} articles over ${days} days…`);
    const writer = new PageViewWriter(db, { rollupDelayMs: 200 });
    const dayMs = 86_400_000;
    // The last day is yesterday, so that no view lies in the future.
    const firstDay = Math.floor(Date.now() / dayMs) - days;
    let started = performance.now();
    let written = 0;
    for (let day = 0; day < days; day++) {
      // The day's views in the order of their times, as tracking writes them.
      const count = Math.round(((day + 1) * pageViews) / days) - Math.round((day * pageViews) / days);
      const times = Array.from(
        { length: count },
        () => (firstDay + day) * dayMs + Math.floor(random() * dayMs),
      );
      times.sort((a, b) => a - b);
      const chunk = 2000;
      for (let from = 0; from < count; from += chunk) {
        const jobs = [];
        for (let i = from; i < Math.min(count, from + chunk); i++) {
          const { row, slug } = pageView(written + i, project.id, times[i]);
          jobs.push(writer.write({ kind: 'create', row, slug }));
        }
        await Promise.all(jobs);
      }
      written += count;
      await writer.idle();
      await rollUpQueued(db);
      // The server's cleanup at the day's end: the visitor ids of the days before yesterday go.
      const now = new Date((firstDay + day) * dayMs + 23 * 3_600_000);
      await runCleanup(db, { retentionDays: null, batchSize: 20_000, now });
      if (Math.floor(written / 100_000) > Math.floor((written - count) / 100_000))
        process.stdout.write(
          `  written ${written}, ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
        );
    }
    await writer.close();
    console.log(`  written and rolled up in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    started = performance.now();
    const sizes = db.dialect === 'postgres' ? await postgresSizes(db) : await sqliteSizes(db);
    const grown = sizes
      .map((size) => ({ ...size, bytes: size.bytes - (before.get(size.name) ?? 0) }))
      .filter((size) => size.bytes > 0);
    const total = grown.reduce((sum, size) => sum + size.bytes, 0);
    const perView = (bytes: number) => (bytes / pageViews).toFixed(1);
    const tables = [...new Set(grown.map((size) => size.table))];
    const tableBytes = (table: string) =>
      grown.filter((size) => size.table === table).reduce((sum, size) => sum + size.bytes, 0);
    tables.sort((a, b) => tableBytes(b) - tableBytes(a));
    console.log(`\n| ${label}: relation (growth) | B per view | MB |\n|---|---:|---:|`);
    for (const table of tables) {
      console.log(
        `| **${table}** (all) | ${perView(tableBytes(table))} | ${(tableBytes(table) / 1e6).toFixed(1)} |`,
      );
      for (const size of grown.filter((s) => s.table === table).sort((a, b) => b.bytes - a.bytes)) {
        console.log(
          `| ${size.kind === 'index' ? '  index ' : '  '}${size.name} | ${perView(size.bytes)} | ${(size.bytes / 1e6).toFixed(1)} |`,
        );
      }
    }
    console.log(`| **all tables and indexes** | **${perView(total)}** | ${(total / 1e6).toFixed(1)} |`);
    if (db.dialect === 'postgres') {
      // The rollups are updated in place by every roll-up batch: each update leaves a dead row
      // version, and article_views' also a dead index entry (view_count is indexed for
      // sort=viewCount, so no update is HOT). Written in minutes, a year's views leave far more than
      // autovacuum reclaims meanwhile (a server's visits a table after 50 + 20% of its rows
      // changed), and how many depends on the machine's load. Compacted, each table shows the size
      // of its live rows: the figure a server's autovacuum keeps near.
      const updated = [
        'article_views',
        'analytics_article_days',
        'analytics_daily_totals',
        'analytics_daily_countries',
        'analytics_series',
        'analytics_breakdowns',
      ];
      await sql`vacuum full ${sql.raw(updated.join(', '))}`.execute(db.kysely);
      const compacted = (await postgresSizes(db)).filter((size) => updated.includes(size.table));
      const compactedBytes = (table: string) =>
        compacted
          .filter((size) => size.table === table)
          .reduce((sum, size) => sum + size.bytes - (before.get(size.name) ?? 0), 0);
      const saved = updated.reduce((sum, table) => sum + tableBytes(table) - compactedBytes(table), 0);
      console.log(
        `  once compacted: ${updated.map((table) => `${table} ${perView(compactedBytes(table))}`).join(', ')}; all tables and indexes ${perView(total - saved)} B per view`,
      );
    }
    if (db.dialect === 'sqlite') {
      console.log(`  file size ${(statSync(databaseUrl).size / 1e6).toFixed(1)} MB`);
    }
  } finally {
    await db.close();
  }
}

console.log(`load: ${await loadAverage()}`);
const work = mkdtempSync(join(tmpdir(), 'folio-storage-'));
try {
  if (process.env.BENCH_STORAGE_SKIP_SQLITE === undefined) await measure('SQLite', join(work, 'bench.db'));
  if (process.env.BENCH_POSTGRES_URL) {
    await withPostgresDatabase(process.env.BENCH_POSTGRES_URL, 'store_storage', (url) =>
      measure('PostgreSQL', url),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
