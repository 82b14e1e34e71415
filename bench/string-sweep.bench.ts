// The sweep of page-view strings (db/page-view-string-sweep.ts), on SQLite and (with
// BENCH_POSTGRES_URL) PostgreSQL: BENCH_SWEEP_ORPHANS strings (100,000) that no page view names
// beside BENCH_SWEEP_VIEWS page views (200,000) naming 5,000 others. Measured, each while page views
// are tracked through the page-view writer (one every 2 ms, the batches of POST /v1/analytics/track
// without HTTP): the retention's sweep (strings unstamped for 40 days) and a deleted project's (a
// walk of every page view, then the strings no view names). Reported: the sweep's time and batches,
// and the writes acknowledged meanwhile with their latency, beside the same writes with no sweep.
import { insertPageViewRows } from '../src/db/page-view-move.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PageViewWriter } from '../src/analytics/ingest/page-view-writer.ts';
import { newPageViewId } from '../src/analytics/ingest/visitor.ts';
import { firstRetainedDay } from '../src/analytics/rollups/retention.ts';
import { importContent } from '../src/content/import.ts';
import { type Db, openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { sweepExpiredStrings, sweepUnnamedStrings } from '../src/db/page-view-string-sweep.ts';
import { StringIdCache, stringIds, sweepGraceMs, withStringIds } from '../src/db/page-view-strings.ts';
import type { PageViewTable } from '../src/db/schema.ts';
import { createProject } from '../src/projects/service.ts';
import { benchArticles } from './analytics-data.ts';
import { loadAverage, percentile, withPostgresDatabase } from './lib.ts';

const orphans = Number(process.env.BENCH_SWEEP_ORPHANS ?? 100_000);
const views = Number(process.env.BENCH_SWEEP_VIEWS ?? 200_000);
const liveStrings = 5000;
const day = 24 * 60 * 60 * 1000;

function row(projectId: string, at: number, index: number): PageViewTable {
  const created = new Date(at).toISOString();
  return {
    id: newPageViewId(at),
    project_id: projectId,
    article_id: '',
    day: created.slice(0, 10),
    test: 0,
    created_at: created,
    updated_at: created,
    visitor_id: `visitor-${index % 997}`,
    session_id: `session-${index}`,
    source: 'direct',
    country: null,
    time_on_page_ms: 0,
    scroll_depth_centi: 0,
    exit_position: null,
    bounced: null,
    screen_width: null,
    screen_height: null,
    event_count: 0,
    page_url: `https://blog.example.com/posts/${index % liveStrings}`,
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

/** Page views over the last 30 days naming the live strings, inserted in bulk (no writer). */
async function seedViews(db: Db, projectId: string): Promise<void> {
  const values = Array.from({ length: liveStrings }, (_, i) => `https://blog.example.com/posts/${i}`);
  const referrers = Array.from({ length: 100 }, (_, i) => `https://news.example.com/item/${i}`);
  const ids = await stringIds(db.kysely, [...values, ...referrers], new StringIdCache());
  const now = Date.now();
  for (let from = 0; from < views; from += 1000) {
    const rows = [];
    for (let i = from; i < Math.min(views, from + 1000); i++) {
      const view = row(projectId, now - Math.floor((i / views) * 30 * day), i);
      view.referrer = i % 3 === 0 ? referrers[i % 100] : null;
      rows.push(withStringIds(view, ids));
    }
    await insertPageViewRows(db.kysely, db.dialect, rows);
  }
}

/** `orphans` strings named by no page view, last read at `at`. */
async function seedOrphans(db: Db, label: string, at: number): Promise<void> {
  const cache = new StringIdCache({ now: () => at });
  for (let from = 0; from < orphans; from += 5000) {
    const values = Array.from(
      { length: Math.min(5000, orphans - from) },
      (_, i) => `https://orphan.example/${label}/${from + i}?utm_content=${'x'.repeat(20)}`,
    );
    await stringIds(db.kysely, values, cache);
  }
}

interface Tracked {
  acknowledged: number;
  failed: number;
  latencies: number[];
}

/** Tracks a page view every 2 ms through the writer until `done` settles; returns what was answered. */
async function trackWhile(db: Db, projectId: string, done: Promise<unknown>): Promise<Tracked> {
  const writer = new PageViewWriter(db, { rollupDelayMs: 60_000 });
  const result: Tracked = { acknowledged: 0, failed: 0, latencies: [] };
  let finished = false;
  void done.finally(() => (finished = true));
  const pending: Array<Promise<void>> = [];
  for (let i = 0; !finished; i++) {
    const started = performance.now();
    const view = { ...row(projectId, Date.now(), i), page_url: `https://blog.example.com/posts/${i % 50}` };
    pending.push(
      writer.write({ kind: 'create', row: view, slug: 'article-0' }).then(
        () => {
          result.acknowledged++;
          result.latencies.push(performance.now() - started);
        },
        () => {
          result.failed++;
        },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all(pending);
  await writer.idle();
  await writer.close();
  return result;
}

function trackedLine(tracked: Tracked, ms: number): string {
  return (
    `${tracked.acknowledged} writes acknowledged (${((tracked.acknowledged / ms) * 1000).toFixed(0)}/s), ` +
    `${tracked.failed} failed; latency p50 ${percentile(tracked.latencies, 50).toFixed(1)} ms, ` +
    `p99 ${percentile(tracked.latencies, 99).toFixed(1)} ms, max ${percentile(tracked.latencies, 100).toFixed(1)} ms`
  );
}

async function measure(label: string, databaseUrl: string): Promise<void> {
  const db = openDatabase(databaseUrl);
  try {
    await migrateToLatest(db);
    const project = await createProject(db, { name: 'Bench', slug: 'bench', storageLimit: '100 GB' });
    await importContent(db, 'bench', {
      tags: [],
      articles: benchArticles(1),
    });
    console.log(`\n${label}: ${views} page views naming ${liveStrings + 100} strings…`);
    await seedViews(db, project.id);

    // The same tracking with no sweep, for the comparison.
    let started = performance.now();
    const idle = await trackWhile(db, project.id, new Promise((resolve) => setTimeout(resolve, 3000)));
    console.log(`  no sweep (3 s): ${trackedLine(idle, performance.now() - started)}`);

    for (const kind of ['retention', 'deleted project'] as const) {
      const at = Date.now() - (kind === 'retention' ? 40 * day : day);
      await seedOrphans(db, kind.replace(' ', '-'), at);
      const batches: number[] = [];
      const onBatch = (_rows: number, ms: number) => {
        batches.push(ms);
      };
      const load = await loadAverage();
      started = performance.now();
      const sweep =
        kind === 'retention'
          ? sweepExpiredStrings(db, firstRetainedDay(30, new Date()), { onBatch })
          : sweepUnnamedStrings(db, Math.floor((Date.now() - sweepGraceMs) / 1000), { onBatch });
      const [deleted, tracked] = await Promise.all([sweep, trackWhile(db, project.id, sweep)]);
      const ms = performance.now() - started;
      console.log(
        `  ${kind}: swept ${deleted} strings in ${(ms / 1000).toFixed(2)} s, ${batches.length} batches ` +
          `(median ${percentile(batches, 50).toFixed(1)} ms, longest ${percentile(batches, 100).toFixed(1)} ms); load ${load}`,
      );
      console.log(`    meanwhile: ${trackedLine(tracked, ms)}`);
    }
  } finally {
    await db.close();
  }
}

console.log(`load: ${await loadAverage()}`);
const work = mkdtempSync(join(tmpdir(), 'folio-sweep-'));
try {
  if (process.env.BENCH_SWEEP_SKIP_SQLITE === undefined) await measure('SQLite', join(work, 'bench.db'));
  if (process.env.BENCH_POSTGRES_URL) {
    await withPostgresDatabase(process.env.BENCH_POSTGRES_URL, 'folio_sweep', (url) =>
      measure('PostgreSQL', url),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
