// `folio backup` of a large SQLite database while a server writes page views into it: a database of
// BENCH_BACKUP_MB (1024) MB of page views and articles, a Folio server (its own process) taking
// POST /v1/analytics/track from BENCH_BACKUP_CONNECTIONS (4) looping clients, and the backup run
// meanwhile in its own process. Reports the backup's time and peak RSS, the writes' throughput and
// latency before, during and after it, and checks that the copy opens, passes integrity_check and
// holds every page view acknowledged before the backup began and none written after it ended.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { utcDay } from '../src/analytics/days.ts';
import { importContent } from '../src/content/import.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { createApiKey } from '../src/projects/service.ts';
import { generatePageViews, seedAnalytics } from './analytics-data.ts';
import { browserAgent, type CliRun, forkServer, loadAverage, timedCli, timedNode } from './lib.ts';
import { variedArticles } from './varied-articles.ts';

const targetMb = Number(process.env.BENCH_BACKUP_MB ?? 1024);
const articleCount = Number(process.env.BENCH_BACKUP_ARTICLES ?? 2000);
const connections = Number(process.env.BENCH_BACKUP_CONNECTIONS ?? 4);
/** Seconds of writes measured before the backup, and after it. */
const beforeSeconds = Number(process.env.BENCH_BACKUP_BEFORE_SECONDS ?? 15);
const afterSeconds = Number(process.env.BENCH_BACKUP_AFTER_SECONDS ?? 5);
const mb = 1024 ** 2;

const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'folio-backup-bench-'));
const path = join(work, 'folio.db');
const target = join(work, 'backup.db');
const pageCopy = join(work, 'page-copy.db');
/** BENCH_BACKUP_COMPARE=1: the one-step online backup too, under the same writes. */
const compare = process.env.BENCH_BACKUP_COMPARE === '1';

/** Page views and articles up to about `targetMb` on disk (WAL checkpointed), built in bulk. */
async function seed(): Promise<{ slug: string; slugs: string[]; seconds: number }> {
  const started = performance.now();
  const db = openDatabase(path);
  try {
    await migrateToLatest(db);
    const today = utcDay(Date.now());
    const { projectId, slug } = await seedAnalytics(db, { pageViews: 0, articles: 200, today });
    // Realistic articles beside the bench's small ones: a blog's content, a small share of the size.
    const { articles, tags } = variedArticles(articleCount);
    await importContent(db, slug, { articles, tags });
    const ids = (
      await db.kysely.selectFrom('articles').select('id').where('project_id', '=', projectId).execute()
    ).map((row) => row.id);
    await sql`delete from bench_articles`.execute(db.kysely);
    for (const [n, id] of ids.entries())
      await sql`insert into bench_articles values (${n}, ${id})`.execute(db.kysely);
    // Page views in rounds, each sized by the bytes a page view took in the last, until the file
    // (its WAL checkpointed) reaches the target.
    let rowBytes = 500;
    for (let size = statSync(path).size; size < targetMb * mb * 0.98;) {
      const rows = Math.min(1_000_000, Math.max(10_000, Math.round((targetMb * mb - size) / rowBytes)));
      await generatePageViews(db, projectId, ids, today, rows);
      await sql`pragma wal_checkpoint(truncate)`.execute(db.kysely);
      const grown = statSync(path).size;
      rowBytes = Math.max(50, (grown - size) / rows);
      size = grown;
    }
    const slugs = (
      await db.kysely.selectFrom('articles').select('slug').where('project_id', '=', projectId).execute()
    ).map((row) => row.slug);
    return { slug, slugs, seconds: (performance.now() - started) / 1000 };
  } finally {
    await db.close();
  }
}

interface Write {
  at: number;
  ms: number;
  ok: boolean;
}

