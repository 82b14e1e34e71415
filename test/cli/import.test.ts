// `folio import` as a user runs it: warnings and --strict, --dry-run lists, Ghost exports, bad
// input refused with file and line and nothing written, and the database found from any sub-folder.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { projectRoot, resolveDatabaseUrl } from '../../src/db/database-location.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'src', 'cli', 'main.ts');
const ghostExport = join(root, 'test', 'content', 'fixtures', 'ghost-export.json');
const tempDirs: string[] = [];

after(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'folio-cli-import-'));
  tempDirs.push(dir);
  return dir;
}

function writeFiles(dir: string, files: Record<string, string>): string {
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, ...name.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in `cwd`; without `databaseUrl`, DATABASE_URL is unset and the CLI finds its own. */
function folio(args: string[], options: { cwd?: string; databaseUrl?: string } = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'NODE_TEST_CONTEXT']) delete env[name];
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: options.cwd ?? root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function withProject(): Promise<{ databaseUrl: string; slug: string }> {
  const databaseUrl = join(tempDir(), 'folio.db');
  const slug = 'blog';
  const created = await folio(['projects', 'create', '--name', 'Blog', '--slug', slug, '--json'], {
    databaseUrl,
  });
  assert.equal(created.code, 0, created.stderr);
  return { databaseUrl, slug };
}

