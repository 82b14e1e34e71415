// Shared pieces of the benchmarks: servers in child processes (so that the load generator does
// not share their event loop), an autocannon run, and a plain report.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';

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
  options: { seconds?: number; connections?: number; method?: string; body?: string; paths?: string[] } = {},
): Promise<LoadResult> {
  let next = 0;
  const paths = options.paths;
  const result = await autocannon({
    url,
    connections: options.connections ?? 32,
    duration: options.seconds ?? Number(process.env.BENCH_SECONDS ?? 8),
    pipelining: 1,
    requests: [
      {
        method: (options.method ?? 'GET') as 'GET',
        headers,
        body: options.body,
        ...(paths ? { setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) } : {}),
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
}