/** `connections` clients, each POSTing a page view as soon as the last was answered, until stopped. */
function startWriters(url: string, key: string, slugs: string[]) {
  const writes: Write[] = [];
  let running = true;
  const headers = { 'x-api-key': key, 'content-type': 'application/json', 'user-agent': browserAgent };
  const client = async () => {
    while (running) {
      const slug = slugs[Math.floor(Math.random() * slugs.length)];
      const at = performance.now();
      let ok: boolean;
      try {
        const response = await fetch(`${url}/v1/analytics/track`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ slug, pageUrl: `https://blog.example.com/${slug}` }),
        });
        await response.arrayBuffer();
        ok = response.status === 200 || response.status === 201 || response.status === 202;
      } catch {
        ok = false;
      }
      writes.push({ at, ms: performance.now() - at, ok });
    }
  };
  const clients = Array.from({ length: connections }, client);
  return {
    writes,
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}

interface Window {
  name: string;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  failed: number;
}

/** The writes begun in [from, to) (performance.now() ms). */
function window(name: string, writes: Write[], from: number, to: number): Window {
  const inside = writes.filter((write) => write.at >= from && write.at < to);
  const latencies = inside.map((write) => write.ms).sort((a, b) => a - b);
  const quantile = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const seconds = (to - from) / 1000;
  return {
    name,
    seconds,
    perSecond: inside.filter((write) => write.ok).length / seconds,
    p50: quantile(0.5),
    p99: quantile(0.99),
    max: latencies.at(-1) ?? 0,
    failed: inside.filter((write) => !write.ok).length,
  };
}

function pageViews(): number {
  const connection = new DatabaseSync(path, { readOnly: true, timeout: 30_000 });
  try {
    return Number(connection.prepare('select count(*) as n from page_view_rows').get()?.n);
  } finally {
    connection.close();
  }
}

function walBytes(): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

interface Copy {
  name: string;
  file: string;
  run: CliRun;
  /** Page views answered before the copy began (so committed): the copy must hold them. */
  acknowledged: number;
  /** Page views committed when it ended: the copy holds no more. */
  committedAfter: number;
  walBefore: number;
  walMax: number;
  windows: Window[];
  ok?: boolean;
}

/** `run` (a process making a copy) between two windows of measured writes, the WAL watched meanwhile. */
async function copyUnderWrites(name: string, writes: Write[], run: () => Promise<CliRun>): Promise<Copy> {
  const beforeFrom = performance.now();
  await sleep(beforeSeconds * 1000);
  const acknowledged = pageViews();
  // The copy's read snapshot holds back checkpoints: the WAL grows while it runs.
  const walBefore = walBytes();
  let walMax = walBefore;
  const sampler = setInterval(() => (walMax = Math.max(walMax, walBytes())), 250);
  const from = performance.now();
  const result = await run();
  const to = performance.now();
  clearInterval(sampler);
  const committedAfter = pageViews();
  await sleep(afterSeconds * 1000);
  const file = (JSON.parse(result.stdout) as { file: string }).file;
  return {
    name,
    file,
    run: result,
    acknowledged,
    committedAfter,
    walBefore,
    walMax,
    windows: [
      window(`${name}: before (${beforeSeconds} s)`, writes, beforeFrom, from),
      window(`${name}: during`, writes, from, to),
      window(`${name}: after (${afterSeconds} s)`, writes, to, performance.now()),
    ],
  };
}