describe('folio import', { concurrency: 3 }, () => {
  test('warns about unknown fields with file:line and imports; --strict refuses them and writes nothing', async () => {
    const { databaseUrl, slug } = await withProject();
    const folder = writeFiles(tempDir(), {
      '_posts/2024-01-15-hello.md': '---\nlayout: post\ntitle: Hello\n---\nHi.\n',
    });
    const strict = await folio(['import', '--project', slug, folder, '--strict'], { databaseUrl });
    assert.notEqual(strict.code, 0);
    assert.match(strict.stderr, /^_posts\/2024-01-15-hello\.md:2: unknown field "layout"/m);
    assert.match(strict.stderr, /Import refused: 1 problem\(s\); nothing was written/);
    const lenient = await folio(['import', '--project', slug, folder], { databaseUrl });
    assert.equal(lenient.code, 0, lenient.stderr);
    assert.match(
      lenient.stderr,
      /^warning: _posts\/2024-01-15-hello\.md:2: unknown field "layout" .*: ignored$/m,
    );
    assert.match(lenient.stdout, /^1 created, .* 2 warning\(s\)\.$/m);
    // The file names no author either: counted apart, by kind.
    assert.match(lenient.stdout, /^warnings: default-author 1, other 1$/m);
    const json = await folio(['import', '--project', slug, folder, '--json'], { databaseUrl });
    const document = JSON.parse(json.stdout);
    assert.equal(document.unchanged, 1);
    assert.deepEqual(
      document.warnings.map((w: { file: string; line: number }) => `${w.file}:${w.line}`),
      // The unknown field, then the import's own: the file names no author.
      ['_posts/2024-01-15-hello.md:2', '_posts/2024-01-15-hello.md:1'],
    );
  });

  test('--dry-run prints the slugs it would add, change and remove', async () => {
    const { databaseUrl, slug } = await withProject();
    const folder = writeFiles(tempDir(), {
      'a.md': '---\ntitle: A\ntags: solo\n---\nA.\n',
      'b.md': '---\ntitle: B\n---\nB.\n',
    });
    assert.equal((await folio(['import', '--project', slug, folder], { databaseUrl })).code, 0);
    rmSync(join(folder, 'a.md'));
    writeFileSync(join(folder, 'b.md'), '---\ntitle: B\n---\nB, edited.\n');
    writeFileSync(join(folder, 'c.md'), '---\ntitle: C\n---\nC.\n');
    const dry = await folio(['import', '--project', slug, folder, '--prune', '--dry-run'], { databaseUrl });
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(dry.stdout.trimEnd().split('\n'), [
      'Dry run (nothing written): 1 created, 1 updated, 0 unchanged, 1 removed; 0 tags created, 0 updated, 1 removed; storage 18 B. 2 warning(s).',
      'warnings: default-author 2',
      '  would add: c',
      '  would change: b',
      '  would remove: a',
      '  would remove tags: solo',
    ]);
    const again = await folio(['import', '--project', slug, folder, '--prune', '--dry-run', '--json'], {
      databaseUrl,
    });
    assert.deepEqual(JSON.parse(again.stdout).changes, {
      created: ['c'],
      updated: ['b'],
      removed: ['a'],
      revised: ['b'],
      tagsRemoved: ['solo'],
    });
  });

  test('a Ghost export is detected and imported', async () => {
    const { databaseUrl, slug } = await withProject();
    const run = await folio(['import', '--project', slug, ghostExport, '--json'], { databaseUrl });
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.created, 4);
    assert.equal(summary.tagsCreated, 2);
    // The page is reported among the files, not warned about; what cannot be kept is, at its line.
    assert.deepEqual(
      summary.warnings.map((w: { file: string; line: number; kind: string }) => [w.file, w.line, w.kind]),
      [
        ['ghost-export.json', 42, 'unmapped-field'],
        ['ghost-export.json', 283, 'internal-tag'],
      ],
    );
  });

  test('bad input (malformed TOML, a bad date, an unknown Ghost shape) exits non-zero with file and line, writing nothing', async () => {
    const { databaseUrl, slug } = await withProject();
    const folder = writeFiles(tempDir(), {
      'good.md': '---\ntitle: Good\n---\nFine.\n',
      'hugo.md': "+++\ntitle = 'Hugo'\ntags = [oops]\n+++\nBody.\n",
      'astro.md': "---\ntitle: Astro\npubDate: 'Jul 38 2024'\n---\nBody.\n",
    });
    const run = await folio(['import', '--project', slug, folder], { databaseUrl });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /^astro\.md:3: pubDate must be a valid date .*"Jul 38 2024"$/m);
    assert.match(run.stderr, /^hugo\.md:3: invalid TOML: /m);
    const ghost = writeFiles(tempDir(), {
      'export.json': '{\n  "db": [\n    { "meta": {}, "data": { "posts": 7 } }\n  ]\n}\n',
    });
    const bad = await folio(['import', '--project', slug, join(ghost, 'export.json')], { databaseUrl });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /^export\.json:3: data\.posts must be a list of posts/m);
    const list = await folio(['import', '--project', slug, folder, '--dry-run', '--json'], { databaseUrl });
    assert.notEqual(list.code, 0);
    // Nothing was written: importing the good file alone creates it.
    rmSync(join(folder, 'hugo.md'));
    rmSync(join(folder, 'astro.md'));
    const good = await folio(['import', '--project', slug, folder, '--json'], { databaseUrl });
    assert.equal(JSON.parse(good.stdout).created, 1);
  });

  test('without DATABASE_URL the CLI uses data/folio.db of the project root, from any sub-folder', async () => {
    const project = writeFiles(tempDir(), {
      'package.json': '{ "name": "my-blog" }\n',
      'content/posts/a.md': '---\ntitle: A\n---\nA.\n',
    });
    const created = await folio(['projects', 'create', '--name', 'Blog', '--slug', 'blog'], { cwd: project });
    assert.equal(created.code, 0, created.stderr);
    assert.ok(existsSync(join(project, 'data', 'folio.db')));
    const deep = join(project, 'content', 'posts');
    const imported = await folio(['import', '--project', 'blog', '.', '--json'], { cwd: deep });
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(JSON.parse(imported.stdout).created, 1);
    assert.ok(!existsSync(join(deep, 'data')), 'no second database in the sub-folder');
    const listed = await folio(['projects', 'list', '--json'], { cwd: join(project, 'content') });
    assert.deepEqual(
      JSON.parse(listed.stdout).map((p: { slug: string }) => p.slug),
      ['blog'],
    );
  });
});

describe('database location', () => {
  test('relative paths resolve against the nearest folder with a package.json; others stay', () => {
    const project = writeFiles(tempDir(), { 'package.json': '{}', 'a/b/.keep': '' });
    const deep = join(project, 'a', 'b');
    assert.equal(projectRoot(deep), project);
    assert.equal(resolveDatabaseUrl('./data/folio.db', deep), join(project, 'data', 'folio.db'));
    assert.equal(resolveDatabaseUrl('db/x.db', deep), join(project, 'db', 'x.db'));
    assert.equal(resolveDatabaseUrl('/abs/x.db', deep), '/abs/x.db');
    assert.equal(resolveDatabaseUrl('postgres://u@h/db', deep), 'postgres://u@h/db');
    assert.equal(resolveDatabaseUrl(':memory:', deep), ':memory:');
  });
});
