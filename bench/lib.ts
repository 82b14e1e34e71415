// Shared pieces of the benchmarks: servers in child processes (so that the load generator does
// not share their event loop), an autocannon run, and a plain report.
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from '../src/db/schema.ts';

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  bytesPerResponse: number;
  /** Requests answered 2xx. */
  answered: number;
}

export interface RunningServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Forks a script that listens on port 0 and sends `{ port }` to its parent when ready. */
export async function forkServer(script: string, env: Record<string, string>): Promise<RunningServer> {
  const child = fork(script, [], {
    env: { ...process.env, ...env },
    // BENCH_SERVER_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, profiles each server.
    execArgv: [
      ...process.execArgv,
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return {
    url: `http://127.0.0.1:${message.port}`,
    child,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** autocannon on one URL; `paths` gives each request the next of these paths instead (PUT ids). */
export async function load(
  name: string,
  url: string,
  headers: Record<string, string>,
  options: {
    seconds?: number;
    connections?: number;
    method?: string;
    body?: string;
    paths?: string[];
    /** Each request takes a random one of `paths` instead of the next. */
    random?: boolean;
    /** Each request's body, made when it is sent. */
    bodies?: () => string;
    /** Requests per second over all connections (default: as many as answered). */
    rate?: number;
  } = {},
): Promise<LoadResult> {
  let next = 0;
  const { paths, bodies, random } = options;
  const pick = (list: string[]) =>
    random ? list[Math.floor(Math.random() * list.length)] : list[next++ % list.length];
  const result = await autocannon({
    url,
    connections: options.connections ?? 32,
    duration: options.seconds ?? Number(process.env.BENCH_SECONDS ?? 8),
    pipelining: 1,
    ...(options.rate ? { overallRate: options.rate } : {}),
    requests: [
      {
        method: (options.method ?? 'GET') as 'GET',
        headers,
        body: options.body,
        ...(paths || bodies
          ? {
              setupRequest: (request) => ({
                ...request,
                ...(paths ? { path: pick(paths) } : {}),
                ...(bodies ? { body: bodies() } : {}),
              }),
            }
          : {}),
      },
    ],
  });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    bytesPerResponse: Math.round(result.throughput.total / Math.max(1, result.requests.total)),
    answered: result['2xx'],
  };
}

export function report(title: string, results: LoadResult[], baseline?: LoadResult): void {
  console.log(`\n## ${title}\n`);
  console.log('| scenario | req/s | p50 ms | p99 ms | vs raw | errors | non-2xx | bytes/resp |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const ratio = baseline ? `${((r.requestsPerSecond / baseline.requestsPerSecond) * 100).toFixed(0)}%` : '';
    console.log(
      `| ${r.name} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${ratio} | ${r.errors} | ${r.non2xx} | ${r.bytesPerResponse} |`,
    );
  }
  const refused = results.filter(wasRefused).map((r) => r.name.trim());
  if (refused.length > 0) console.log(`\n**Not all answered 2xx, no figure:** ${refused.join('; ')}`);
}

/** A run with refusals (429s once a key's budget is spent) or errors measured them, not its scenario. */
function wasRefused(run: LoadResult): boolean {
  return run.non2xx > 0 || run.errors > 0;
}

/** Fails the bench (call it after the report) if one of `runs` had refusals or errors. */
export function assertAnswered(runs: LoadResult[]): void {
  const refused = runs.find(wasRefused);
  if (refused !== undefined) {
    throw new Error(`${refused.name}: ${refused.non2xx} answers not 2xx and ${refused.errors} errors`);
  }
}

function wrkMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
}

function wrkBytes(value: string, unit: string): number {
  const scale: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
  return Number(value) * (scale[unit] ?? 1);
}

/** wrk (1 thread, 50 connections by default) on one URL: what the throughput figures use. */
export async function wrk(
  name: string,
  url: string,
  headers: Record<string, string>,
  options: { seconds?: number; connections?: number } = {},
): Promise<LoadResult> {
  const { execFile } = await import('node:child_process');
  const seconds = options.seconds ?? Number(process.env.BENCH_SECONDS ?? 8);
  const args = ['-t1', `-c${options.connections ?? 50}`, `-d${seconds}s`, '--latency'];
  for (const [header, value] of Object.entries(headers)) args.push('-H', `${header}: ${value}`);
  args.push(url);
  const output = await new Promise<string>((resolve, reject) =>
    execFile(process.env.BENCH_WRK ?? 'wrk', args, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
  const requestsPerSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0);
  const latency = (percent: string) => {
    const match = new RegExp(`^\\s+${percent}%\\s+([\\d.]+)(us|ms|s|m)`, 'm').exec(output);
    return match ? Math.round(wrkMs(match[1], match[2]) * 100) / 100 : 0;
  };
  const total = /(\d+) requests in [\d.]+\w+, ([\d.]+)(B|KB|MB|GB) read/.exec(output);
  const requests = total ? Number(total[1]) : 0;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    name,
    requestsPerSecond: Math.round(requestsPerSecond),
    p50: latency('50'),
    p99: latency('99'),
    errors: socketErrors ? socketErrors.slice(1).reduce((sum, value) => sum + Number(value), 0) : 0,
    non2xx,
    bytesPerResponse: total ? Math.round(wrkBytes(total[2], total[3]) / Math.max(1, requests)) : 0,
    answered: requests - non2xx,
  };
}

/** The machine's load averages, printed next to every figure (the bench machine may be shared). */
export async function loadAverage(): Promise<string> {
  const { loadavg } = await import('node:os');
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
}

/**
 * A fresh database, named `prefix` and the process id, on the PostgreSQL server of `adminUrl`
 * (BENCH_POSTGRES_URL); `run` gets its URL, and it is dropped afterwards.
 */
export async function withPostgresDatabase(
  adminUrl: string,
  prefix: string,
  run: (databaseUrl: string) => Promise<void>,
): Promise<void> {
  const name = `${prefix}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    await run(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Tags `Topic 0` … of the project, with these ids: the benches that seed articles in bulk tag them. */
export async function insertTopics(
  db: Kysely<Database>,
  projectId: string,
  tagIds: string[],
  now: string,
): Promise<void> {
  await db
    .insertInto('tags')
    .values(
      tagIds.map((id, i) => ({
        id,
        project_id: projectId,
        name: `Topic ${i}`,
        name_key: `topic ${i}`,
        slug: `topic-${i}`,
        color: null,
        icon: null,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
}

/** A desktop browser's User-Agent (not a bot's: its views are stored). */
export const browserAgent =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** CPU seconds of a process so far, every thread included (user + system); 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    return statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return 0;
  }
}

/**
 * The p-th percentile of `values` by the nearest rank: the smallest value that at least p% of them
 * do not exceed (of 20 values, the 95th is the second largest; the 100th is the largest). NaN for none.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

/** User and system CPU seconds of a /proc stat line (a process's or a thread's). */
function statCpuSeconds(stat: string): number {
  // The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** The database's backends other than `admin`'s own, with their CPU seconds so far. */
export async function backendCpu(admin: pg.Client): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  );
  return new Map(rows.map(({ pid }) => [pid, cpuSeconds(pid)]));
}

/** CPU seconds the backends of `before` (and any begun since) spent since it was taken. */
export async function backendCpuSince(admin: pg.Client, before: Map<number, number>): Promise<number> {
  let spent = 0;
  for (const [pid, after] of await backendCpu(admin)) spent += after - (before.get(pid) ?? 0);
  return spent;
}

/** The resident memory of a process (VmRSS, MB) and the names of its threads (one line each). */
export function residentMemory(pid: number): { mb: number; threads: string[] } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
  const threads: string[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.push(readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim());
    } catch {
      // the thread ended meanwhile
    }
  }
  return { mb, threads };
}

export interface CliRun {
  seconds: number;
  peakRssMb: number;
  stdout: string;
}

const cli = new URL('../src/cli/main.ts', import.meta.url).pathname;

/** `folio ARGS` in its own process under /usr/bin/time, for its wall time and peak RSS. */
export function timedCli(databaseUrl: string, args: string[]): Promise<CliRun> {
  return timedNode([cli, ...args], { DATABASE_URL: databaseUrl });
}

/** `node ARGS` in its own process under /usr/bin/time, for its wall time and peak RSS. */
export async function timedNode(args: string[], env: Record<string, string>): Promise<CliRun> {
  const work = mkdtempSync(join(tmpdir(), 'folio-time-'));
  const timeFile = join(work, 'time');
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M', '-o', timeFile, process.execPath, ...args], {
    env: { ...process.env, ...env, NODE_TEST_CONTEXT: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}: ${stdout}`);
  const peakRssMb = Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop()) / 1024;
  rmSync(work, { recursive: true, force: true });
  return { seconds, peakRssMb, stdout };
}

/** CPU seconds so far of each kind of thread of a process, by the thread's name (/proc/PID/task). */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      byName.set(name, (byName.get(name) ?? 0) + statCpuSeconds(stat));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}
