// A full disk under a running SQLite server: writes answer 503 with Retry-After (never 500), content
// and statistics are still read (the roll-up that cannot be written is skipped), and writes resume
// once space is freed, without a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  assertReadsServed,
  assertRefused,
  mountSmallDisk,
  rolledUpViews,
  seedBlog,
  serveBlog,
  trackHello,
} from './sqlite-support.ts';
import { track } from '../analytics/support.ts';

const full = /out of disk space/;

const disk = mountSmallDisk(16 * 1024 * 1024);

describe('a full disk', { skip: typeof disk === 'string' ? disk : false }, () => {
  if (typeof disk === 'string') return;
  after(() => disk.remove());

  test('writes answer 503, reads and statistics 200, and writes resume once space is freed', async (t) => {
    const path = join(disk.dir, 'folio.db');
    const blog = await serveBlog(path, await seedBlog(path));
    t.after(() => blog.close());
    assert.equal((await trackHello(blog)).statusCode, 201);
    assert.equal(await rolledUpViews(blog), 1);
    // Queued for the roll-up that statistics reads ask for, which cannot be written either.
    assert.equal((await trackHello(blog, '203.0.113.8')).statusCode, 201);
    disk.fill();
    let refused = false;
    try {
      for (let i = 0; i < 200 && !refused; i++) {
        const response = await trackHello(blog, `198.51.100.${i}`);
        if (response.statusCode !== 201) {
          assertRefused(response, full);
          refused = true;
        }
      }
      assert.ok(refused, 'a write was refused once the disk was full');
      assert.ok((await assertReadsServed(blog)) >= 1);
    } finally {
      disk.free();
    }
    assert.equal((await trackHello(blog, '192.0.2.1')).statusCode, 201);
    const { rows } = await sql<{ n: number }>`select count(*) as n from page_view_rows`.execute(
      blog.db.kysely,
    );
    assert.equal(await rolledUpViews(blog), rows[0].n);
  });
});

describe('a database that may not grow (max_page_count)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-full-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('writes answer 503, reads and statistics 200, and writes resume once it may grow', async (t) => {
    const path = join(dir, 'folio.db');
    // The roll-up on the main connection, the one capped below (the task thread has its own).
    const blog = await serveBlog(path, await seedBlog(path), { tasks: false });
    t.after(() => blog.close());
    assert.equal((await trackHello(blog)).statusCode, 201);
    assert.equal(await rolledUpViews(blog), 1);
    assert.equal((await trackHello(blog, '203.0.113.8')).statusCode, 201);
    const { rows } = await sql<{ page_count: number }>`PRAGMA page_count`.execute(blog.db.kysely);
    await sql.raw(`PRAGMA max_page_count = ${rows[0].page_count}`).execute(blog.db.kysely);
    let refused = false;
    try {
      for (let i = 0; i < 200 && !refused; i++) {
        const response = await track(
          blog.app,
          { slug: 'hello', pageTitle: 'x'.repeat(500) },
          { headers: blog.project.headers, ip: `198.51.100.${i}` },
        );
        if (response.statusCode !== 201) {
          assertRefused(response, full);
          refused = true;
        }
      }
      assert.ok(refused, 'a write was refused once the database was full');
      assert.ok((await assertReadsServed(blog)) >= 1);
    } finally {
      await sql.raw('PRAGMA max_page_count = 4294967294').execute(blog.db.kysely);
    }
    assert.equal((await trackHello(blog, '192.0.2.1')).statusCode, 201);
    const counted = await sql<{ n: number }>`select count(*) as n from page_view_rows`.execute(
      blog.db.kysely,
    );
    assert.equal(await rolledUpViews(blog), counted.rows[0].n);
  });
});
