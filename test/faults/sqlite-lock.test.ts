// Another process holding SQLite's write lock (the CLI's import, a backup): writes wait for it at
// most busyWaitMs, counted from the first write that found it held, then answer 503 with
// Retry-After; content and statistics are read meanwhile; writes resume once it is released.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  assertReadsServed,
  assertRefused,
  rolledUpViews,
  seedBlog,
  serveBlog,
  trackHello,
} from './sqlite-support.ts';

const noAnswer = /did not answer in time/;

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

describe("another process's write lock", () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-lock-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;

  async function blogWithLock(busyWaitMs: number) {
    const path = join(dir, `folio-${files++}.db`);
    const blog = await serveBlog(path, await seedBlog(path), { busyWaitMs });
    const other = new DatabaseSync(path, { timeout: 0 });
    return {
      blog,
      lock: () => other.exec('begin immediate'),
      unlock: () => other.isTransaction && other.exec('commit'),
      close: async () => (other.close(), await blog.close()),
    };
  }

  test('writes answer 503 with Retry-After, reads and statistics 200, and writes resume once it is released', async (t) => {
    const { blog, lock, unlock, close } = await blogWithLock(200);
    t.after(close);
    assert.equal((await trackHello(blog)).statusCode, 201);
    assert.equal(await rolledUpViews(blog), 1);
    // Queued for the roll-up that statistics reads ask for, which waits for the lock too.
    assert.equal((await trackHello(blog, '203.0.113.8')).statusCode, 201);
    lock();
    try {
      const refused = await timed(trackHello(blog, '198.51.100.1'));
      assertRefused(refused.value, noAnswer);
      // It waited for the lock (the setting is honoured), rather than being refused at once.
      assert.ok(refused.ms >= 150, `refused after ${refused.ms} ms`);
      // The roll-up it asks for first (on the task thread) waits as long as writes do, not 5 s.
      const stats = await timed(
        blog.app.inject({ url: '/v1/analytics/stats?days=1', headers: blog.project.headers }),
      );
      assert.equal(stats.value.statusCode, 200, stats.value.body);
      assert.ok(stats.ms < 4000, `statistics answered after ${stats.ms} ms`);
      assert.ok((await assertReadsServed(blog)) >= 1);
    } finally {
      unlock();
    }
    assert.equal((await trackHello(blog, '192.0.2.1')).statusCode, 201);
    const { rows } = await sql<{ n: number }>`select count(*) as n from page_view_rows`.execute(
      blog.db.kysely,
    );
    assert.equal(rows[0].n, 3);
    assert.equal(await rolledUpViews(blog), 3);
  });

  test('a write queued behind a waiting one is refused when that one is, not busyWaitMs after it', async (t) => {
    const busyWaitMs = 2000;
    const { blog, lock, unlock, close } = await blogWithLock(busyWaitMs);
    t.after(close);
    assert.equal((await trackHello(blog)).statusCode, 201);
    lock();
    try {
      const first = timed(trackHello(blog, '198.51.100.1'));
      // The second arrives while the first waits, and is committed in the batch after it.
      await new Promise((resolve) => setTimeout(resolve, busyWaitMs / 2));
      const second = await timed(trackHello(blog, '198.51.100.2'));
      assertRefused((await first).value, noAnswer);
      assertRefused(second.value, noAnswer);
      assert.ok((await first).ms >= busyWaitMs - 50, `first refused after ${(await first).ms} ms`);
      // It used to wait for the first's refusal and then busyWaitMs of its own (1.5 × busyWaitMs).
      assert.ok(second.ms < busyWaitMs, `second refused after ${second.ms} ms`);
    } finally {
      unlock();
    }
    // Writes resume: the roll-up that waited for the lock commits first, and on a loaded machine may
    // keep the writer longer than this test's short wait, so the write is tried until it is taken.
    const deadline = Date.now() + 15_000;
    let status = (await trackHello(blog, '192.0.2.1')).statusCode;
    while (status !== 201 && Date.now() < deadline) {
      assert.equal(status, 503);
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await trackHello(blog, '192.0.2.1')).statusCode;
    }
    assert.equal(status, 201);
  });
});
