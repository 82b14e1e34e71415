// PostgreSQL's view notifications (migration 0011): a roll-up adding views to many articles'
// counts in one statement notifies each article's slug once, in as many notifications per project as its slugs
// need to stay under PostgreSQL's 8,000-byte payload, and the listener hands each slug on, with its
// new count (migration 0030).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import {
  type NotifiedViewCount,
  PostgresChangeListener,
  viewedArticles,
} from '../../src/db/change-listener.ts';
import { factoryRow } from '../analytics/support.ts';
import {
  articleInput,
  createTestDatabase,
  createTestProject,
  importArticles,
  postgresUrl,
} from '../helpers.ts';

test(
  'a roll-up of page views of 61 articles notifies every slug once, in payloads under 8,000 bytes',
  { skip: postgresUrl === null },
  async () => {
    const database = await createTestDatabase('postgres');
    const listener = new PostgresChangeListener(database.url);
    const raw = new pg.Client({ connectionString: database.url });
    try {
      const { project } = await createTestProject(database.db);
      const other = await createTestProject(database.db);
      // 60 slugs of 190 characters: 11,460 bytes, more than one payload holds.
      const slugs = Array.from({ length: 60 }, (_, i) => `${String(i).padStart(2, '0')}-${'a'.repeat(187)}`);
      await importArticles(
        database.db,
        project,
        slugs.map((slug) => articleInput({ slug })),
      );
      await importArticles(database.db, other.project, [articleInput({ slug: 'elsewhere' })]);

      const handed: string[] = [];
      const counts = new Map<string, NotifiedViewCount | undefined>();
      listener.onViews((projectId, slug, notified) => {
        if (projectId === null) return;
        handed.push(`${projectId} ${slug}`);
        counts.set(`${projectId} ${slug}`, notified);
      });
      const payloads: string[] = [];
      await raw.connect();
      raw.on('notification', (message) => {
        if (message.channel === 'folio_views') payloads.push(message.payload ?? '');
      });
      await raw.query('listen folio_views');
      while (listener.stamp() === null) await sleep(5);

      // Two page views of each article, rolled up in one batch: one upsert of the view counts.
      const writer = new PageViewWriter(database.db, { rollupDelayMs: 3_600_000 });
      const articles = [
        ...slugs.map((slug) => ({ owner: project, slug })),
        { owner: other.project, slug: 'elsewhere' },
      ];
      await Promise.all(
        articles.flatMap(({ owner, slug }, index) =>
          [0, 1].map((copy) =>
            writer.write({ kind: 'create', row: factoryRow(owner, { slug }, index * 2 + copy), slug }),
          ),
        ),
      );
      assert.equal(await rollUpQueued(database.db), articles.length * 2);
      await listener.seen();
      for (let wait = 0; payloads.length < 3 && wait < 200; wait++) await sleep(5);

      const expected = [
        ...slugs.map((slug) => `${project.id} ${slug}`),
        `${other.project.id} elsewhere`,
      ].sort();
      assert.equal(payloads.length, 3, 'two notifications for the 60 slugs, one for the other project');
      assert.equal(handed.length, expected.length);
      assert.ok([...handed].sort().every((entry, index) => entry === expected[index]));
      for (const payload of payloads) assert.ok(Buffer.byteLength(payload) < 8000, `${payload.length} bytes`);
      // Each with its new count, and the content version of its project when it was counted.
      const versions = new Map(
        (await database.db.kysely.selectFrom('projects').select(['id', 'content_version']).execute()).map(
          (row) => [row.id, String(row.content_version)],
        ),
      );
      for (const entry of expected) {
        assert.deepEqual(counts.get(entry), { count: 2, contentVersion: versions.get(entry.split(' ')[0]) });
      }
    } finally {
      await raw.end().catch(() => {});
      await listener.close();
      await database.drop();
    }
  },
);

test('a payload is read as slugs with their counts, or as slugs alone in the formats before counts', () => {
  assert.deepEqual(viewedArticles(['one', 'two', '@7', '=3', '=12']), [
    ['one', { count: 3, contentVersion: '7' }],
    ['two', { count: 12, contentVersion: '7' }],
  ]);
  // Before migration 0030 (slugs alone), and 0011 (one slug).
  assert.deepEqual(viewedArticles(['one', 'two']), [
    ['one', undefined],
    ['two', undefined],
  ]);
  assert.deepEqual(viewedArticles(['one']), [['one', undefined]]);
  // Counts that do not pair with the slugs, or no version: no count is trusted.
  assert.deepEqual(viewedArticles(['one', 'two', '@7', '=3']), [
    ['one', undefined],
    ['two', undefined],
  ]);
  assert.deepEqual(viewedArticles(['one', '=3']), [['one', undefined]]);
});

test(
  'a probe sent slowly by a busy pool is no deaf connection: nothing is left to reject unheard, and the listener starts',
  { skip: postgresUrl === null },
  async () => {
    const database = await createTestDatabase('postgres');
    // The pool's only connection is taken: the probe's notification waits for it past the timeout.
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const taken = await pool.connect();
    const listener = new PostgresChangeListener(database.url, { probeTimeoutMs: 100 });
    listener.watchLocalWrites(pool);
    const unhandled: unknown[] = [];
    const warnings: string[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    const onWarning = (warning: Error & { code?: string }) => warnings.push(warning.code ?? warning.message);
    process.on('unhandledRejection', onUnhandled);
    process.on('warning', onWarning);
    try {
      assert.equal(listener.stamp(), null);
      await sleep(600);
      taken.release();
      for (let wait = 0; !listener.listening && wait < 400; wait++) await sleep(5);
      assert.equal(listener.listening, true, 'listening once the pool sent the probe');
      assert.deepEqual(unhandled, []);
      assert.ok(!warnings.includes('FOLIO_LISTEN_DEAF'), warnings.join(', '));
    } finally {
      process.off('unhandledRejection', onUnhandled);
      process.off('warning', onWarning);
      await listener.close();
      await pool.end();
      await database.drop();
    }
  },
);

test(
  'a listener closed while its probe waits to be heard lets the process end at once, not after the probe timeout',
  { skip: postgresUrl === null },
  async () => {
    // The pool writes to another database: its probe is never heard, as behind a deaf pooler.
    const listened = await createTestDatabase('postgres');
    const other = await createTestDatabase('postgres');
    const module = JSON.stringify(new URL('../../src/db/change-listener.ts', import.meta.url).href);
    const script = `
      import pg from 'pg';
      const { PostgresChangeListener } = await import(${module});
      const pool = new pg.Pool({ connectionString: ${JSON.stringify(other.url)}, max: 1 });
      const listener = new PostgresChangeListener(${JSON.stringify(listened.url)}, { probeTimeoutMs: 60000 });
      listener.watchLocalWrites(pool);
      listener.stamp();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const listening = listener.listening;
      await listener.close();
      await pool.end();
      console.log(JSON.stringify({ listening, closedAt: Date.now() }));
    `;
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--no-warnings', '--input-type=module', '-e', script],
        { cwd: new URL('../..', import.meta.url), timeout: 30_000 },
      );
      const { listening, closedAt } = JSON.parse(stdout) as { listening: boolean; closedAt: number };
      assert.equal(listening, false, 'the probe was still waiting when the listener closed');
      // Far below the probe's 60 s: the process ended once the listener and the pool were closed.
      assert.ok(Date.now() - closedAt < 10_000, `ended ${Date.now() - closedAt} ms after closing`);
    } finally {
      await listened.drop();
      await other.drop();
    }
  },
);
