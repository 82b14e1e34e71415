// Running the `folio` command as a user does, in a process of its own, on a database of the test's.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
// The command's own entry, as `npx folio` runs it: src/ served from the type-strip cache, so that
// each of the many short processes a test starts does not strip the whole of src/ again.
export const cli = join(root, 'src', 'cli', 'folio.js');

const tempDirs: string[] = [];
export const children = new Set<ChildProcess>();

after(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'folio-cli-'));
  tempDirs.push(dir);
  return dir;
}

/** A path for a new SQLite database that the CLI creates on first use. */
export function newDatabase(): string {
  return join(tempDir(), 'folio.db');
}

export function cliEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, ...extra };
  for (const name of [
    'REDIS_URL',
    'TRUST_PROXY',
    'PORT',
    'HOST',
    'LOG_LEVEL',
    'GEOIP_DATABASE',
    'ANALYTICS_RETENTION_DAYS',
    'NODE_TEST_CONTEXT',
  ]) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function startCli(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function runCli(databaseUrl: string, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = startCli(args, cliEnv(databaseUrl));
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`folio ${args.join(' ')} did not finish: ${stdout}${stderr}`));
    }, 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
