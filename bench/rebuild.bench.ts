// The rebuild of the rollups while the service tracks, on SQLite and (with BENCH_POSTGRES_URL)
// PostgreSQL: a project of BENCH_REBUILD_VIEWS page views (1 million) over a year is generated in
// the database, a server is started on it, and `folio analytics rebuild`'s work runs in this
// process (another process than the server's, as the CLI does) while tracking POSTs arrive at
// BENCH_REBUILD_RATE a second. Reported: how long the rebuild took, and how tracking was answered
// meanwhile (every answer 201, latency). Afterwards every count must equal the raw page views.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { rebuildRollups } from '../src/analytics/rollups/queries/rebuild-rollups.ts';
import { rollUpQueued } from '../src/analytics/rollups/rollup-queue.ts';
import { utcDay } from '../src/analytics/days.ts';
import { type Db, openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { createApiKey } from '../src/projects/service.ts';
import { seedAnalytics } from './analytics-data.ts';
import { forkServer, loadAverage, withPostgresDatabase } from './lib.ts';

const pageViews = Number(process.env.BENCH_REBUILD_VIEWS ?? 1_000_000);
const rate = Number(process.env.BENCH_REBUILD_RATE ?? 200);
const articles = 1000;
const browser =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

/** Page views stored, summed in the daily totals, and counted in the view counts of a project. */
async function totals(db: Db, projectId: string): Promise<[number, number, number]> {
  const stored = await db.kysely
    .selectFrom('page_view_rows')
    .innerJoin('project_nums', 'project_nums.num', 'page_view_rows.project_num')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('project_nums.project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  const summed = await db.kysely
    .selectFrom('analytics_daily_totals')
    .select((eb) => eb.fn.sum<number>('views').as('total'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  const counted = await db.kysely
    .selectFrom('article_views')
    .select((eb) => eb.fn.sum<number>('view_count').as('total'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return [Number(stored.total), Number(summed.total), Number(counted.total)];
}

async function measure(label: string, databaseUrl: string): Promise<void> {
  const db = openDatabase(databaseUrl);
  await migrateToLatest(db);
  const today = utcDay(Date.now());
  console.log(`\n${label}: generating ${pageViews} page views of ${articles} articles…`);
  const { projectId, slug } = await seedAnalytics(db, { pageViews, articles, today });
  let started = performance.now();
  await rebuildRollups(db.kysely, projectId, today);
  console.log(`  first build of the rollups: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const { key } = await createApiKey(db, slug, { kind: 'secret', rateLimit: 1_000_000 });
  const server = await forkServer(new URL('./serve-app.ts', import.meta.url).pathname, {
    DATABASE_URL: databaseUrl,
  });
  try {
    const tracking = autocannon({
      url: `${server.url}/v1/analytics/track`,
      connections: 8,
      duration: 3600,
      overallRate: rate,
      requests: [
        {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', 'user-agent': browser },
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({
              slug: `article-${Math.floor(Math.random() * articles)}`,
              scrollDepth: 50,
            }),
          }),
        },
      ],
    });
    // Tracking under way before the rebuild starts.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    started = performance.now();
    const summary = await rebuildRollups(db.kysely, projectId, today);
    const seconds = (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    (tracking as unknown as { stop(): void }).stop();
    const result = await tracking;
    await rollUpQueued(db);
    const [stored, summed, counted] = await totals(db, projectId);
    console.log(
      `\n| ${label} | rebuild s | days | tracking answered | not 2xx | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|---:|---:|---:|\n| ${pageViews} page views | ${seconds.toFixed(1)} | ${summary.days} | ${result['2xx']} | ${result.non2xx + result.errors} | ${result.latency.p50} | ${result.latency.p99} | ${result.latency.max} |`,
    );
    console.log(`  page views ${stored}, daily totals ${summed}, view counts ${counted}`);
    if (stored !== summed || stored !== counted) throw new Error('the rollups disagree with the page views');
    if (result.non2xx + result.errors > 0) throw new Error('tracking was refused during the rebuild');
  } finally {
    await server.stop();
    await db.close();
  }
}

console.log(`load: ${await loadAverage()}`);
const work = mkdtempSync(join(tmpdir(), 'folio-rebuild-'));
try {
  await measure('SQLite', join(work, 'bench.db'));
  if (process.env.BENCH_POSTGRES_URL) {
    await withPostgresDatabase(process.env.BENCH_POSTGRES_URL, 'folio_rebuild', (url) =>
      measure('PostgreSQL', url),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
