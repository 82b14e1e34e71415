import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';
import {
  recordedRetention,
  recordRetentionDays,
} from '../../src/analytics/rollups/queries/retention-setting.ts';
import { openDatabase } from '../../src/db/database.ts';
import { factoryRow } from '../analytics/support.ts';
import { createTestDatabase, postgresUrl } from '../helpers.ts';
import {
  children,
  cli,
  cliEnv,
  type CliResult,
  newDatabase,
  root,
  runCli,
  startCli,
  tempDir,
} from './support.ts';
const keyPattern = /^folio_sk_[0-9A-Za-z]{32,}$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Runs a command that must succeed and print one JSON document; returns that document. */
async function cliJson(databaseUrl: string, ...args: string[]): Promise<any> {
  const result = await runCli(databaseUrl, ...args, '--json');
  assert.equal(result.code, 0, `folio ${args.join(' ')}: ${result.stderr}${result.stdout}`);
  return parseOneDocument(result.stdout);
}

/** JSON.parse of the whole output: it fails unless stdout is exactly one JSON document. */
function parseOneDocument(stdout: string): any {
  assert.ok(stdout.endsWith('\n'), `output does not end with a newline: ${JSON.stringify(stdout)}`);
  try {
    return JSON.parse(stdout);
  } catch (error) {
    assert.fail(`stdout is not exactly one JSON document (${(error as Error).message}): ${stdout}`);
  }
}

let slugCounter = 0;
async function createProjectWithCli(databaseUrl: string): Promise<string> {
  const slug = `cli-${process.pid}-${++slugCounter}`;
  await cliJson(databaseUrl, 'projects', 'create', '--name', `Project ${slug}`, '--slug', slug);
  return slug;
}

function writeFiles(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, ...name.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return dir;
}

async function countArticles(databaseUrl: string): Promise<number> {
  const db = openDatabase(databaseUrl);
  try {
    const row = await db.kysely
      .selectFrom('articles')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  } finally {
    await db.close();
  }
}

const goodFolder = {
  'tags.yaml': '- name: Guides\n  color: "#112233"\n  icon: book\n',
  'hello.md': '---\ntitle: Hello\ntags: [Guides, News]\npublishedAt: 2026-01-01T00:00:00Z\n---\nHello world.',
  'nested/second.md': '---\ntitle: Second\nslug: the-second\n---\nSecond post.',
};

