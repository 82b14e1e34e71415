// `folio db convert-page-views` on a database migrated before the keyed layout: every page view is
// there once afterwards, those tracked and updated while it copied included, and the statistics
// answer as before.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { legacyStringColumns } from '../../src/db/page-view-string-conversion.ts';
import { pageViewStringColumns } from '../../src/db/schema.ts';
import type { Db } from '../../src/db/database.ts';
import type { Project } from '../../src/db/schema.ts';
import { buildApp } from '../../src/app.ts';
import { utcDay } from '../../src/analytics/days.ts';
import { convertPageViews } from '../../src/db/page-view-conversion.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { hasKeyedLayout } from '../../src/db/migrations/frozen/0020-keyed-page-views.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  getJson,
  importArticles,
  type TestDatabase,
  migrateBefore,
} from '../helpers.ts';
import {
  awayFromMidnight,
  daysAgo,
  referenceRollups,
  storedRollups,
  track,
  factoryRow,
  rawPageViews,
  update,
  writeLegacyPageViews,
} from './support.ts';

const slugs = ['alpha', 'beta', 'gamma'];
const legacyStrings = new Set<string>();

/** Page view `i` as stored before migration 0022, with strings that repeat. */
function legacyView(project: Project, i: number) {
  const slug = slugs[i % 3];
  const row = {
    ...factoryRow(
      project,
      {
        slug,
        at: daysAgo(1 + (i % 45), `1${i % 10}:00:00.000`),
        visitor: `v${i % 9}`,
        scrollDepth: (i * 13) % 100,
        country: i % 4 === 0 ? 'DE' : null,
      },
      i,
    ),
    page_url: `https://blog.example.com/${slug}${i % 5 === 0 ? '?utm_source=news' : ''}`,
    page_title: `The ${slug} article`,
    referrer: i % 2 === 0 ? 'https://news.ycombinator.com/' : null,
    utm_source: i % 5 === 0 ? 'news' : null,
    utm_campaign: i % 10 === 0 ? 'spring' : null,
  };
  for (const value of [row.page_url, row.page_title, row.referrer, row.utm_source, row.utm_campaign]) {
    if (value !== null) legacyStrings.add(value);
  }
  return { row, slug };
}

/** Every string stored, in order: each once. */
async function storedStrings(db: Db): Promise<string[]> {
  const rows = await db.kysely.selectFrom('page_view_strings').select('value').orderBy('value').execute();
  return rows.map((row) => row.value).sort();
}

