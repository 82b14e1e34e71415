// The `folio` entry (src/cli/folio.js): on Linux a server runs with MALLOC_ARENA_MAX=2 unless its
// environment sets a value, in the same process (replaced in place, so its id is the one started).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const entry = new URL('../../src/cli/folio.js', import.meta.url).pathname;
const linux = process.platform === 'linux';

/** MALLOC_ARENA_MAX as the started server's process sees it. */
async function arenasOfServer(given: string | undefined): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'folio-entry-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: join(dir, 'folio.db'),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  };
  delete env.MALLOC_ARENA_MAX;
  if (given !== undefined) env.MALLOC_ARENA_MAX = given;
  const child = spawn(process.execPath, [entry, 'serve', '--no-demo'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${output}`)));
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Server listening')) resolve();
      });
    });
    const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0');
    return environ.find((entry) => entry.startsWith('MALLOC_ARENA_MAX='))?.slice('MALLOC_ARENA_MAX='.length);
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
    rmSync(dir, { recursive: true, force: true });
  }
}

test('folio serve on Linux: the server runs with two malloc arenas', { skip: !linux }, async () => {
  assert.equal(await arenasOfServer(undefined), '2');
});

test('folio serve on Linux: a MALLOC_ARENA_MAX of the environment is kept', { skip: !linux }, async () => {
  assert.equal(await arenasOfServer('4'), '4');
});
