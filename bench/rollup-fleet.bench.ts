// Roll-ups across a fleet, on PostgreSQL (BENCH_POSTGRES_URL; skipped without it): 1, 2 and 3
// server instances (or BENCH_FLEET_SIZES) on one database, each in a database of its own, take the same number of tracked
// page views (BENCH_FLEET_VIEWS, spread evenly over the instances at BENCH_FLEET_RATE POST/s in
// all), and the CPU they and PostgreSQL spent is reported per million page views: the Node
// processes (every thread, from /proc/<pid>/stat) and the database's backends (their pids from
// pg_stat_activity), from after a warm-up until every queued write has been rolled up. A fleet
// should spend about what one instance does: each write is summed once, by one of them.
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { createApiKey } from '../src/projects/service.ts';
import { seedAnalytics } from './analytics-data.ts';
import {
  backendCpu,
  browserAgent as browser,
  cpuSeconds,
  forkServer,
  loadAverage,
  type RunningServer,
  withPostgresDatabase,
} from './lib.ts';

const views = Number(process.env.BENCH_FLEET_VIEWS ?? 60_000);
const rate = Number(process.env.BENCH_FLEET_RATE ?? 1500);
/** Fleet sizes measured in turn (BENCH_FLEET_SIZES, e.g. `1,3,6`): on two cores more than three measures saturation. */
const fleetSizes = (process.env.BENCH_FLEET_SIZES ?? '1,2,3').split(',').map(Number);
const articles = 200;

/** Rows written to the rollups (inserted or updated) and transactions committed, so far. */
async function rollupWrites(admin: pg.Client): Promise<{ rows: number; commits: number }> {
  // Backends report their counters when idle, at most once a second.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const { rows } = await admin.query<{ rows: string; commits: string }>(
    `select (select coalesce(sum(n_tup_ins + n_tup_upd), 0) from pg_stat_user_tables
              where relname like 'analytics\\_%' or relname = 'article_views') as rows,
            (select xact_commit from pg_stat_database where datname = current_database()) as commits`,
  );
  return { rows: Number(rows[0].rows), commits: Number(rows[0].commits) };
}

async function queued(admin: pg.Client): Promise<number> {
  const { rows } = await admin.query<{ count: string }>('select count(*) as count from rollup_queue');
  return Number(rows[0].count);
}

/** `count` tracking POSTs spread over the instances, of random articles and visitors. */
async function drive(servers: RunningServer[], key: string, count: number, perSecond: number) {
  const runs = servers.map((server) =>
    autocannon({
      url: `${server.url}/v1/analytics/track`,
      connections: 8,
      amount: Math.round(count / servers.length),
      overallRate: Math.max(1, Math.round(perSecond / servers.length)),
      requests: [
        {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          setupRequest: (request) => ({
            ...request,
            headers: {
              ...request.headers,
              'user-agent': `${browser} v${Math.floor(Math.random() * 5000)}`,
            },
            body: JSON.stringify({
              slug: `article-${Math.floor(Math.random() * articles)}`,
              timeOnPage: Math.floor(Math.random() * 120),
              scrollDepth: Math.floor(Math.random() * 101),
            }),
          }),
        },
      ],
    }),
  );
  const results = await Promise.all(runs);
  const answered = results.reduce((sum, result) => sum + result['2xx'], 0);
  const refused = results.reduce((sum, result) => sum + result.non2xx + result.errors, 0);
  if (refused > 0) throw new Error(`${refused} tracking requests were not answered 2xx`);
  return answered;
}

async function waitForRollUps(admin: pg.Client): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await queued(admin)) > 0) {
    if (Date.now() > deadline) throw new Error('the roll-up queue did not drain in 2 minutes');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface FleetResult {
  instances: number;
  views: number;
  seconds: number;
  nodeCpu: number;
  postgresCpu: number;
  rollupRows: number;
  commits: number;
}

async function measureFleet(databaseUrl: string, instances: number): Promise<FleetResult> {
  const db = openDatabase(databaseUrl);
  await migrateToLatest(db);
  const { slug } = await seedAnalytics(db, { pageViews: 0, articles, today: '' });
  const { key } = await createApiKey(db, slug, { kind: 'secret', rateLimit: 1_000_000 });
  await db.close();
  const servers: RunningServer[] = [];
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    for (let i = 0; i < instances; i++) {
      servers.push(
        await forkServer(new URL('./serve-app.ts', import.meta.url).pathname, { DATABASE_URL: databaseUrl }),
      );
    }
    // Warm-up: compiled code, prepared statements, the pools' connections.
    await drive(servers, key, 600 * instances, Math.min(rate, 300 * instances));
    await waitForRollUps(admin);
    const nodeBefore = servers.map((server) => cpuSeconds(server.child.pid!));
    const writesBefore = await rollupWrites(admin);
    const backendsBefore = await backendCpu(admin);
    const started = performance.now();
    const answered = await drive(servers, key, views, rate);
    await waitForRollUps(admin);
    const seconds = (performance.now() - started) / 1000;
    const nodeCpu = servers.reduce(
      (sum, server, i) => sum + cpuSeconds(server.child.pid!) - nodeBefore[i],
      0,
    );
    let postgresCpu = 0;
    for (const [pid, after] of await backendCpu(admin)) postgresCpu += after - (backendsBefore.get(pid) ?? 0);
    const writesAfter = await rollupWrites(admin);
    return {
      instances,
      views: answered,
      seconds,
      nodeCpu,
      postgresCpu,
      rollupRows: writesAfter.rows - writesBefore.rows,
      commits: writesAfter.commits - writesBefore.commits,
    };
  } finally {
    await admin.end();
    await Promise.all(servers.map((server) => server.stop()));
  }
}

const adminUrl = process.env.BENCH_POSTGRES_URL;
if (!adminUrl) {
  console.log('BENCH_POSTGRES_URL is not set: the fleet roll-up bench needs PostgreSQL, skipped.');
} else {
  const results: FleetResult[] = [];
  for (const instances of fleetSizes) {
    await withPostgresDatabase(adminUrl, `folio_fleet${instances}`, async (url) => {
      results.push(await measureFleet(url, instances));
    });
  }
  console.log(
    `\n## Roll-ups across a fleet, PostgreSQL, ${views} tracked page views at ${rate}/s (load ${await loadAverage()})\n`,
  );
  console.log(
    '| instances | views | seconds | Node CPU s/M | PostgreSQL CPU s/M | total CPU s/M | vs one | rollup rows written per 1,000 views | commits per 1,000 views |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const perMillion = (cpu: number, result: FleetResult) => (cpu / result.views) * 1_000_000;
  const one = perMillion(results[0].nodeCpu + results[0].postgresCpu, results[0]);
  for (const result of results) {
    const total = perMillion(result.nodeCpu + result.postgresCpu, result);
    console.log(
      `| ${result.instances} | ${result.views} | ${result.seconds.toFixed(1)} | ${perMillion(result.nodeCpu, result).toFixed(0)} | ${perMillion(result.postgresCpu, result).toFixed(0)} | ${total.toFixed(0)} | ${((total / one - 1) * 100).toFixed(0)}% | ${((result.rollupRows / result.views) * 1000).toFixed(0)} | ${((result.commits / result.views) * 1000).toFixed(0)} |`,
    );
  }
}
