// SQLite faults for the tests of test/faults/sqlite-*.test.ts: a blog on a database file of its
// own served by the app, the requests that must go on during a fault, a small tmpfs that can be
// filled (a real full disk, never the machine's own), and files made read-only. Mounting and
// immutable files need root: without it, the tests that need them are skipped with a message.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { type Db, type OpenOptions, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { track } from '../analytics/support.ts';
import { articleInput, createTestProject, importArticles, type TestProject } from '../helpers.ts';

export interface Blog {
  path: string;
  db: Db;
  app: FastifyInstance;
  project: TestProject;
  close(): Promise<void>;
}

/** Migrates the file at `path` and stores a project with the article `hello`, on a handle closed after. */
export async function seedBlog(path: string): Promise<TestProject> {
  const db = openDatabase(path);
  try {
    await migrateToLatest(db);
    const project = await createTestProject(db);
    await importArticles(db, project.project, [articleInput({ slug: 'hello' })]);
    return project;
  } finally {
    await db.close();
  }
}

/** The app on the file at `path` (already seeded), as the server builds it. */
export async function serveBlog(
  path: string,
  project: TestProject,
  options: OpenOptions = {},
): Promise<Blog> {
  const db = openDatabase(path, options);
  const app = await buildApp({ db });
  return { path, db, app, project, close: async () => (await app.close(), await db.close()) };
}

/** A tracked page view of `hello`; `ip` makes it another visitor's. */
export function trackHello(blog: Blog, ip = '203.0.113.7'): Promise<LightMyRequestResponse> {
  return track(blog.app, { slug: 'hello' }, { headers: blog.project.headers, ip });
}

/** Reads of content and of statistics (rolled up), which a database refusing writes still answers. */
export const readUrls = [
  '/v1/articles',
  '/v1/articles/hello',
  '/v1/tags',
  '/v1/analytics/stats?days=1',
  '/v1/analytics/funnel?days=1',
  '/v1/analytics/timeseries?days=1',
  '/v1/analytics/breakdown/country?days=1',
  '/v1/analytics/articles/hello/reading?days=1',
];

/** Every read of `readUrls` answers 200; returns the statistics' total views. */
export async function assertReadsServed(blog: Blog): Promise<number> {
  let totalViews = -1;
  for (const url of readUrls) {
    const response = await blog.app.inject({ url, headers: blog.project.headers });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    if (url.startsWith('/v1/analytics/stats')) totalViews = response.json().data.summary.totalViews;
  }
  return totalViews;
}

/** A write refused for now: 503 in the error shape, with Retry-After. */
export function assertRefused(response: LightMyRequestResponse, message: RegExp): void {
  assert.equal(response.statusCode, 503, response.body);
  assert.equal(response.headers['retry-after'], '5');
  assert.equal(response.json().error, 'Service Unavailable');
  assert.match(response.json().message, message);
}

/** The views the statistics count once everything queued is rolled up. */
export async function rolledUpViews(blog: Blog): Promise<number> {
  await rollUpQueued(blog.db);
  const response = await blog.app.inject({
    url: '/v1/analytics/stats?days=1',
    headers: blog.project.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data.summary.totalViews;
}

function succeeds(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface SmallDisk {
  dir: string;
  /** Takes every free byte (ENOSPC from now on for anything that grows). */
  fill(): void;
  /** Frees what fill() took. */
  free(): void;
  remove(): void;
}

/**
 * A tmpfs of `sizeBytes` mounted on a new folder, or the reason it cannot be (not root, no tmpfs).
 */
export function mountSmallDisk(sizeBytes: number): SmallDisk | string {
  const dir = mkdtempSync(join(tmpdir(), 'folio-disk-'));
  if (!succeeds('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir])) {
    rmSync(dir, { recursive: true, force: true });
    // A privilege rather than a missing tool: skipped in CI too, where the max_page_count test runs.
    return 'a real full disk needs a tmpfs this process may mount (root)';
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    remove() {
      // Lazily: a connection the test failed to close must not leave the mount behind.
      execFileSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ReadOnlyFiles {
  dir: string;
  /** The database file and its WAL refuse writes, even root's. */
  protect(path: string): void;
  release(): void;
  remove(): void;
}

/**
 * A folder whose database files can be made read-only: immutable for root (whom permissions do
 * not stop), without write permission for anyone else.
 */
export function readOnlyFolder(): ReadOnlyFiles {
  const dir = mkdtempSync(join(tmpdir(), 'folio-ro-'));
  mkdirSync(dir, { recursive: true });
  const root = process.getuid?.() === 0;
  let protectedFiles: string[] = [];
  const set = (on: boolean) => {
    for (const file of protectedFiles) {
      if (root) execFileSync('chattr', [on ? '+i' : '-i', file]);
      else execFileSync('chmod', [on ? 'a-w' : 'u+w', file]);
    }
  };
  return {
    dir,
    protect(path) {
      // Not the -shm file: SQLite maps it, and a mapped file made immutable kills the process
      // (SIGBUS) at its next write, which no file made read-only by its permissions does.
      protectedFiles = [path, `${path}-wal`].filter((file) => existsSync(file));
      set(true);
    },
    release() {
      set(false);
      protectedFiles = [];
    },
    remove() {
      set(false);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this machine can make a file immutable (root, and a file system that has the flag). */
export function canMakeImmutable(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), 'folio-chattr-'));
  const file = join(dir, 'probe');
  closeSync(openSync(file, 'w'));
  const able = succeeds('chattr', ['+i', file]);
  if (able) succeeds('chattr', ['-i', file]);
  rmSync(dir, { recursive: true, force: true });
  return able;
}