// Every test has a database of its own, so they can run side by side (each spawns processes).
describe('folio CLI', { concurrency: 4 }, () => {
  test('migrate applies the migrations once and is idempotent', async () => {
    const database = newDatabase();
    const first = await cliJson(database, 'migrate');
    assert.deepEqual(Object.keys(first), ['applied']);
    assert.ok(Array.isArray(first.applied) && first.applied.length > 0, JSON.stringify(first));
    for (const name of first.applied) assert.equal(typeof name, 'string');
    assert.deepEqual(await cliJson(database, 'migrate'), { applied: [] });
    const text = await runCli(database, 'migrate');
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, 'The database is up to date.\n');
  });

  test('projects create --json prints exactly one JSON document describing the project', async () => {
    const database = newDatabase();
    const project = await cliJson(
      database,
      'projects',
      'create',
      '--name',
      'My Blog',
      '--slug',
      'my-blog',
      '--description',
      'About things',
      '--site-url',
      'https://blog.example.com',
    );
    assert.deepEqual(Object.keys(project).sort(), [
      'createdAt',
      'defaultAuthor',
      'description',
      'id',
      'logoUrl',
      'name',
      'siteUrl',
      'slug',
      'timeZone',
      'updatedAt',
      'urlPattern',
    ]);
    assert.match(project.id, uuid);
    assert.equal(project.name, 'My Blog');
    assert.equal(project.slug, 'my-blog');
    assert.equal(project.description, 'About things');
    assert.equal(project.siteUrl, 'https://blog.example.com');
    assert.equal(project.logoUrl, null);
    assert.match(project.createdAt, isoMillis);
    const list = await cliJson(database, 'projects', 'list');
    assert.deepEqual(list, [project]);
  });

  test('keys create --json prints { id, key, … } and keys list --json lists the keys without the secret', async () => {
    const database = newDatabase();
    const slug = await createProjectWithCli(database);
    const secret = await cliJson(database, 'keys', 'create', '--project', slug, '--name', 'server');
    assert.deepEqual(Object.keys(secret).sort(), [
      'createdAt',
      'id',
      'key',
      'kind',
      'lastUsedAt',
      'name',
      'origins',
      'prefix',
      'rateLimit',
      'revokedAt',
      'scopes',
      'test',
    ]);
    assert.match(secret.key, keyPattern);
    assert.equal(typeof secret.id, 'string');
    assert.equal(secret.kind, 'secret');
    assert.equal(secret.name, 'server');
    assert.equal(secret.prefix, secret.key.slice(0, 'folio_sk_'.length + 4));
    assert.equal(secret.rateLimit, null);
    assert.deepEqual(secret.origins, []);
    assert.equal(secret.revokedAt, null);

    const publicKey = await cliJson(
      database,
      'keys',
      'create',
      '--project',
      slug,
      '--kind',
      'public',
      '--rate-limit',
      '30',
      '--origin',
      'https://blog.example.com',
    );
    assert.match(publicKey.key, /^folio_pk_[0-9A-Za-z]{32,}$/);
    assert.equal(publicKey.kind, 'public');
    assert.equal(publicKey.rateLimit, 30);
    assert.deepEqual(publicKey.origins, ['https://blog.example.com']);

    const list = await cliJson(database, 'keys', 'list', '--project', slug);
    assert.equal(list.length, 2);
    const { key: _secretKey, ...secretView } = secret;
    const { key: _publicKey, ...publicView } = publicKey;
    assert.deepEqual(
      list.sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)),
      [secretView, publicView].sort((a, b) => a.id.localeCompare(b.id)),
    );
    const text = await runCli(database, 'keys', 'list', '--project', slug);
    assert.equal(text.code, 0);
    assert.ok(!text.stdout.includes(secret.key), 'keys list shows a whole key');

    const revoked = await cliJson(database, 'keys', 'revoke', secret.id);
    assert.equal(revoked.id, secret.id);
    assert.match(revoked.revokedAt, isoMillis);
    const after = await cliJson(database, 'keys', 'list', '--project', slug);
    assert.match(after.find((key: { id: string }) => key.id === secret.id).revokedAt, isoMillis);
    assert.equal(after.find((key: { id: string }) => key.id === publicKey.id).revokedAt, null);
  });

  test('import --json of a content folder prints the summary, and a re-import changes nothing', async () => {
    const database = newDatabase();
    const slug = await createProjectWithCli(database);
    const folder = writeFiles(goodFolder);
    // title + slug + content bytes of each article: 5 + 5 + 12 and 6 + 10 + 12.
    const first = await cliJson(database, 'import', '--project', slug, folder);
    assert.deepEqual(first, {
      created: 2,
      updated: 0,
      unchanged: 0,
      removed: 0,
      tagsCreated: 2,
      tagsUpdated: 0,
      tagsRemoved: 0,
      storageUsed: '50 B',
      dryRun: false,
      changes: { created: first.changes.created, updated: [], removed: [], revised: [], tagsRemoved: [] },
      warnings: first.warnings,
      warningsByKind: { 'default-author': 2 },
      settingsApplied: [],
      files: first.files,
    });
    // The files name no author: each gets the project's name, and the report says so.
    assert.deepEqual(
      first.warnings.map((warning: { file: string; kind: string }) => [warning.file, warning.kind]).sort(),
      [
        ['hello.md', 'default-author'],
        ['nested/second.md', 'default-author'],
      ],
    );
    assert.equal(first.changes.created.length, 2);
    assert.deepEqual(await cliJson(database, 'import', '--project', slug, folder), {
      created: 0,
      updated: 0,
      unchanged: 2,
      removed: 0,
      tagsCreated: 0,
      tagsUpdated: 0,
      tagsRemoved: 0,
      storageUsed: '50 B',
      dryRun: false,
      changes: { created: [], updated: [], removed: [], revised: [], tagsRemoved: [] },
      warnings: first.warnings,
      warningsByKind: { 'default-author': 2 },
      settingsApplied: [],
      files: first.files,
    });
    assert.equal(await countArticles(database), 2);
  });

  test('an import with two bad files exits non-zero, names each file with its line, and writes nothing', async () => {
    const database = newDatabase();
    const slug = await createProjectWithCli(database);
    const folder = writeFiles({
      ...goodFolder,
      'bad-status.md': '---\ntitle: Bad status\nstatus: nope\n---\nBody.',
      'nested/bad-slug.md': '---\ntitle: Bad slug\nslug: Not A Slug\n---\nBody.',
    });
    const text = await runCli(database, 'import', '--project', slug, folder);
    assert.notEqual(text.code, 0);
    assert.equal(text.stdout, '');
    const lines = text.stderr.trimEnd().split('\n');
    assert.deepEqual(
      lines
        .filter((line) => !line.startsWith('folio: '))
        .map((line) => line.replace(/^([^:]+:\d+): .*$/, '$1'))
        .sort(),
      ['bad-status.md:3', 'nested/bad-slug.md:3'],
    );
    assert.ok(
      lines.some((line) => /^bad-status\.md:3: .*status/.test(line)),
      text.stderr,
    );
    assert.ok(
      lines.some((line) => /^nested\/bad-slug\.md:3: .*slug/.test(line)),
      text.stderr,
    );
    assert.match(lines.at(-1)!, /^folio: Import refused: 2 problem\(s\); nothing was written$/);
    assert.equal(await countArticles(database), 0);

    const json = await runCli(database, 'import', '--project', slug, folder, '--json');
    assert.notEqual(json.code, 0);
    const document = parseOneDocument(json.stdout);
    assert.equal(typeof document.error, 'string');
    assert.deepEqual(
      document.problems
        .map((problem: { file: string; line: number }) => `${problem.file}:${problem.line}`)
        .sort(),
      ['bad-status.md:3', 'nested/bad-slug.md:3'],
    );
    for (const problem of document.problems) assert.equal(typeof problem.message, 'string');
    assert.equal(await countArticles(database), 0);
  });

  test('analytics rebuild restores damaged rollups from the raw page views of the retained days', async () => {
    const database = newDatabase();
    const slug = await createProjectWithCli(database);
    await cliJson(database, 'import', '--project', slug, writeFiles(goodFolder));
    const db = openDatabase(database);
    const rollups = () =>
      db.kysely
        .selectFrom('analytics_series')
        .select(['article_id', 'granularity', 'bucket', 'views', 'visitors'])
        .orderBy('article_id')
        .orderBy('granularity')
        .orderBy('bucket')
        .execute();
    try {
      const project = await db.kysely
        .selectFrom('projects')
        .selectAll()
        .where('slug', '=', slug)
        .executeTakeFirstOrThrow();
      const writer = new PageViewWriter(db);
      for (const [index, at] of [new Date(), new Date(Date.now() - 3 * 86_400_000)].entries()) {
        await writer.write({
          kind: 'create',
          row: factoryRow(project, { slug: 'hello', at }, index),
          slug: 'hello',
        });
      }
      await writer.idle();
      const good = await rollups();
      // Two views on two days, each in the project's day and hour (an article's are in its daily row).
      assert.equal(good.length, 4);
      await db.kysely.updateTable('analytics_series').set({ views: 99 }).execute();
      // No server has recorded its retention: the command's own default is not trusted.
      const unknown = await runCli(database, 'analytics', 'rebuild', '--project', slug);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /^folio: No server has recorded its ANALYTICS_RETENTION_DAYS/);
      assert.ok((await rollups()).every((row) => Number(row.views) === 99));

      // A server running with 2 days recorded them: only today and yesterday are rebuilt, whatever
      // the command's own setting.
      await recordRetentionDays(db.kysely, 2, new Date());
      const rebuild = (env: Record<string, string>) =>
        new Promise<CliResult>((resolve, reject) => {
          const child = startCli(['analytics', 'rebuild', '--json'], cliEnv(database, env));
          let stdout = '';
          child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
          child.on('error', reject);
          child.on('close', (code) => resolve({ code, stdout, stderr: '' }));
        });
      const followed = await rebuild({ ANALYTICS_RETENTION_DAYS: '400' });
      assert.equal(followed.code, 0);
      const document = parseOneDocument(followed.stdout);
      assert.deepEqual(document.projects, [slug]);
      assert.equal(document.retentionDays, 2);
      assert.equal(typeof document.retentionRecordedAt, 'string');
      assert.equal(document.fromDay, new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
      const after = await rollups();
      assert.deepEqual(
        after.filter((row) => row.bucket >= document.fromDay),
        good.filter((row) => row.bucket >= document.fromDay),
      );
      assert.ok(
        after.some((row) => Number(row.views) === 99),
        'days past the retention keep their rollups',
      );
      const text = await runCli(database, 'analytics', 'rebuild', '--project', slug);
      assert.equal(text.code, 0, text.stderr);
      assert.match(
        text.stdout,
        /^Rebuilt the rollups of 1 project from \d{4}-\d{2}-\d{2} on \(retention 2 days, recorded by the server at .+\)\.\n$/,
      );
      const missing = await runCli(database, 'analytics', 'rebuild', '--project', 'nope');
      assert.notEqual(missing.code, 0);
      assert.equal(missing.stderr, "folio: Project 'nope' not found\n");
    } finally {
      await db.close();
    }
  });

  test('an unknown project is a non-zero exit with a one-line reason', async () => {
    const database = newDatabase();
    const folder = writeFiles(goodFolder);
    for (const args of [
      ['keys', 'create', '--project', 'nope'],
      ['keys', 'list', '--project', 'nope'],
      ['import', '--project', 'nope', folder],
    ]) {
      const result = await runCli(database, ...args);
      assert.notEqual(result.code, 0, args.join(' '));
      assert.equal(result.stdout, '');
      assert.equal(result.stderr, "folio: Project 'nope' not found\n", args.join(' '));
    }
  });

  test('with --json every failure prints exactly one JSON document with the reason', async () => {
    const database = newDatabase();
    const slug = await createProjectWithCli(database);
    const cases: Array<[string[], RegExp]> = [
      [['keys', 'create', '--project', 'nope'], /"Project 'nope' not found"/],
      [['keys', 'revoke', 'key_doesnotexist'], /key_doesnotexist/],
      [['keys', 'create'], /--project/],
      [['keys', 'create', '--project', slug, '--kind', 'admin'], /admin/],
      [['keys', 'create', '--project', slug, '--rate-limit', 'lots'], /lots/],
      [['keys', 'create', '--project', slug, '--rate-limit', '0'], /rateLimit/],
      [['projects', 'create', '--name', 'Dup', '--slug', slug], /already exists/],
      [['projects', 'create', '--name', 'Bad', '--slug', 'Bad Slug'], /slug/],
      [['import', '--project', slug, join(tempDir(), 'missing-folder')], /missing-folder/],
    ];
    for (const [args, reason] of cases) {
      const result = await runCli(database, ...args, '--json');
      assert.notEqual(result.code, 0, args.join(' '));
      const document = parseOneDocument(result.stdout);
      assert.equal(typeof document.error, 'string', args.join(' '));
      // The reason is in `error`, or for an import in the problems it lists.
      assert.match(JSON.stringify(document), reason, args.join(' '));
      assert.ok(!document.error.includes('\n'), document.error);
    }
  });

  test('the server sees keys created and revoked with the CLI on the very next request', async () => {
    const database = newDatabase();
    const slug = await createProjectWithCli(database);
    const db = openDatabase(database);
    const app = await buildApp({ db });
    try {
      const created = await cliJson(database, 'keys', 'create', '--project', slug);
      const headers = { 'x-api-key': created.key };
      const ok = await app.inject({ method: 'GET', url: '/v1/project', headers });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().data.project.slug, slug);

      const folder = writeFiles(goodFolder);
      await cliJson(database, 'import', '--project', slug, folder);
      const articles = await app.inject({ method: 'GET', url: '/v1/articles', headers });
      assert.equal(articles.json().meta.total, 2);

      await cliJson(database, 'keys', 'revoke', created.id);
      const refused = await app.inject({ method: 'GET', url: '/v1/project', headers });
      assert.equal(refused.statusCode, 401);
      assert.deepEqual(refused.json(), {
        error: 'Unauthorized',
        message: 'Invalid API key',
        statusCode: 401,
      });
    } finally {
      await app.close();
      await db.close();
    }
  });
});

