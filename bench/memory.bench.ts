// Memory of the server as `npm start` runs it (its node flags and environment, read from
// package.json), on a new default SQLite database, so with the demo project imported at the first
// start: the resident set (RSS, its anonymous and file-backed parts) and the heap of every isolate
// (the main thread and each worker thread alive: SQLite read lanes, task thread, checkpointer),
// read inside the process by memory-probe.js. Threads share one address space, so RSS is the
// process's; what belongs to a thread is its isolate's heap.
//
// Moments: right after start (demo imported); idle (BENCH_MEMORY_IDLE_SECONDS, default 45, past
// WORKER_IDLE_MS); under the mixed scenario (BENCH_MEMORY_VISITORS, default 16, visitors in a loop
// for BENCH_MEMORY_SECONDS, default 30: a tracker's POST and PUT, the article read with the public
// key, every 4th a list, every 8th the project's stats with a secret key, every 16th a search),
// with its peak RSS sampled every 200 ms; idle again after it; and a second start on the same
// database, idle. Beside them, the floor: a bare `node` and a bare `node` running a .ts file.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { browserAgent } from './lib.ts';

/** One isolate's heap, in bytes. */
interface IsolateMemory {
  thread: string;
  usedHeap: number;
  totalHeap: number;
  external: number;
}

/** What memory-probe.js writes. */
interface MemoryReport {
  /** From /proc/self/status: the resident set, its anonymous and file-backed parts (bytes). */
  rss: number;
  rssAnon: number;
  rssFile: number;
  threads: number;
  isolates: IsolateMemory[];
}

const idleSeconds = Number(process.env.BENCH_MEMORY_IDLE_SECONDS ?? 45);
const loadSeconds = Number(process.env.BENCH_MEMORY_SECONDS ?? 30);
const visitors = Number(process.env.BENCH_MEMORY_VISITORS ?? 16);

const root = new URL('..', import.meta.url).pathname;
// JavaScript: a .ts file would load Node's type stripper into the server and each of its threads.
const probe = new URL('./memory-probe.js', import.meta.url).pathname;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** `npm start`'s command split into its environment, node flags and arguments. */
function startCommand(): { env: Record<string, string>; nodeArgs: string[]; args: string[] } {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/).filter(Boolean);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name] = value.join('=');
  }
  if (words.shift() !== 'node') throw new Error(`npm start does not run node: ${pkg.scripts.start}`);
  const script = words.findIndex((word) => !word.startsWith('-'));
  return {
    env,
    nodeArgs: words.slice(0, script),
    args: [join(root, words[script]), ...words.slice(script + 1)],
  };
}

function processRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

/** RSS of a bare node running `args` for 2 s. */
async function floor(args: string[]): Promise<number> {
  const child = spawn(process.execPath, args, { stdio: 'ignore' });
  await sleep(2000);
  const rss = processRss(child.pid!);
  child.kill();
  await once(child, 'exit');
  return rss;
}

interface Server {
  child: ChildProcess;
  url: string;
  reportFile: string;
}

/** Starts the server in `work` (its default database is work/data/folio.db) and waits for it to be ready. */
async function startServer(work: string, firstStart: boolean): Promise<Server> {
  const { env, nodeArgs, args } = startCommand();
  const reportFile = join(work, 'memory.json');
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    BENCH_MEMORY_FILE: reportFile,
  };
  delete childEnv.DATABASE_URL;
  delete childEnv.REDIS_URL;
  const child = spawn(process.execPath, [...nodeArgs, '--import', probe, ...args], {
    cwd: work,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let url = '';
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${output}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      url ||= /Server listening at (http:\/\/[\d.:]+)/.exec(output)?.[1] ?? '';
      if (url && (!firstStart || output.includes('created the demo project'))) resolve();
    });
  });
  return { child, url, reportFile };
}

async function stopServer(server: Server): Promise<void> {
  server.child.kill('SIGTERM');
  await once(server.child, 'exit');
}

/** The probe's report, asked for with SIGUSR2. */
async function memoryOf(server: Server): Promise<MemoryReport> {
  rmSync(server.reportFile, { force: true });
  server.child.kill('SIGUSR2');
  for (let i = 0; i < 100; i++) {
    await sleep(50);
    try {
      return JSON.parse(readFileSync(server.reportFile, 'utf8')) as MemoryReport;
    } catch {
      // not written yet
    }
  }
  throw new Error('the memory probe did not answer');
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: object,
): Promise<{ status: number; body: string }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const allHeaders = text === undefined ? headers : { ...headers, 'content-type': 'application/json' };
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers: allHeaders, agent }, (response) => {
      let answer = '';
      response.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body: answer }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(text);
  });
}

function createKey(work: string, kind: 'public' | 'secret'): string {
  const { env, nodeArgs, args } = startCommand();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.DATABASE_URL;
  const output = execFileSync(
    process.execPath,
    [
      ...nodeArgs,
      args[0],
      'keys',
      'create',
      '--project',
      'demo',
      '--kind',
      kind,
      '--rate-limit',
      '1000000',
      '--json',
    ],
    { cwd: work, env: childEnv },
  );
  return (JSON.parse(output.toString()) as { key: string }).key;
}

interface LoadOutcome {
  requests: number;
  failed: number;
  peakRss: number;
  during: MemoryReport;
}

