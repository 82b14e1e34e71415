// A read-only SQLite file: writes answer 503 with Retry-After (never 500), content and statistics
// are read meanwhile, and writes resume once the file is writable again, without a restart, whether
// the server's connections were opened before the file became read-only or while it was.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  assertReadsServed,
  assertRefused,
  type Blog,
  canMakeImmutable,
  readOnlyFolder,
  rolledUpViews,
  seedBlog,
  serveBlog,
  trackHello,
} from './sqlite-support.ts';

const readOnly = /read-only/;

async function pageViews(blog: Blog): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from page_view_rows`.execute(blog.db.kysely);
  return rows[0].n;
}

describe('a read-only database file', () => {
  const folder = readOnlyFolder();
  after(() => folder.remove());
  let files = 0;

  test('a server started on it answers reads, refuses writes, and writes once it is writable', async (t) => {
    const path = join(folder.dir, `folio-${files++}.db`);
    const project = await seedBlog(path);
    const before = await serveBlog(path, project);
    assert.equal((await trackHello(before)).statusCode, 201);
    assert.equal(await rolledUpViews(before), 1);
    await before.close();
    folder.protect(path);
    // Every connection (the writer, the task thread's, the checkpointer's) opens read-only.
    const blog = await serveBlog(path, project);
    t.after(() => blog.close());
    try {
      assertRefused(await trackHello(blog, '198.51.100.1'), readOnly);
      assert.equal(await assertReadsServed(blog), 1);
      const ready = await blog.app.inject({ url: '/ready' });
      assert.equal(ready.statusCode, 503);
      assert.match(ready.json().checks.database, readOnly);
    } finally {
      folder.release();
    }
    const unchanged = statSync(path).mtimeMs;
    assert.equal((await trackHello(blog, '192.0.2.1')).statusCode, 201);
    assert.equal(await pageViews(blog), 2);
    assert.equal(await rolledUpViews(blog), 2);
    // The checkpointer copies the WAL into the file again (its connection was opened read-only too).
    for (let i = 0; i < 100 && statSync(path).mtimeMs === unchanged; i++) await sleep(50);
    assert.notEqual(statSync(path).mtimeMs, unchanged, 'the database file was checkpointed');
  });

  const immutable = canMakeImmutable() ? false : 'an open file is made read-only only by root (chattr +i)';
  test('a file made read-only under a running server', { skip: immutable }, async (t) => {
    const path = join(folder.dir, `folio-${files++}.db`);
    const blog = await serveBlog(path, await seedBlog(path));
    t.after(() => blog.close());
    assert.equal((await trackHello(blog)).statusCode, 201);
    assert.equal(await rolledUpViews(blog), 1);
    assert.equal((await trackHello(blog, '203.0.113.8')).statusCode, 201);
    folder.protect(path);
    try {
      assertRefused(await trackHello(blog, '198.51.100.1'), readOnly);
      assert.ok((await assertReadsServed(blog)) >= 1);
    } finally {
      folder.release();
    }
    assert.equal((await trackHello(blog, '192.0.2.1')).statusCode, 201);
    assert.equal(await pageViews(blog), 3);
    assert.equal(await rolledUpViews(blog), 3);
  });
});