/**
 * Starts two instances at once on the default database of `cwd`, each on a terminal: exactly one
 * creates the demo project and shows its key.
 */
async function assertOneDemoProject(cwd: string): Promise<void> {
  const ports = [await freePort(), await freePort()];
  const instances = ports.map((port) => serve(null, port, [], { cwd, terminal: true }));
  try {
    await Promise.all(instances.map((instance, index) => waitForHealth(instance, ports[index])));
    // The instance that creates the project prints the key once its import is done.
    await Promise.race(instances.map((instance) => instance.waitFor(/Secret API key[^:]*: folio_sk_/)));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const printed = instances.filter((instance) => /folio_sk_/.test(instance.output()));
    assert.equal(printed.length, 1, instances.map((instance) => instance.output()).join('\n---\n'));
    for (const instance of instances) assert.equal(instance.child.exitCode, null, instance.output());
  } finally {
    for (const instance of instances) await instance.stop();
  }
  const database = join(cwd, 'data', 'folio.db');
  const projects = await cliJson(database, 'projects', 'list');
  assert.deepEqual(
    projects.map((project: { slug: string }) => project.slug),
    ['demo'],
  );
  assert.equal((await cliJson(database, 'keys', 'list', '--project', 'demo')).length, 1);
}

/**
 * Starts `folio serve` on a port that is taken: it must fail with a one-line reason and exit at
 * once, not linger with an open database pool or Redis connection.
 */