/** The copy opened on its own: integrity_check, and its page views and articles counted. */
function checkCopy(file: string) {
  const started = performance.now();
  const copy = new DatabaseSync(file, { readOnly: true });
  try {
    const integrity = copy
      .prepare('pragma integrity_check')
      .all()
      .map((row) => String(row.integrity_check))
      .join('; ');
    return {
      integrity,
      pageViews: Number(copy.prepare('select count(*) as n from page_view_rows').get()?.n),
      articles: Number(copy.prepare('select count(*) as n from articles').get()?.n),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    copy.close();
  }
}

const oneStepBackup = `
import { backup, DatabaseSync } from 'node:sqlite';
const started = performance.now();
const source = new DatabaseSync(process.env.BACKUP_SOURCE, { readOnly: true, timeout: 30000 });
await backup(source, process.env.BACKUP_TARGET, { rate: 2 ** 31 - 1 });
source.close();
const seconds = Math.round(performance.now() - started) / 1000;
console.log(JSON.stringify({ file: process.env.BACKUP_TARGET, seconds }));
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let failed: boolean;
try {
  console.log(
    `node ${process.version}, ${execFileSync('nproc').toString().trim()} cores, load ${await loadAverage()}`,
  );
  const seeded = await seed();
  const size = statSync(path).size;
  const rows = pageViews();
  console.log(
    `seeded ${(size / mb).toFixed(0)} MB (${rows} page views, ${seeded.slugs.length} articles) in ${seeded.seconds.toFixed(0)} s`,
  );
  const setup = openDatabase(path);
  const { key } = await createApiKey(setup, seeded.slug, { kind: 'secret', rateLimit: 1_000_000 });
  await setup.close();

  const server = await forkServer(new URL('./serve-app.ts', import.meta.url).pathname, {
    DATABASE_URL: path,
  });
  const writers = startWriters(server.url, key, seeded.slugs);
  await sleep(3000); // warm-up, not measured
  const copies = [
    await copyUnderWrites('folio backup (VACUUM INTO)', writers.writes, () =>
      timedCli(path, ['backup', target, '--json']),
    ),
  ];
  if (compare) {
    // The one-step online backup: every page copied in one step of sqlite3_backup, under one read
    // snapshot (a stepped backup starts over at each write of another connection).
    copies.push(
      await copyUnderWrites(
        'one-step online backup (node:sqlite backup, for comparison)',
        writers.writes,
        () =>
          timedNode(['--input-type=module', '-e', oneStepBackup], {
            BACKUP_SOURCE: path,
            BACKUP_TARGET: pageCopy,
          }),
      ),
    );
  }
  await writers.stop();
  await server.stop();
  const load = await loadAverage();
  console.log(
    `\n## Backups of a ${(size / mb).toFixed(0)} MB SQLite database while page views are written (load ${load})\n`,
  );
  console.log(
    `| copy | wall s (copying s) | peak RSS MB | copy MB | WAL MB at start / most during | integrity_check (s) | page views: acknowledged before ≤ copied ≤ committed at end | articles |`,
  );
  console.log('|---|---:|---:|---:|---:|---|---|---:|');
  for (const copy of copies) {
    const checked = checkCopy(copy.file);
    copy.ok =
      checked.integrity === 'ok' &&
      copy.acknowledged <= checked.pageViews &&
      checked.pageViews <= copy.committedAfter &&
      checked.articles === seeded.slugs.length;
    console.log(
      `| ${copy.name} | ${copy.run.seconds.toFixed(1)} (${(JSON.parse(copy.run.stdout) as { seconds: number }).seconds.toFixed(1)}) | ${copy.run.peakRssMb.toFixed(0)} | ${(statSync(copy.file).size / mb).toFixed(0)} | ${(copy.walBefore / mb).toFixed(1)} / ${(copy.walMax / mb).toFixed(1)} | ${checked.integrity} (${checked.seconds.toFixed(0)}) | ${copy.acknowledged} ≤ ${checked.pageViews} ≤ ${copy.committedAfter}: ${copy.ok ? 'consistent' : 'NOT CONSISTENT'} | ${checked.articles} |`,
    );
  }
  console.log(
    `\n| writes (${connections} clients, POST /v1/analytics/track) | seconds | page views/s | p50 ms | p99 ms | max ms | failed |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const w of copies.flatMap((copy) => copy.windows))
    console.log(
      `| ${w.name} | ${w.seconds.toFixed(1)} | ${w.perSecond.toFixed(0)} | ${w.p50.toFixed(1)} | ${w.p99.toFixed(1)} | ${w.max.toFixed(0)} | ${w.failed} |`,
    );
  failed = copies.some((copy) => !copy.ok || copy.windows.some((w) => w.failed > 0));
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed) {
  console.error('The backup is not a consistent copy, or writes failed (above).');
  process.exitCode = 1;
}