/** The mixed scenario: `visitors` loops of tracking and reads, the RSS sampled meanwhile. */
async function mixedLoad(server: Server, work: string): Promise<LoadOutcome> {
  const publicKey = createKey(work, 'public');
  const secretKey = createKey(work, 'secret');
  // Listed with the public key: the published articles, which a page view may name.
  const list = await send(`${server.url}/v1/articles?limit=100`, 'GET', { 'x-api-key': publicKey });
  const listed = JSON.parse(list.body) as Record<string, Array<{ slug: string }>>;
  const slugs = (listed.data ?? listed.items ?? listed.articles ?? []).map((article) => article.slug);
  if (slugs.length === 0)
    throw new Error(`no demo articles listed: ${list.status} ${list.body.slice(0, 200)}`);
  const deadline = performance.now() + loadSeconds * 1000;
  let requests = 0;
  let failed = 0;
  const check = (answer: { status: number; body: string }, what: string) => {
    requests++;
    if (answer.status >= 300 && failed++ === 0)
      console.log(`${what}: ${answer.status} ${answer.body.slice(0, 200)}`);
    return answer;
  };
  const visitor = async (index: number) => {
    for (let i = 0; performance.now() < deadline; i++) {
      const slug = slugs[(index + i) % slugs.length];
      const headers = { 'x-api-key': publicKey, 'user-agent': `${browserAgent} v${index}.${i}` };
      const created = check(
        await send(`${server.url}/v1/analytics/track`, 'POST', headers, {
          slug,
          referrer: 'https://www.google.com/',
          scrollDepth: 0,
        }),
        'track',
      );
      if (created.status === 201) {
        const { id } = JSON.parse(created.body) as { id: string };
        check(
          await send(`${server.url}/v1/analytics/track/${id}`, 'PUT', headers, {
            timeOnPage: 30,
            scrollDepth: 80,
          }),
          'update',
        );
      }
      check(await send(`${server.url}/v1/articles/${slug}`, 'GET', headers), 'article');
      if (i % 4 === 0) check(await send(`${server.url}/v1/articles?limit=10`, 'GET', headers), 'list');
      const secret = { 'x-api-key': secretKey };
      if (i % 8 === 0) check(await send(`${server.url}/v1/analytics/stats?days=30`, 'GET', secret), 'stats');
      if (i % 16 === 0)
        check(await send(`${server.url}/v1/articles?search=the%20notes&limit=5`, 'GET', secret), 'search');
    }
  };
  let peakRss = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peakRss = Math.max(peakRss, processRss(server.child.pid!));
      await sleep(200);
    }
  })();
  const halfway = sleep((loadSeconds * 1000) / 2).then(() => memoryOf(server));
  await Promise.all(Array.from({ length: visitors }, (_, index) => visitor(index)));
  const during = await halfway;
  sampling = false;
  await sampler;
  return { requests, failed, peakRss, during };
}

function row(moment: string, report: MemoryReport, peak?: number): string {
  const heaps = report.isolates
    .map((isolate) => `${isolate.thread} ${mb(isolate.usedHeap)}/${mb(isolate.totalHeap)}`)
    .join(', ');
  const external = report.isolates.reduce((sum, isolate) => sum + isolate.external, 0);
  return `| ${moment} | ${mb(report.rss)} | ${peak === undefined ? '' : mb(peak)} | ${mb(report.rssAnon)} | ${mb(report.rssFile)} | ${report.threads} | ${heaps} | ${mb(external)} |`;
}

const work = mkdtempSync(join(tmpdir(), 'folio-memory-'));
try {
  // The project root of the started server: its default database goes to work/data/.
  writeFileSync(join(work, 'package.json'), '{}\n');
  const bareTs = join(work, 'bare.ts');
  writeFileSync(bareTs, 'const wait: number = 1000;\nsetInterval(() => {}, wait);\n');
  const bare = await floor(['-e', 'setInterval(() => {}, 1000)']);
  const bareTypeScript = await floor([bareTs]);

  const rows: string[] = [];
  const first = await startServer(work, true);
  let outcome: LoadOutcome;
  try {
    rows.push(row('after start (demo imported)', await memoryOf(first)));
    await sleep(idleSeconds * 1000);
    rows.push(row(`idle ${idleSeconds} s`, await memoryOf(first)));
    outcome = await mixedLoad(first, work);
    rows.push(row(`mixed load, halfway`, outcome.during, outcome.peakRss));
    rows.push(row(`mixed load, end`, await memoryOf(first)));
    await sleep(idleSeconds * 1000);
    rows.push(row(`idle ${idleSeconds} s after the load`, await memoryOf(first)));
  } finally {
    await stopServer(first);
  }
  const second = await startServer(work, false);
  try {
    await sleep(idleSeconds * 1000);
    rows.push(row(`second start, idle ${idleSeconds} s`, await memoryOf(second)));
  } finally {
    await stopServer(second);
  }

  const { env, nodeArgs, args } = startCommand();
  const environment = Object.entries(env).map(([name, value]) => `${name}=${value} `);
  const command = [...nodeArgs, relative(root, args[0]), ...args.slice(1)].join(' ');
  console.log(`\n## Memory of \`${environment.join('')}node ${command}\` (MB)\n`);
  console.log(
    `Floor: a bare node ${mb(bare)} MB RSS; a bare node running a .ts file ${mb(bareTypeScript)} MB.`,
  );
  console.log(
    `Mixed load: ${visitors} visitors for ${loadSeconds} s, ${outcome.requests} requests, ${outcome.failed} failed.\n`,
  );
  console.log(
    '| moment | RSS | peak RSS | anonymous | file | threads | heap used/total by isolate | external |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---|---:|');
  for (const line of rows) console.log(line);
  if (outcome.failed > 0) process.exitCode = 1;
} finally {
  agent.destroy();
  rmSync(work, { recursive: true, force: true });
}