async function assertFailedStartExits(databaseUrl: string): Promise<void> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const served = serve(databaseUrl, port, ['--no-demo']);
    const [reason] = await served.waitFor(/folio: .*\n/);
    assert.match(reason, /^folio: .*EADDRINUSE.*\n$/);
    const lingering = new Promise<'still running'>((resolve) =>
      setTimeout(() => resolve('still running'), 5000),
    );
    const code = await Promise.race([served.exited(), lingering]);
    await served.stop();
    assert.equal(code, 1, 'the process did not exit within 5 s of reporting its failure');
  } finally {
    blocker.close();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

interface Served {
  child: ChildProcess;
  /** Everything written, log and terminal alike. */
  output: () => string;
  /** File descriptor 1 only: the JSON log. */
  log: () => string;
  /** File descriptor 2 only (a pseudo-terminal with `terminal: true`). */
  terminal: () => string;
  /** Resolves when the output matches, rejects on timeout or exit. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
  /** Resolves with the exit code when the process ends by itself. */
  exited: () => Promise<number | null>;
  stop: () => Promise<number | null>;
}

const hasScript = spawnSync('script', ['--version']).status === 0;
const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * `folio serve` on `databaseUrl` (null: DATABASE_URL unset, so the default ./data/folio.db of
 * `cwd`). With `terminal`, its stderr is a pseudo-terminal (util-linux `script`, which forwards
 * signals) while its stdout stays a pipe, as when a person starts it and its log is collected.
 */
function serve(
  databaseUrl: string | null,
  port: number,
  args: string[] = [],
  options: { cwd?: string; terminal?: boolean } = {},
): Served {
  const env = cliEnv(databaseUrl ?? '', { PORT: String(port), HOST: '127.0.0.1' });
  if (databaseUrl === null) delete env.DATABASE_URL;
  let child: ChildProcess;
  let logStream: NodeJS.ReadableStream;
  let terminalStream: NodeJS.ReadableStream;
  if (options.terminal) {
    const command = [process.execPath, cli, 'serve', ...args].map(quote).join(' ');
    child = spawn('script', ['-qfec', `exec ${command} 1>&3`, '/dev/null'], {
      cwd: options.cwd ?? root,
      env,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    logStream = child.stdio[3] as NodeJS.ReadableStream;
    terminalStream = child.stdout!;
  } else {
    child = spawn(process.execPath, [cli, 'serve', ...args], {
      cwd: options.cwd ?? root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    logStream = child.stdout!;
    terminalStream = child.stderr!;
  }
  let output = '';
  let log = '';
  let terminal = '';
  logStream.on('data', (chunk: Buffer) => {
    log += chunk.toString('utf8');
    output += chunk.toString('utf8');
  });
  terminalStream.on('data', (chunk: Buffer) => {
    terminal += chunk.toString('utf8');
    output += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    log: () => log,
    terminal: () => terminal,
    async waitFor(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = output.match(pattern);
        if (match) return match;
        if (child.exitCode !== null) throw new Error(`folio serve exited (${child.exitCode}): ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`timed out waiting for ${pattern}: ${output}`);
    },
    exited: () => exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Every line of the log is one JSON document, and none holds a key. */
function assertJsonLogWithoutKeys(log: string): Array<Record<string, unknown>> {
  const lines = log.split('\n').filter((line) => line !== '');
  assert.ok(lines.length > 0, 'no log at all');
  return lines.map((line) => {
    assert.doesNotMatch(line, /folio_(sk|pk)_[0-9A-Za-z]{8}/, 'a key in the log');
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return assert.fail(`a log line that is not JSON: ${line}`);
    }
  });
}

/** Resolves once the instance answers /health; fails at once, with its output, if it exits. */
async function waitForHealth(served: Served, port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (served.child.exitCode !== null) {
      throw new Error(`folio serve exited (${served.child.exitCode}): ${served.output()}`);
    }
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`port ${port} never became healthy: ${served.output()}`);
}

// Each test has its own folder or database and port: two run side by side (each starts a server
// that imports the demo blog; three at once, on a loaded machine, outlasted the 30 s waits).
describe('folio serve', { concurrency: 2 }, () => {
  test(
    'on the default database, on a terminal: the demo key is shown on stderr only, never in the JSON log; a second start adds nothing',
    { skip: hasScript ? false : 'util-linux script is not installed' },
    async () => {
      const cwd = tempDir();
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;

      const first = serve(null, port, [], { cwd, terminal: true });
      try {
        const [, key] = await first.waitFor(/Secret API key[^:]*: (folio_sk_[0-9A-Za-z]+)/);
        assert.match(key, keyPattern);
        assert.ok(first.terminal().includes(key));
        assertJsonLogWithoutKeys(first.log());
        const response = await fetch(`${base}/v1/articles`, { headers: { 'x-api-key': key } });
        assert.equal(response.status, 200);
        const body = (await response.json()) as { data: unknown[]; meta: { total: number } };
        assert.ok(body.data.length > 0, 'the demo project has no articles');
        assert.ok(body.meta.total >= body.data.length);
        const project = (await (
          await fetch(`${base}/v1/project`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as { data: { project: { slug: string } } };
        assert.equal(project.data.project.slug, 'demo');
        assert.equal(await first.stop(), 0);
        assertJsonLogWithoutKeys(first.log());

        const second = serve(null, port, [], { cwd, terminal: true });
        try {
          await waitForHealth(second, port);
          // Give the start-up a moment to finish whatever it does after listening.
          await new Promise((resolve) => setTimeout(resolve, 1000));
          assert.doesNotMatch(second.output(), /folio_sk_/);
          const again = await fetch(`${base}/v1/articles`, { headers: { 'x-api-key': key } });
          assert.equal(again.status, 200);
          assert.equal(await second.stop(), 0);
        } finally {
          await second.stop();
        }
      } finally {
        await first.stop();
      }
      const database = join(cwd, 'data', 'folio.db');
      const projects = await cliJson(database, 'projects', 'list');
      assert.deepEqual(
        projects.map((project: { slug: string }) => project.slug),
        ['demo'],
      );
      const keys = await cliJson(database, 'keys', 'list', '--project', 'demo');
      assert.equal(keys.length, 1);
    },
  );

  test('on the default database without a terminal: the demo project gets no key, and the log says how to make one', async () => {
    const cwd = tempDir();
    const port = await freePort();
    const served = serve(null, port, [], { cwd });
    try {
      await served.waitFor(/created the demo project/);
      assert.equal(served.terminal(), '');
      const entries = assertJsonLogWithoutKeys(served.log());
      assert.ok(entries.some((entry) => /folio keys create --project demo/.test(String(entry.msg))));
      const database = join(cwd, 'data', 'folio.db');
      assert.deepEqual(await cliJson(database, 'keys', 'list', '--project', 'demo'), []);
      const { key } = await cliJson(database, 'keys', 'create', '--project', 'demo');
      const response = await fetch(`http://127.0.0.1:${port}/v1/articles`, { headers: { 'x-api-key': key } });
      assert.equal(response.status, 200);
      assert.ok(((await response.json()) as { data: unknown[] }).data.length > 0);
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });

  test('an explicit DATABASE_URL that does not exist: an empty, migrated database, no demo, a warning in the log', async () => {
    const database = newDatabase();
    const port = await freePort();
    const served = serve(database, port, [], { terminal: hasScript });
    try {
      await waitForHealth(served, port);
      await served.waitFor(/did not exist/);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.doesNotMatch(served.output(), /folio_sk_/);
      const warning = assertJsonLogWithoutKeys(served.log()).find((entry) =>
        /did not exist/.test(String(entry.msg)),
      );
      assert.equal(warning?.level, 40);
      assert.equal(warning?.database, database);
    } finally {
      assert.equal(await served.stop(), 0);
    }
    assert.deepEqual(await cliJson(database, 'projects', 'list'), []);
    assert.deepEqual(await cliJson(database, 'migrate'), { applied: [] });
  });

  test(
    'two instances starting at once on an empty default database create one demo project and one key',
    { skip: hasScript ? false : 'util-linux script is not installed' },
    async () => {
      const cwd = tempDir();
      // Migrated first: two processes migrating one new SQLite file at once is a known, separate race.
      await cliJson(join(cwd, 'data', 'folio.db'), 'migrate');
      await assertOneDemoProject(cwd);
    },
  );

  test('a start that fails (port in use) exits at once with a one-line reason', async () => {
    await assertFailedStartExits(newDatabase());
  });

  test('serve reads GEOIP_DATABASE: a file that cannot be read fails the start, naming it', async () => {
    const missingFile = join(tempDir(), 'no-such-country.mmdb');
    const port = await freePort();
    const child = startCli(
      ['serve', '--no-demo'],
      cliEnv(newDatabase(), { GEOIP_DATABASE: missingFile, PORT: String(port), HOST: '127.0.0.1' }),
    );
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    // Without the setting the server starts on the bundled database and never exits by itself.
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(killer);
    assert.notEqual(code, 0, output);
    assert.match(output, /no-such-country\.mmdb/);
  });

  test('serve records the retention it runs with, which analytics rebuild then follows', async () => {
    const database = newDatabase();
    const port = await freePort();
    const served = serve(database, port, ['--no-demo']);
    try {
      await waitForHealth(served, port);
    } finally {
      assert.equal(await served.stop(), 0);
    }
    const db = openDatabase(database);
    try {
      const recorded = await recordedRetention(db.kysely);
      // serve runs without ANALYTICS_RETENTION_DAYS here: its default, 400 days.
      assert.equal(recorded?.days, 400);
    } finally {
      await db.close();
    }
    const rebuilt = await cliJson(database, 'analytics', 'rebuild');
    assert.equal(rebuilt.retentionDays, 400);
  });

  test('serve --no-demo on an empty default database creates no project', async () => {
    const cwd = tempDir();
    const port = await freePort();
    const served = serve(null, port, ['--no-demo'], { cwd, terminal: hasScript });
    try {
      await waitForHealth(served, port);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.doesNotMatch(served.output(), /folio_sk_/);
    } finally {
      assert.equal(await served.stop(), 0);
    }
    assert.deepEqual(await cliJson(join(cwd, 'data', 'folio.db'), 'projects', 'list'), []);
  });
});

describe(
  'folio CLI on PostgreSQL',
  {
    skip: postgresUrl === null ? 'TEST_POSTGRES_URL is not set' : false,
  },
  () => {
    test('a start that fails (port in use) exits at once, without waiting for the pool', async () => {
      const database = await createTestDatabase('postgres');
      try {
        await assertFailedStartExits(database.url);
      } finally {
        await database.drop();
      }
    });

    test('an empty PostgreSQL database (never the default one) gets no demo project', async () => {
      const database = await createTestDatabase('postgres');
      const port = await freePort();
      const served = serve(database.url, port, [], { terminal: hasScript });
      try {
        await waitForHealth(served, port);
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.doesNotMatch(served.output(), /folio_sk_/);
        assert.equal(await served.stop(), 0);
        assert.deepEqual(await cliJson(database.url, 'projects', 'list'), []);
      } finally {
        await served.stop();
        await database.drop();
      }
    });

    test('creates a project and keys, imports, and the server sees revocation at once', async () => {
      const database = await createTestDatabase('postgres');
      const app = await buildApp({ db: database.db });
      try {
        const slug = await createProjectWithCli(database.url);
        const created = await cliJson(database.url, 'keys', 'create', '--project', slug);
        const headers = { 'x-api-key': created.key };
        assert.equal((await app.inject({ method: 'GET', url: '/v1/project', headers })).statusCode, 200);
        const summary = await cliJson(database.url, 'import', '--project', slug, writeFiles(goodFolder));
        assert.equal(summary.created, 2);
        assert.equal(summary.storageUsed, '50 B');
        const articles = await app.inject({ method: 'GET', url: '/v1/articles', headers });
        assert.equal(articles.json().meta.total, 2);
        assert.deepEqual(await cliJson(database.url, 'migrate'), { applied: [] });
        await cliJson(database.url, 'keys', 'revoke', created.id);
        assert.equal((await app.inject({ method: 'GET', url: '/v1/project', headers })).statusCode, 401);
      } finally {
        await app.close();
        await database.drop();
      }
    });
  },
);
