// A blog's real rate: a fixed rate of page views (BENCH_RATES, default 1, 10 and
// 50 a second; on two cores higher rates measure saturation, which the other benches do), each a
// tracker's POST, its PUT, an article read and every tenth a list read, all with a public key as a
// blog's pages send them, for BENCH_RATE_SECONDS (default 60) per rate. Over one project of 200
// articles and over 1,000 projects of 20 articles (BENCH_RATE_SETS=one,many), on SQLite and, when
// BENCH_POSTGRES_URL is set, PostgreSQL (BENCH_SKIP_SQLITE=1 for PostgreSQL alone).
//
// BENCH_RATE_TRACKING=real,none,bare,hooks (default real) runs the steps once for each way of
// answering the tracking requests (serve-app.ts: real; none, a fixed answer from the server's
// request listener; bare, trivial routes of a bare Fastify; hooks, trivial routes behind all the
// app's hooks), each on a database of its own: what each layer of a tracking request costs.
//
// The steps begin 75 s after the server started (BENCH_RATE_SETTLE_MS), past the analytics cleanup
// that runs a minute after start and then hourly.
//
// Reported per view: the CPU of the Folio process (every thread, from /proc) and of the database's
// PostgreSQL backends, beside a raw node:http server (serve-raw.ts) sent the same requests at the
// same rate at the same time, answering with the bytes Folio answered; p50/p99 latency of all the
// requests; PostgreSQL transactions per view; the server's RSS after each step.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { importContent } from '../src/content/import.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { createApiKey, createProject } from '../src/projects/service.ts';
import { benchArticles } from './analytics-data.ts';
import {
  backendCpu,
  backendCpuSince,
  browserAgent,
  cpuSeconds,
  forkServer,
  loadAverage,
  percentile,
  residentMemory,
  threadCpuSeconds,
  type RunningServer,
  withPostgresDatabase,
} from './lib.ts';

const seconds = Number(process.env.BENCH_RATE_SECONDS ?? 60);
/** How long after the server's start the first step begins: past the cleanup of its first minute. */
const settleMs = Number(process.env.BENCH_RATE_SETTLE_MS ?? 75_000);
const rates = (process.env.BENCH_RATES ?? '1,10,50').split(',').map(Number);
const sets = [
  { name: 'one', label: '1 project of 200 articles', projects: 1, articles: 200 },
  { name: 'many', label: '1,000 projects of 20 articles', projects: 1000, articles: 20 },
].filter((set) => (process.env.BENCH_RATE_SETS ?? 'one,many').split(',').includes(set.name));
const trackings = (process.env.BENCH_RATE_TRACKING ?? 'real').split(',');
for (const tracking of trackings) {
  if (!['real', 'none', 'bare', 'hooks'].includes(tracking))
    throw new Error(`BENCH_RATE_TRACKING: '${tracking}' is none of real, none, bare, hooks`);
}
const paragraph =
  'A paragraph of a blog post about reading analytics, caches, latency and the small servers that a blog runs on. '.repeat(
    8,
  );

/** One project's public key and its articles' slugs. */
interface Site {
  key: string;
  slugs: string[];
}