for (const dialect of configuredDialects()) {
  describe(`page-view conversion [${dialect}]`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(dialect, { migrate: false });
      await migrateBefore(database.db, '0020');
    });
    after(() => database?.drop());

    test('converts online: views tracked and updated meanwhile are all there once, answers unchanged', async () => {
      await awayFromMidnight();
      const { db } = database;
      const owner = await createTestProject(db);
      await importArticles(
        db,
        owner.project,
        slugs.map((slug) => articleInput({ slug })),
      );
      const stored = await writeLegacyPageViews(
        db,
        Array.from({ length: 60 }, (_, i) => legacyView(owner.project, i)),
      );
      const viewsBefore = await rawPageViews(db, owner.project.id);
      // A database with page views keeps its table through the migration: the command converts it.
      await migrateToLatest(db);
      assert.equal(await hasKeyedLayout(db.kysely as Kysely<any>, dialect), false);

      const app = await buildApp({ db, rollupDelayMs: 5 });
      try {
        const period = `from=${utcDay(daysAgo(60))}&to=${utcDay(daysAgo(1))}`;
        const paths = [
          `/v1/analytics/timeseries?${period}&interval=day`,
          `/v1/analytics/breakdown/country?${period}`,
          `/v1/analytics/breakdown/source?${period}`,
          `/v1/analytics/articles/alpha/reading?${period}`,
        ];
        const answersBefore = await Promise.all(paths.map((path) => getJson(app, path, owner.headers)));

        const answered: string[] = [];
        const result = await convertPageViews(db, {
          batchSize: 7,
          pauseMs: 1,
          // Between two batches: a new view, and an update of one the batches may have copied already.
          onBatch: async (copied) => {
            const tracked = await track(app, { slug: slugs[copied % 3] }, { headers: owner.headers });
            assert.equal(tracked.statusCode, 201, tracked.body);
            answered.push(tracked.json().id);
            const updated = await update(
              app,
              answered[0],
              { scrollDepth: 20 + (copied % 80) },
              {
                headers: owner.headers,
              },
            );
            assert.equal(updated.statusCode, 200, updated.body);
          },
        });
        assert.equal(result.converted, true);
        assert.ok(answered.length >= 5, `views tracked during the copy: ${answered.length}`);
        assert.equal(await hasKeyedLayout(db.kysely as Kysely<any>, dialect), true);

        // Tracking and updates go on against the new table.
        const afterSwap = await track(app, { slug: 'alpha' }, { headers: owner.headers });
        assert.equal(afterSwap.statusCode, 201);
        answered.push(afterSwap.json().id);
        assert.equal(
          (await update(app, afterSwap.json().id, { timeOnPage: 30 }, { headers: owner.headers })).statusCode,
          200,
        );

        const rows = await db.kysely
          .selectFrom('page_views')
          .select('id')
          .where('project_id', '=', owner.project.id)
          .execute();
        const ids = rows.map((row) => row.id).sort();
        assert.deepEqual(ids, [...stored, ...answered].sort());
        await getJson(app, '/v1/analytics/stats?days=1', owner.headers);
        assert.deepEqual(
          await storedRollups(db, owner.project.id),
          await referenceRollups(db, owner.project.id),
        );
        const answersAfter = await Promise.all(paths.map((path) => getJson(app, path, owner.headers)));
        for (const [index, answer] of answersAfter.entries()) {
          assert.equal(answer.status, 200, paths[index]);
          assert.deepEqual(answer.body, answersBefore[index].body, paths[index]);
        }
        // The strings of the old rows moved to their table, once each, and read back the same.
        assert.equal(result.moved, 60);
        const viewsAfter = new Map((await rawPageViews(db, owner.project.id)).map((row) => [row.id, row]));
        for (const view of viewsBefore) assert.deepEqual(viewsAfter.get(view.id), view);
        assert.deepEqual(await storedStrings(db), [...legacyStrings].sort());
        // A second run finds the layout and the strings moved, and does nothing.
        assert.deepEqual(await convertPageViews(db), { converted: false, copied: 0, moved: 0 });
      } finally {
        await app.close();
      }
    });
  });

  describe(`page-view strings' move [${dialect}]`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(dialect, { migrate: false });
      await migrateBefore(database.db, '0022');
    });
    after(() => database?.drop());

    test('moves the strings of a keyed table online, once each; reads answer the same before and after', async () => {
      await awayFromMidnight();
      const { db } = database;
      const owner = await createTestProject(db);
      await importArticles(
        db,
        owner.project,
        slugs.map((slug) => articleInput({ slug })),
      );
      await writeLegacyPageViews(
        db,
        Array.from({ length: 40 }, (_, i) => legacyView(owner.project, i)),
      );
      // A table with page views keeps its string columns through the migration; they are read as they are.
      await migrateToLatest(db);
      assert.deepEqual(await legacyStringColumns(db.kysely, dialect), [...pageViewStringColumns]);
      const app = await buildApp({ db, rollupDelayMs: 5 });
      try {
        // Up to yesterday: the views tracked during the move are today's.
        const period = `from=${utcDay(daysAgo(60))}&to=${utcDay(daysAgo(1))}`;
        const paths = [
          `/v1/analytics/breakdown/source?${period}`,
          `/v1/analytics/breakdown/utm_source?${period}`,
          `/v1/analytics/breakdown/utm_campaign?${period}`,
        ];
        const viewsBefore = await rawPageViews(db, owner.project.id);
        const answersBefore = await Promise.all(paths.map((path) => getJson(app, path, owner.headers)));
        for (const answer of answersBefore) assert.equal(answer.status, 200, JSON.stringify(answer.body));

        const tracked: string[] = [];
        const result = await convertPageViews(db, {
          batchSize: 6,
          pauseMs: 1,
          onStringBatch: async (moved) => {
            const answer = await track(
              app,
              {
                slug: 'beta',
                pageUrl: 'https://blog.example.com/beta',
                referrer: 'https://news.ycombinator.com/',
              },
              { headers: owner.headers },
            );
            assert.equal(answer.statusCode, 201, answer.body);
            tracked.push(answer.json().id);
            assert.ok(moved <= 40);
          },
        });
        assert.equal(result.converted, false);
        assert.equal(result.moved, 40);
        assert.ok(tracked.length >= 5, `views tracked during the move: ${tracked.length}`);

        // PostgreSQL drops the emptied columns; SQLite keeps them, empty.
        const left = await legacyStringColumns(db.kysely, dialect);
        if (dialect === 'postgres') assert.deepEqual(left, []);
        else {
          const { rows } = await sql<{ n: number }>`select count(*) as n from page_views where ${sql.raw(
            left.map((column) => `${column} is not null`).join(' or '),
          )}`.execute(db.kysely);
          assert.equal(Number(rows[0].n), 0);
        }
        const viewsAfter = new Map((await rawPageViews(db, owner.project.id)).map((row) => [row.id, row]));
        assert.equal(viewsAfter.size, 40 + tracked.length);
        for (const view of viewsBefore) assert.deepEqual(viewsAfter.get(view.id), view);
        for (const id of tracked) assert.equal(viewsAfter.get(id)?.page_url, 'https://blog.example.com/beta');
        assert.deepEqual(await storedStrings(db), [...legacyStrings].sort());
        assert.deepEqual(
          await storedRollups(db, owner.project.id),
          await referenceRollups(db, owner.project.id),
        );
        const answersAfter = await Promise.all(paths.map((path) => getJson(app, path, owner.headers)));
        for (const [index, answer] of answersAfter.entries()) {
          assert.equal(answer.status, 200, paths[index]);
          assert.deepEqual(answer.body, answersBefore[index].body, paths[index]);
        }
        assert.deepEqual(await convertPageViews(db), { converted: false, copied: 0, moved: 0 });
      } finally {
        await app.close();
      }
    });
  });
}
