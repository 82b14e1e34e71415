// Fault injection with real processes: a PostgreSQL and a Redis of the suite's own on spare ports
// (never the shared ones), the real server as a child process (`folio serve`), and the signals
// that freeze (SIGSTOP), resume (SIGCONT) or stop them. Locally a missing binary skips a suite
// with a message; in CI (CI=true) it fails it.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const inCi = process.env.CI === 'true' || process.env.CI === '1';
const root = resolve(import.meta.dirname, '../..');
const node = join(root, 'node_modules/.bin/node');

/** A reason to skip (locally) when `binary` is missing; throws in CI. */
export function missing(what: string, found: boolean): string | false {
  if (found) return false;
  const reason = `fault tests need ${what}, which is not installed`;
  if (inCi) throw new Error(`CI: ${reason}`);
  return reason;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

/** A process started by the suite, in a process group of its own so that signals reach all of it. */
export class Service {
  readonly child: ChildProcess;
  #output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    command: string,
    args: string[],
    options: { env?: NodeJS.ProcessEnv; uid?: number; gid?: number },
  ) {
    this.child = spawn(command, args, {
      env: options.env ?? process.env,
      uid: options.uid,
      gid: options.gid,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk) => (this.#output += chunk));
    this.child.stderr!.on('data', (chunk) => (this.#output += chunk));
    this.exited = new Promise((resolveExit) =>
      this.child.once('exit', (code, signal) => resolveExit({ code, signal })),
    );
  }

  get output(): string {
    return this.#output;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Sends `signal` to the process group and to every descendant: PostgreSQL's backends start
   * sessions of their own (setsid), out of the postmaster's group.
   */
  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    process.kill(-this.child.pid!, signal);
    for (const pid of descendants(this.child.pid!)) {
      try {
        process.kill(pid, signal);
      } catch {
        // it exited meanwhile
      }
    }
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Every live descendant of `pid`, from /proc (Linux). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // it exited meanwhile
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Resolves when a TCP connection to `port` is accepted (and answered, for `ready`). */
async function waitFor(ready: () => Promise<boolean>, service: Service, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (!service.running) throw new Error(`${what} exited: ${service.output}`);
    if (await ready().catch(() => false)) return;
    await sleep(50);
  }
  throw new Error(`${what} never became ready: ${service.output}`);
}

export function postgresBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(base, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return bin;
  }
  return null;
}

export function redisBin(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** PostgreSQL refuses to run as root: as root, run it as the `postgres` user. */
export function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (line === undefined) throw new Error('running as root and no postgres user to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export interface Postgres {
  url: string;
  port: number;
  service: Service;
  /** Stops the server (fast shutdown, as an operator's restart); the data stays. */
  stop(): Promise<void>;
  /**
   * `pg_ctl stop -m MODE`: `fast` ends every session and shuts down cleanly; `immediate` kills
   * every process at once, as a crash or a failover does (the next start recovers from the WAL).
   */
  stopWith(mode: 'fast' | 'immediate'): Promise<void>;
  /** Ends every client session but the caller's (pg_terminate_backend), from an admin connection. */
  terminateSessions(): Promise<number>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  stopForGood(): Promise<void>;
}

export async function startPostgres(bin: string): Promise<Postgres> {
  const user = postgresUser();
  const dir = mkdtempSync(join(tmpdir(), 'folio-faults-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  execFileSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], {
    uid: user?.uid,
    gid: user?.gid,
    stdio: 'pipe',
  });
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const start = async () => {
    const service = new Service(
      join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
      ],
      { uid: user?.uid, gid: user?.gid },
    );
    await waitFor(() => canQuery(url), service, 'PostgreSQL');
    return service;
  };
  const postgres: Postgres = {
    url,
    port,
    service: await start(),
    async stop() {
      postgres.service.signal('SIGCONT');
      postgres.service.signal('SIGINT');
      await postgres.service.exited;
    },
    async stopWith(mode) {
      await promisify(execFile)(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', mode, '-w', '-t', '30'], {
        uid: user?.uid,
        gid: user?.gid,
      });
      await postgres.service.exited;
    },
    async terminateSessions() {
      const pg = (await import('pg')).default;
      const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
      await admin.connect();
      try {
        const { rows } = await admin.query(
          `select count(pg_terminate_backend(pid))::int as ended from pg_stat_activity
           where backend_type = 'client backend' and pid <> pg_backend_pid()`,
        );
        return rows[0].ended as number;
      } finally {
        await admin.end();
      }
    },
    async start() {
      postgres.service = await start();
    },
    async stopForGood() {
      await postgres.service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return postgres;
}

async function canQuery(url: string): Promise<boolean> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } finally {
    await client.end().catch(() => {});
  }
}

export interface RedisProcess {
  url: string;
  service: Service;
}

export async function startRedis(bin: string): Promise<RedisProcess> {
  const port = await freePort();
  const service = new Service(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {},
  );
  await waitFor(() => ping(port), service, 'Redis');
  return { url: `redis://127.0.0.1:${port}`, service };
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolvePing) => {
    const socket: Socket = connect(port, '127.0.0.1');
    socket.once('error', () => resolvePing(false));
    socket.once('data', (data) => {
      socket.destroy();
      resolvePing(String(data).startsWith('+PONG'));
    });
    socket.write('PING\r\n');
  });
}

export interface Folio {
  base: string;
  service: Service;
}

/** `folio serve` as a child process with `env`; resolves once /health answers. */
export async function startFolio(env: Record<string, string>): Promise<Folio> {
  const port = await freePort();
  const service = new Service(node, [join(root, 'src/cli/main.ts'), 'serve', '--no-demo'], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), ...env },
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/health`)).status === 200, service, 'folio serve');
  return { base, service };
}

export interface Timed {
  status: number | string;
  ms: number;
  headers: Headers | null;
  body: string;
}

/** A request that never hangs the suite: after `abortMs` it gives up and reports 'hung'. */
export async function timedFetch(url: string, init: RequestInit = {}, abortMs = 10_000): Promise<Timed> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(abortMs) });
    const body = await response.text();
    return { status: response.status, ms: performance.now() - started, headers: response.headers, body };
  } catch (error) {
    const name = (error as Error).name;
    const status =
      name === 'TimeoutError'
        ? 'hung'
        : `error:${(error as { cause?: { code?: string } }).cause?.code ?? name}`;
    return { status, ms: performance.now() - started, headers: null, body: '' };
  }
}

/** Appends one line to a report of figures for the issue note (when FAULTS_REPORT names a file). */
export function report(line: string): void {
  if (process.env.FAULTS_REPORT) appendFileSync(process.env.FAULTS_REPORT, `${line}\n`);
}

/** Debian's PgBouncer, or null. */
export function pgbouncerBin(): string | null {
  return ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path)) ?? null;
}

export interface Pgbouncer {
  /** `url` with its host and port replaced by the pooler's. */
  through(url: string): string;
  service: Service;
}

/**
 * A PgBouncer of the suite's own on a spare port, in `mode`, in front of the PostgreSQL that `url`
 * names (every database on it). It refuses to run as root: as root, it runs as `postgres`.
 */
export async function startPgbouncer(
  bin: string,
  url: string,
  mode: 'session' | 'transaction',
  serverConnections = 4,
): Promise<Pgbouncer> {
  const user = postgresUser();
  const dir = mkdtempSync(join(tmpdir(), 'folio-faults-pgbouncer-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const target = new URL(url);
  const port = await freePort();
  const users = join(dir, 'users.txt');
  writeFileSync(users, `"${decodeURIComponent(target.username) || 'postgres'}" ""\n`);
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      `pool_mode = ${mode}`,
      'max_client_conn = 200',
      `default_pool_size = ${serverConnections}`,
      '',
    ].join('\n'),
  );
  if (user) for (const file of [users, config]) chownSync(file, user.uid, user.gid);
  const service = new Service(bin, [config], { uid: user?.uid, gid: user?.gid });
  const through = (databaseUrl: string) => {
    const pooled = new URL(databaseUrl);
    pooled.hostname = '127.0.0.1';
    pooled.port = String(port);
    return pooled.toString();
  };
  await waitFor(() => canQuery(through(url)), service, 'PgBouncer');
  return { through, service };
}
