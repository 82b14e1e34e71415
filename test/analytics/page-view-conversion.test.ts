// `folio db convert-page-views` on a database migrated before the keyed layout: every page view is
// there once afterwards, those tracked and updated while it copied included, and the statistics
// answer as before.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
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
  update,
  writePageViews,
} from './support.ts';

const slugs = ['alpha', 'beta', 'gamma'];

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
      const stored = await writePageViews(
        db,
        owner.project,
        Array.from({ length: 60 }, (_, i) => ({
          slug: slugs[i % 3],
          at: daysAgo(i % 45, `1${i % 10}:00:00.000`),
          visitor: `v${i % 9}`,
          scrollDepth: (i * 13) % 100,
          country: i % 4 === 0 ? 'DE' : null,
        })),
      );
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
        // A second run finds the layout and does nothing.
        assert.deepEqual(await convertPageViews(db), { converted: false, copied: 0 });
      } finally {
        await app.close();
      }
    });
  });
}
