// An answered POST or PUT survives a crash of the process (an answer means committed): a child process serving
// tracking requests is killed with SIGKILL while clients send them; after a restart every answered
// page view is there with at least the answered measures, and the rollups still match the raw rows.
import assert from 'node:assert/strict';
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import {
  articleInput,
  createTestProject,
  describeEachDialect,
  importArticles,
  viewCountOf,
} from '../helpers.ts';
import { browser, rawPageViews, referenceRollups, storedRollups } from './support.ts';

const serverScript = new URL('./crash-server.ts', import.meta.url).pathname;

async function startServer(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(serverScript, [], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return { child, url: `http://127.0.0.1:${message.port}` };
}

describeEachDialect('durability', (ctx) => {
  test('every page view and update answered before a SIGKILL is there after a restart', async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [
      articleInput({ slug: 'hello' }),
      articleInput({ slug: 'world' }),
    ]);
    const server = await startServer(ctx.url);
    const headers = { ...owner.headers, 'content-type': 'application/json', 'user-agent': browser };

    const created: string[] = [];
    const answeredTime = new Map<string, number>();
    let crashed = false;
    let tick = 0;
    const client = async () => {
      while (!crashed) {
        try {
          if (created.length < 5 || tick++ % 3 !== 0) {
            const response = await fetch(`${server.url}/v1/analytics/track`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ slug: tick % 2 === 0 ? 'hello' : 'world', timeOnPage: 1 }),
            });
            if (response.status === 201) {
              const { id } = (await response.json()) as { id: string };
              created.push(id);
              answeredTime.set(id, 1000);
            }
          } else {
            const id = created[tick % created.length];
            const seconds = 2 + (tick % 500);
            const response = await fetch(`${server.url}/v1/analytics/track/${id}`, {
              method: 'PUT',
              headers,
              body: JSON.stringify({ timeOnPage: seconds, scrollDepth: tick % 101 }),
            });
            if (response.status === 200)
              answeredTime.set(id, Math.max(answeredTime.get(id) ?? 0, seconds * 1000));
          }
        } catch {
          // The server is gone: what was answered before counts.
        }
      }
    };
    const clients = Array.from({ length: 16 }, client);
    while (created.length < 150) await new Promise((resolve) => setTimeout(resolve, 5));
    server.child.kill('SIGKILL');
    crashed = true;
    await once(server.child, 'exit');
    await Promise.all(clients);

    // A restart: a new connection opens the database as the server would.
    const db = openDatabase(ctx.url);
    try {
      await migrateToLatest(db);
      const rows = await rawPageViews(db, owner.project.id);
      const stored = new Map(rows.map((row) => [row.id, Number(row.time_on_page_ms)]));
      const lost = created.filter((id) => !stored.has(id));
      assert.deepEqual(lost, [], 'answered page views missing after the crash');
      for (const [id, time] of answeredTime) {
        assert.ok(stored.get(id)! >= time, `page view ${id}: answered ${time} ms, stored ${stored.get(id)}`);
      }
      assert.equal(
        (await viewCountOf(db, owner.project.id, 'hello')) +
          (await viewCountOf(db, owner.project.id, 'world')),
        rows.length,
        'view counts match the page views',
      );
      assert.deepEqual(
        await storedRollups(db, owner.project.id),
        await referenceRollups(db, owner.project.id),
      );
    } finally {
      await db.close();
    }

    const restarted = await startServer(ctx.url);
    try {
      const response = await fetch(`${restarted.url}/v1/analytics/track`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ slug: 'hello' }),
      });
      assert.equal(response.status, 201);
    } finally {
      restarted.child.kill('SIGKILL');
      await once(restarted.child, 'exit');
    }
  });
});
