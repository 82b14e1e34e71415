// The compact layout of page views (migration 0031; PostgreSQL: typed days and times): every value
// the API accepts reads back as sent, on a new database and on one converted online by
// `folio db convert-page-views`, and the reports answer the same before and after the conversion.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { utcDay } from '../../src/analytics/days.ts';
import type { Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { hasCompactLayout } from '../../src/db/migrations/frozen/0031-compact-page-views.ts';
import {
  compactPageViews,
  convertPageViews,
  UnconvertibleValueError,
} from '../../src/db/page-view-conversion.ts';
import { rebuildRollups } from '../../src/analytics/rollups/queries/rebuild-rollups.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  getJson,
  importArticles,
  migrateBefore,
  type TestDatabase,
} from '../helpers.ts';
import {
  awayFromMidnight,
  daysAgo,
  factoryRow,
  insertRawPageViews,
  rawPageViews,
  referenceRollups,
  storedRollups,
  track,
  update,
  writeLegacyPageViews,
  writePageViews,
} from './support.ts';

const slugs = ['alpha', 'beta', 'gamma'];

/** Bodies with the odd values the API accepts: any session id of 1 to 128 characters, nulls, maxima. */
const oddBodies = [
  { slug: 'alpha' },
  { slug: 'alpha', sessionId: 's' },
  { slug: 'beta', sessionId: 'Ünïcødé 会话 🚀'.repeat(8).slice(0, 128) },
  { slug: 'beta', sessionId: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE' },
  {
    slug: 'gamma',
    sessionId: 'x'.repeat(128),
    pageUrl: `https://blog.example.com/${'é'.repeat(2000)}`.slice(0, 2048),
    pageTitle: 'Τίτλος 标题 '.repeat(60).slice(0, 512),
    referrer: 'https://news.ycombinator.com/item?id=1',
    utmSource: 'u'.repeat(256),
    utmMedium: 'email',
    utmCampaign: 'spring 🌸',
    utmTerm: 'term',
    utmContent: 'content',
    screenWidth: 100000,
    screenHeight: 0,
    timeOnPage: 123.456,
    scrollDepth: 99.99,
    exitPosition: 12.34,
    bounced: false,
    events: [{ type: 'click', element: 'a.cta', timeOffset: 1500 }],
  },
];

/** The page views of a project, by id, as the code reads them. */
async function viewsById(db: Db, projectId: string) {
  return new Map((await rawPageViews(db, projectId)).map((row) => [row.id, row]));
}

for (const dialect of configuredDialects()) {
  describe(`compact page views [${dialect}]`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(dialect);
    });
    after(() => database?.drop());

    test('a new database has the layout; every value tracked reads back as sent', async () => {
      await awayFromMidnight();
      const { db } = database;
      assert.equal(await hasCompactLayout(db.kysely as Kysely<any>, dialect), true);
      if (dialect === 'postgres') {
        const { rows } = await sql<{ name: string; type: string }>`select attname as name,
          format_type(atttypid, atttypmod) as type from pg_attribute
          where attrelid = 'page_views'::regclass and attname in ('day', 'created_at', 'updated_at')
          order by attname`.execute(db.kysely);
        assert.deepEqual(rows, [
          { name: 'created_at', type: 'timestamp with time zone' },
          { name: 'day', type: 'date' },
          { name: 'updated_at', type: 'timestamp with time zone' },
        ]);
      }
      const owner = await createTestProject(db);
      await importArticles(
        db,
        owner.project,
        slugs.map((slug) => articleInput({ slug })),
      );
      const app = await buildApp({ db, rollupDelayMs: 5 });
      try {
        const answers: Array<{ id: string; sessionId: string; visitorId: string }> = [];
        for (const body of oddBodies) {
          const response = await track(app, body, { headers: owner.headers });
          assert.equal(response.statusCode, 201, response.body);
          answers.push(response.json());
        }
        const updated = await update(
          app,
          answers[0].id,
          { timeOnPage: 9.5, scrollDepth: 50, events: [{ type: 'copy', timeOffset: 10 }] },
          { headers: owner.headers },
        );
        assert.equal(updated.statusCode, 200, updated.body);
        const views = await viewsById(db, owner.project.id);
        assert.equal(views.size, oddBodies.length);
        for (const [index, body] of oddBodies.entries()) {
          const row = views.get(answers[index].id)!;
          assert.equal(row.session_id, answers[index].sessionId);
          if ('sessionId' in body) assert.equal(row.session_id, body.sessionId);
          assert.equal(row.visitor_id, answers[index].visitorId);
          assert.match(row.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          assert.equal(row.day, row.created_at.slice(0, 10));
          assert.ok(row.updated_at >= row.created_at);
          assert.equal(row.page_url, 'pageUrl' in body ? body.pageUrl : null);
          assert.equal(row.page_title, 'pageTitle' in body ? body.pageTitle : null);
          assert.equal(row.utm_source, 'utmSource' in body ? body.utmSource : null);
          assert.equal(row.screen_width, 'screenWidth' in body ? body.screenWidth : null);
          assert.equal(row.screen_height, 'screenHeight' in body ? body.screenHeight : null);
          assert.equal(row.exit_position, 'exitPosition' in body ? body.exitPosition : null);
          assert.equal(row.bounced, 'bounced' in body ? 0 : null);
          assert.equal(row.test, 0);
        }
        const full = views.get(answers[4].id)!;
        assert.equal(full.time_on_page_ms, 123_456);
        assert.equal(full.scroll_depth_centi, 9999);
        assert.deepEqual(JSON.parse(full.events), [{ type: 'click', element: 'a.cta', timeOffset: 1500 }]);
        const first = views.get(answers[0].id)!;
        assert.equal(first.time_on_page_ms, 9500);
        assert.equal(first.scroll_depth_centi, 5000);
        assert.equal(first.event_count, 1);
        assert.ok(first.updated_at >= first.created_at);
        // The rebuild from the raw rows, in SQL, sums what the writes summed.
        await getJson(app, '/v1/analytics/stats?days=1', owner.headers);
        const written = await storedRollups(db, owner.project.id);
        assert.deepEqual(written, await referenceRollups(db, owner.project.id));
        await rebuildRollups(db.kysely, owner.project.id, utcDay(Date.now()));
        assert.deepEqual(await storedRollups(db, owner.project.id), written);
      } finally {
        await app.close();
      }
    });
  });

  describe(`compact page views: online conversion [${dialect}]`, () => {
    let database: TestDatabase;
    let app: FastifyInstance;
    let owner: Awaited<ReturnType<typeof createTestProject>>;
    // Over the days before today: the views tracked during the test land today.
    const period = () => `from=${utcDay(daysAgo(60))}&to=${utcDay(daysAgo(1))}`;
    const paths = () => [
      `/v1/analytics/timeseries?${period()}&interval=day`,
      `/v1/analytics/breakdown/country?${period()}`,
      `/v1/analytics/breakdown/source?${period()}`,
      `/v1/analytics/articles/alpha/reading?${period()}`,
      `/v1/analytics/articles/gamma/reading?${period()}`,
    ];
    before(async () => {
      database = await createTestDatabase(dialect, { migrate: false });
      await migrateBefore(database.db, '0031');
      const { db } = database;
      owner = await createTestProject(db);
      await importArticles(
        db,
        owner.project,
        slugs.map((slug) => articleInput({ slug })),
      );
      await writePageViews(
        db,
        owner.project,
        Array.from({ length: 50 }, (_, i) => ({
          slug: slugs[i % 3],
          at: daysAgo(1 + (i % 40), `1${i % 10}:0${i % 6}:00.${String(i).padStart(3, '0')}`),
          visitor: `v${i % 7}`,
          scrollDepth: (i * 13) % 100,
          country: i % 4 === 0 ? 'DE' : null,
        })),
      );
      // A database with page views keeps its table through the migration.
      await migrateToLatest(db);
      app = await buildApp({ db, rollupDelayMs: 5 });
    });
    after(async () => {
      await app?.close();
      await database?.drop();
    });

    test('converts online, restarted after a stop: every view there once, values and answers unchanged', async () => {
      await awayFromMidnight();
      const { db } = database;
      const compactBefore = await hasCompactLayout(db.kysely as Kysely<any>, dialect);
      assert.equal(compactBefore, dialect === 'sqlite');
      // The older layout still takes tracking and updates.
      const early = await track(
        app,
        { slug: 'beta', sessionId: 'early session' },
        { headers: owner.headers },
      );
      assert.equal(early.statusCode, 201, early.body);
      assert.equal(
        (await update(app, early.json().id, { scrollDepth: 40 }, { headers: owner.headers })).statusCode,
        200,
      );
      const answersBefore = await Promise.all(paths().map((path) => getJson(app, path, owner.headers)));
      for (const answer of answersBefore) assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const viewsBefore = await viewsById(db, owner.project.id);

      const tracked: string[] = [];
      const trackAndUpdate = async (copied: number) => {
        const response = await track(app, { slug: slugs[copied % 3] }, { headers: owner.headers });
        assert.equal(response.statusCode, 201, response.body);
        tracked.push(response.json().id);
        const updated = await update(
          app,
          early.json().id,
          { scrollDepth: 40 + (copied % 50) },
          {
            headers: owner.headers,
          },
        );
        assert.equal(updated.statusCode, 200, updated.body);
      };
      if (dialect === 'postgres') {
        // Stopped after two batches, then started again.
        let batches = 0;
        await assert.rejects(
          compactPageViews(db, {
            batchSize: 6,
            onBatch: async (copied) => {
              await trackAndUpdate(copied);
              if (++batches === 2) throw new Error('stopped');
            },
          }),
          /stopped/,
        );
        assert.equal(await hasCompactLayout(db.kysely as Kysely<any>, dialect), false);
        const result = await compactPageViews(db, { batchSize: 6, onBatch: trackAndUpdate });
        assert.equal(result.compacted, true);
        assert.ok(tracked.length >= 5, `views tracked during the copy: ${tracked.length}`);
      } else {
        assert.deepEqual(await compactPageViews(db), { compacted: false, copied: 0 });
        for (let i = 0; i < 5; i++) await trackAndUpdate(i);
      }
      assert.equal(await hasCompactLayout(db.kysely as Kysely<any>, dialect), true);
      assert.deepEqual(await compactPageViews(db), { compacted: false, copied: 0 });

      // Tracking and updates go on against the new table.
      const afterSwap = await track(app, { slug: 'alpha', sessionId: 'after' }, { headers: owner.headers });
      assert.equal(afterSwap.statusCode, 201, afterSwap.body);
      tracked.push(afterSwap.json().id);
      assert.equal(
        (await update(app, afterSwap.json().id, { timeOnPage: 30 }, { headers: owner.headers })).statusCode,
        200,
      );

      const viewsAfter = await viewsById(db, owner.project.id);
      assert.deepEqual([...viewsAfter.keys()].sort(), [...viewsBefore.keys(), ...tracked].sort());
      for (const [id, view] of viewsBefore) {
        if (id === early.json().id) continue;
        assert.deepEqual(viewsAfter.get(id), view);
      }
      assert.equal(viewsAfter.get(early.json().id)!.session_id, 'early session');
      await getJson(app, '/v1/analytics/stats?days=1', owner.headers);
      assert.deepEqual(
        await storedRollups(db, owner.project.id),
        await referenceRollups(db, owner.project.id),
      );
      const answersAfter = await Promise.all(paths().map((path) => getJson(app, path, owner.headers)));
      for (const [index, answer] of answersAfter.entries()) {
        assert.equal(answer.status, 200, paths()[index]);
        assert.deepEqual(answer.body, answersBefore[index].body, paths()[index]);
      }
      const rollups = await storedRollups(db, owner.project.id);
      await rebuildRollups(db.kysely, owner.project.id, utcDay(Date.now()));
      assert.deepEqual(await storedRollups(db, owner.project.id), rollups);
    });

    test('waits for the strings stored before migration 0022 to move, then keeps them', async (t) => {
      if (dialect !== 'postgres') return t.skip('SQLite keeps its layout');
      const fresh = await createTestDatabase(dialect, { migrate: false });
      try {
        const { db } = fresh;
        await migrateBefore(db, '0022');
        const other = await createTestProject(db);
        await importArticles(db, other.project, [articleInput({ slug: 'alpha' })]);
        await writeLegacyPageViews(
          db,
          Array.from({ length: 12 }, (_, i) => ({
            slug: 'alpha',
            row: {
              ...factoryRow(other.project, { slug: 'alpha', at: daysAgo(1 + (i % 3)) }, i),
              page_url: `https://blog.example.com/alpha?page=${i % 4}`,
              page_title: 'Alpha, ünïcødé',
              referrer: i % 2 === 0 ? 'https://news.ycombinator.com/' : null,
            },
          })),
        );
        await migrateToLatest(db);
        const before = await rawPageViews(db, other.project.id);
        assert.equal(before.length, 12);
        await assert.rejects(compactPageViews(db), /strings moved first/);
        assert.equal((await convertPageViews(db)).moved, 12);
        assert.equal((await compactPageViews(db, { batchSize: 5 })).compacted, true);
        assert.equal(await hasCompactLayout(db.kysely as Kysely<any>, dialect), true);
        assert.deepEqual(await rawPageViews(db, other.project.id), before);
      } finally {
        await fresh.drop();
      }
    });

    test('refuses a table holding a time the layout would not give back as stored, and leaves it as it is', async (t) => {
      if (dialect !== 'postgres') return t.skip('SQLite keeps its layout');
      const fresh = await createTestDatabase(dialect, { migrate: false });
      try {
        const { db } = fresh;
        await migrateBefore(db, '0031');
        const other = await createTestProject(db);
        await importArticles(db, other.project, [articleInput({ slug: 'alpha' })]);
        const articleId = (
          await db.kysely
            .selectFrom('articles')
            .select('id')
            .where('project_id', '=', other.project.id)
            .executeTakeFirstOrThrow()
        ).id;
        const row = {
          ...factoryRow(other.project, { slug: 'alpha', at: daysAgo(2) }),
          article_id: articleId,
        };
        await insertRawPageViews(db.kysely, [{ ...row, created_at: row.created_at.replace('Z', '+00:00') }]);
        await migrateToLatest(db);
        const before = await rawPageViews(db, other.project.id);
        await assert.rejects(compactPageViews(db), UnconvertibleValueError);
        assert.equal(await hasCompactLayout(db.kysely as Kysely<any>, dialect), false);
        assert.deepEqual(await rawPageViews(db, other.project.id), before);
        const { rows } = await sql<{
          made: boolean;
        }>`select to_regclass('page_views_next') is not null as made`.execute(db.kysely);
        assert.equal(rows[0].made, false);
      } finally {
        await fresh.drop();
      }
    });
  });
}
