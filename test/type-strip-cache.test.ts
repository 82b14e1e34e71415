// `folio` (src/cli/folio.js) runs src/ from the type-strip cache: neither its main thread nor the
// worker threads it starts load Node's type stripper (17 MB of RSS each).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('..', import.meta.url);
const stripperLoaded = "process.moduleLoadList.some((name) => name.includes('amaro'))";

test('folio runs its command line without loading the type stripper', async () => {
  const { stdout, stderr } = await run(process.execPath, [
    '--import',
    `data:text/javascript,process.on('exit', () => process.stderr.write('stripper ' + ${stripperLoaded}))`,
    new URL('src/cli/folio.js', root).pathname,
    '--help',
  ]);
  assert.match(stdout, /Usage: folio/);
  assert.equal(stderr, 'stripper false');
});

test('worker threads of a process running from the cache read it too, without the type stripper', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-strip-'));
  try {
    const script = `
      import { registerTypeStripCache } from ${JSON.stringify(new URL('src/type-strip-cache.js', root).href)};
      registerTypeStripCache();
      const { openDatabase } = await import(${JSON.stringify(new URL('src/db/database.ts', root).href)});
      const db = openDatabase(${JSON.stringify(join(dir, 'folio.db'))}, {});
      const task = new URL('test/db/fixtures/stripper-task.js', ${JSON.stringify(root.href)});
      const inTaskThread = await db.runTask(task, null);
      await db.close();
      console.log(JSON.stringify({ inMain: ${stripperLoaded}, inTaskThread }));
    `;
    writeFileSync(join(dir, 'check.mjs'), script);
    const { stdout } = await run(process.execPath, [join(dir, 'check.mjs')]);
    assert.deepEqual(JSON.parse(stdout), { inMain: false, inTaskThread: false });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