async function seed(databaseUrl: string, projects: number, articles: number): Promise<Site[]> {
  const db = openDatabase(databaseUrl);
  await migrateToLatest(db);
  const started = performance.now();
  const sites: Site[] = [];
  const content = benchArticles(articles).map((article) => ({
    ...article,
    content: `# ${article.title}\n\n${paragraph}\n\n${paragraph}\n`,
  }));
  for (let p = 0; p < projects; p++) {
    const slug = `blog-${p}`;
    await createProject(db, { name: `Blog ${p}`, slug, storageLimit: '1 GB' });
    await importContent(db, slug, { tags: [], articles: content });
    const { key } = await createApiKey(db, slug, { kind: 'public', rateLimit: 1_000_000 });
    sites.push({ key, slugs: content.map((article) => article.slug) });
  }
  await db.close();
  console.log(
    `seeded ${projects} × ${articles} articles in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  return sites;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

interface Answer {
  status: number;
  body: Buffer;
}

interface Sender {
  key: string;
  userAgent: string;
}

function send(base: string, method: string, path: string, sender: Sender, body?: object): Promise<Answer> {
  const headers: Record<string, string> = { 'x-api-key': sender.key, 'user-agent': sender.userAgent };
  const text = body === undefined ? undefined : JSON.stringify(body);
  if (text !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed as it was reused (Node's documented race): the
      // request never reached the server, so it is sent again on a new one.
      if (request.reusedSocket && error.code === 'ECONNRESET')
        send(base, method, path, sender, body).then(resolve, reject);
      else reject(error);
    });
    request.end(text);
  });
}

/** Sends one view's requests in turn, recording each latency; the answers by request, for the raw server. */
async function oneView(
  base: string,
  sites: Site[],
  index: number,
  latencies: number[],
): Promise<Record<string, Answer>> {
  const site = sites[Math.floor(Math.random() * sites.length)];
  const slug = site.slugs[Math.floor(Math.random() * site.slugs.length)];
  // Visitors differ by their browser's version (the visitor id hashes the User-Agent).
  const sender = { key: site.key, userAgent: `${browserAgent} v${Math.floor(Math.random() * 5000)}` };
  const answers: Record<string, Answer> = {};
  const timed = async (name: string, method: string, path: string, body?: object) => {
    const started = performance.now();
    const answer = await send(base, method, path, sender, body);
    latencies.push(performance.now() - started);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
    answers[name] = answer;
    return answer;
  };
  const created = await timed('track', 'POST', '/v1/analytics/track', {
    slug,
    referrer: 'https://www.google.com/',
    scrollDepth: 0,
  });
  const id = (JSON.parse(created.body.toString()) as { id: string }).id;
  await timed('update', 'PUT', `/v1/analytics/track/${id}`, {
    timeOnPage: Math.floor(Math.random() * 120),
    scrollDepth: Math.floor(Math.random() * 101),
  });
  await timed('article', 'GET', `/v1/articles/${slug}`);
  if (index % 10 === 0) await timed('list', 'GET', '/v1/articles?limit=10');
  return answers;
}

interface Driven {
  views: number;
  failed: number;
  latencies: number[];
}

/** `rate` views a second for `seconds`, each started on time whatever the earlier ones are doing. */
async function drive(base: string, sites: Site[], rate: number, seconds: number): Promise<Driven> {
  const count = Math.max(1, Math.round(rate * seconds));
  const latencies: number[] = [];
  const runs: Array<Promise<unknown>> = [];
  let failed = 0;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    runs.push(
      oneView(base, sites, i, latencies).catch((error: unknown) => {
        if (failed++ === 0) console.log(`a view failed: ${String(error)}`);
      }),
    );
  }
  await Promise.all(runs);
  return { views: count - failed, failed, latencies };
}

/** A raw server answering each request with the bytes and status Folio answered it with. */
async function rawServer(work: string, app: RunningServer, sites: Site[]): Promise<RunningServer> {
  const answers = await oneView(app.url, sites, 0, []);
  const file = join(work, 'raw-answers.json');
  const entry = (method: string, prefix: string, { status, body }: Answer) => ({
    method,
    prefix,
    status,
    body: body.toString('base64'),
  });
  writeFileSync(
    file,
    JSON.stringify([
      entry('PUT', '/v1/analytics/track/', answers.update),
      entry('POST', '/v1/analytics/track', answers.track),
      entry('GET', '/v1/articles?', answers.list),
      entry('GET', '/v1/articles/', answers.article),
    ]),
  );
  return forkServer(new URL('./serve-raw.ts', import.meta.url).pathname, { BENCH_ANSWERS_FILE: file });
}

interface StepResult {
  rate: number;
  app: Driven;
  raw: Driven;
  appCpu: number;
  rawCpu: number;
  postgresCpu: number | null;
  transactions: number | null;
  rssMb: number;
  /** The Folio process's CPU seconds in the step by thread name. */
  threads: Map<string, number>;
}

async function commits(admin: pg.Client): Promise<number> {
  // Backends report their counters when idle, at most once a second.
  await sleep(1100);
  const { rows } = await admin.query<{ n: string }>(
    'select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()',
  );
  return Number(rows[0].n);
}

/** One rate, on Folio and the raw server at once; the CPU includes the roll-up of the step's views. */
async function step(
  app: RunningServer,
  raw: RunningServer,
  sites: Site[],
  rate: number,
  admin: pg.Client | null,
): Promise<StepResult> {
  const transactionsBefore = admin === null ? 0 : await commits(admin);
  const backendsBefore = admin === null ? null : await backendCpu(admin);
  const appBefore = cpuSeconds(app.child.pid!);
  const threadsBefore = threadCpuSeconds(app.child.pid!);
  const rawBefore = cpuSeconds(raw.child.pid!);
  const [appRun, rawRun] = await Promise.all([
    drive(app.url, sites, rate, seconds),
    drive(raw.url, sites, rate, seconds),
  ]);
  await sleep(1000); // the roll-up of the last views (0.5 s after them)
  const appCpu = cpuSeconds(app.child.pid!) - appBefore;
  const threads = new Map<string, number>();
  for (const [name, after] of threadCpuSeconds(app.child.pid!)) {
    threads.set(name, after - (threadsBefore.get(name) ?? 0));
  }
  const rawCpu = cpuSeconds(raw.child.pid!) - rawBefore;
  const postgresCpu = backendsBefore === null ? null : await backendCpuSince(admin!, backendsBefore);
  const transactions = admin === null ? null : (await commits(admin)) - transactionsBefore;
  const rssMb = residentMemory(app.child.pid!).mb;
  return { rate, app: appRun, raw: rawRun, appCpu, rawCpu, postgresCpu, transactions, rssMb, threads };
}

async function measure(
  label: string,
  databaseUrl: string,
  set: (typeof sets)[number],
  work: string,
  tracking: string,
) {
  const sites = await seed(databaseUrl, set.projects, set.articles);
  const started = Date.now();
  const app = await forkServer(new URL('./serve-app.ts', import.meta.url).pathname, {
    DATABASE_URL: databaseUrl,
    BENCH_TRACKING: tracking,
  });
  const admin = label === 'PostgreSQL' ? new pg.Client({ connectionString: databaseUrl }) : null;
  await admin?.connect();
  const results: StepResult[] = [];
  try {
    const raw = await rawServer(work, app, sites);
    // Warm-up: compiled code, prepared statements, the pools' connections.
    await Promise.all([drive(app.url, sites, 20, 5), drive(raw.url, sites, 20, 5)]);
    // The analytics cleanup runs a minute after start, then hourly: its cost depends on the
    // projects and the hour's views, not on the rate, so no step measures it (BENCH_RATE_SETTLE_MS).
    await drive(app.url, sites, 1, Math.max(0, (settleMs - (Date.now() - started)) / 1000));
    for (const rate of rates) results.push(await step(app, raw, sites, rate, admin));
    await raw.stop();
  } finally {
    await admin?.end();
    await app.stop();
  }
  const answered = tracking === 'real' ? '' : `, tracking answered by ${tracking} (BENCH_RATE_TRACKING)`;
  printResults(`${label}, ${set.label}${answered}`, results, await loadAverage());
}

function printResults(title: string, results: StepResult[], load: string): void {
  console.log(`\n## Rate: ${title}, ${seconds} s per rate (load average at the end: ${load})\n`);
  console.log(
    '| views/s | views | Folio CPU ms/view | PostgreSQL ms/view | raw CPU ms/view | Folio ÷ raw | Folio p50 / p99 ms | raw p50 / p99 ms | transactions/view | Folio RSS MB | failed |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const per = (cpu: number, views: number) => ((cpu * 1000) / Math.max(1, views)).toFixed(2);
    const latency = (run: Driven) =>
      `${percentile(run.latencies, 50).toFixed(1)} / ${percentile(run.latencies, 99).toFixed(1)}`;
    console.log(
      `| ${r.rate} | ${r.app.views} | ${per(r.appCpu, r.app.views)} | ${r.postgresCpu === null ? '–' : per(r.postgresCpu, r.app.views)} | ${per(r.rawCpu, r.raw.views)} | ${(r.appCpu / r.app.views / (r.rawCpu / r.raw.views || Number.NaN)).toFixed(1)}× | ${latency(r.app)} | ${latency(r.raw)} | ${r.transactions === null ? '–' : (r.transactions / r.app.views).toFixed(2)} | ${r.rssMb.toFixed(0)} | ${r.app.failed + r.raw.failed} |`,
    );
  }
  // Where Folio's CPU went, by thread name: the main thread, the worker threads Node names
  // WorkerThread (SQLite's read lanes, task thread and checkpointer), V8's helpers (compilation,
  // garbage collection) and libuv's pool (crypto, files).
  const names = [...new Set(results.flatMap((r) => [...r.threads.keys()]))].sort();
  console.log(`\nFolio CPU ms/view by thread:\n`);
  console.log(`| views/s | ${names.join(' | ')} |`);
  console.log(`|---:|${names.map(() => '---:').join('|')}|`);
  for (const r of results) {
    const cells = names.map((name) =>
      (((r.threads.get(name) ?? 0) * 1000) / Math.max(1, r.app.views)).toFixed(2),
    );
    console.log(`| ${r.rate} | ${cells.join(' | ')} |`);
  }
}

const work = mkdtempSync(join(tmpdir(), 'folio-rate-'));
try {
  for (const set of sets) {
    for (const tracking of trackings) {
      if (process.env.BENCH_SKIP_SQLITE !== '1') {
        await measure('SQLite', join(work, `${set.name}-${tracking}.db`), set, work, tracking);
      }
      const adminUrl = process.env.BENCH_POSTGRES_URL;
      if (adminUrl) {
        await withPostgresDatabase(adminUrl, `folio_rate_${set.name}_${tracking}`, (url) =>
          measure('PostgreSQL', url, set, work, tracking),
        );
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
  agent.destroy();
}
