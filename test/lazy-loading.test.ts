// A server started on an up-to-date database loads neither the migrations' modules nor the
// Markdown and HTML libraries (markdown-it, sanitize-html): only what renders Markdown loads them.
// Nor Node's fetch (undici), which an ESM import of node:http loads.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('..', import.meta.url);
const source = (path: string) => JSON.stringify(new URL(path, root).href);

/** The start of a module that records every module loaded after it, and opens and migrates databases. */
const recordingLoads = `
  import { registerHooks } from 'node:module';
  const loaded = [];
  registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
  const { openDatabase } = await import(${source('src/db/database.ts')});
  const { migrateToLatest } = await import(${source('src/db/migrations/index.ts')});
`;

/** Runs the module `script(dir)` builds, in a new Node process and a new folder; its output's JSON. */
async function runInFolder(script: (dir: string) => string): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'folio-lazy-'));
  try {
    writeFileSync(join(dir, 'check.mjs'), script(dir));
    const { stdout } = await run(process.execPath, ['--no-warnings', join(dir, 'check.mjs')]);
    return JSON.parse(stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a started app loads no migration, markdown-it or sanitize-html until something renders Markdown', async () => {
  const output = await runInFolder((dir) => {
    const path = JSON.stringify(join(dir, 'folio.db'));
    return `
    import { registerHooks } from 'node:module';
    const { openDatabase } = await import(${source('src/db/database.ts')});
    const { migrateToLatest } = await import(${source('src/db/migrations/index.ts')});
    const migrating = openDatabase(${path}, {});
    await migrateToLatest(migrating);
    await migrating.close();
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    const lazy = /markdown-it|sanitize-html|\\/migrations\\/0/;
    const db = openDatabase(${path}, {});
    const applied = await migrateToLatest(db);
    const { buildApp } = await import(${source('src/app.ts')});
    const app = await buildApp({ db, logLevel: false, webhooks: { dispatch: false } });
    await app.ready();
    const atStart = loaded.filter((url) => lazy.test(url));
    const { sanitizedHtml } = await import(${source('src/content/html.ts')});
    const html = sanitizedHtml('*hi* <script>x</script>');
    const afterRendering = loaded.filter((url) => lazy.test(url)).length > 0;
    await app.close();
    await db.close();
    console.log(JSON.stringify({ applied, atStart, html, afterRendering }));
    `;
  });
  assert.deepEqual(output, {
    applied: [],
    atStart: [],
    html: '<p><em>hi</em> </p>\n',
    afterRendering: true,
  });
});

test("a started app, with its webhook sender loaded and a malformed request refused, has not loaded Node's fetch (undici)", async () => {
  const output = await runInFolder((dir) => {
    const path = JSON.stringify(join(dir, 'folio.db'));
    return `
    ${recordingLoads}
    const { createRequire } = await import('node:module');
    const db = openDatabase(${path}, {});
    await migrateToLatest(db);
    const { buildApp } = await import(${source('src/app.ts')});
    const app = await buildApp({ db, logLevel: false, webhooks: { dispatch: false } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address();
    const net = createRequire(import.meta.url)('node:net');
    const refused = await new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\\r\\nBad Header\\r\\n\\r\\n'));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      socket.on('end', () => resolve(answer.split('\\r\\n')[0]));
      socket.on('error', reject);
    });
    const { postEvent } = await import(${source('src/webhooks/sender.ts')});
    const undici = process.moduleLoadList.includes('NativeModule internal/deps/undici/undici');
    await app.close();
    await db.close();
    console.log(JSON.stringify({ refused, sender: typeof postEvent, undici }));
    `;
  });
  assert.deepEqual(output, { refused: 'HTTP/1.1 400 Bad Request', sender: 'function', undici: false });
});

test("the demo's import on a database file runs in a child process: the server's process never loads the import pipeline", async () => {
  const output = await runInFolder((dir) => {
    const file = JSON.stringify(join(dir, 'folio.db'));
    return `
    ${recordingLoads}
    const { createDemoProjectIfEmpty } = await import(${source('src/demo.ts')});
    const db = openDatabase(${file}, {});
    await migrateToLatest(db);
    const demo = await createDemoProjectIfEmpty(db, 'http://localhost:3000', { withKey: false, databaseUrl: ${file} });
    const { count } = await db.kysely.selectFrom('articles').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow();
    await db.close();
    const importModules = loaded.filter((url) => /\\/content\\/import|yaml/.test(url));
    console.log(JSON.stringify({ demo, articles: Number(count) > 0, importModules }));
    `;
  });
  assert.deepEqual(output, { demo: { key: null }, articles: true, importModules: [] });
});

test('migrating a new database loads no markdown-it: migration 0004 reads Markdown only where articles exist', async () => {
  const output = await runInFolder(
    (dir) => `
    ${recordingLoads}
    const db = openDatabase(${JSON.stringify(join(dir, 'folio.db'))}, {});
    const applied = await migrateToLatest(db);
    await db.close();
    console.log(JSON.stringify({
      searchText: applied.includes('0004-search-text'),
      markdownIt: loaded.filter((url) => /markdown-it/.test(url)),
    }));
    `,
  );
  assert.deepEqual(output, { searchText: true, markdownIt: [] });
});
