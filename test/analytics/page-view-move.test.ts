// The page views an older release stored in page_views (before the keyed layout of migration 0020,
// or before the strings of 0022: strings inline, ids and visitor ids of any form) are moved to
// page_view_rows (migration 0040) online: every page view is there once afterwards, those tracked and
// updated while it moved included, their values read back as stored, each string stored once, and
// the statistics answer as before. An update of a page view not moved yet moves it first.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { utcDay } from '../../src/analytics/days.ts';
import type { Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { hasLegacyPageViews, moveLegacyPageViews } from '../../src/db/page-view-move.ts';
import type { Project } from '../../src/db/schema.ts';
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
  rawPageViews,
  referenceRollups,
  storedRollups,
  track,
  update,
  writeLegacyPageViews,
} from './support.ts';

const slugs = ['alpha', 'beta', 'gamma'];

/** Page view `i` as stored before migration 0022, with strings that repeat; the last few of today. */
function legacyView(project: Project, i: number, strings: Set<string>) {
  const slug = slugs[i % 3];
  const recent = i >= 55;
  const row = {
    ...factoryRow(
      project,
      {
        slug,
        at: recent
          ? // Today, whatever the time (an hour ago is yesterday until 01:00 UTC).
            new Date(Math.max(Date.now() - 3_600_000, Date.now() - (Date.now() % 86_400_000)) + (i - 55) * 10)
          : daysAgo(1 + (i % 45), `1${i % 10}:00:00.000`),
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
    events: i % 7 === 0 ? JSON.stringify([{ type: 'click', timeOffset: 10 }]) : '[]',
    event_count: i % 7 === 0 ? 1 : 0,
  };
  for (const value of [row.page_url, row.page_title, row.referrer, row.utm_source, row.utm_campaign]) {
    if (value !== null) strings.add(value);
  }
  return { row, slug };
}

async function legacyCount(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from page_views`.execute(db.kysely);
  return Number(rows[0].n);
}

for (const dialect of configuredDialects()) {
  for (const [first, layout] of [
    ['0020', 'before the keyed layout'],
    ['0022', 'keyed, strings inline'],
  ] as const) {
    describe(`page views of an older release, ${layout} [${dialect}]`, () => {
      let database: TestDatabase;
      before(async () => {
        database = await createTestDatabase(dialect, { migrate: false });
        await migrateBefore(database.db, first);
      });
      after(() => database?.drop());

      test('are moved online: those tracked and updated meanwhile are all there once, values and answers unchanged', async () => {
        await awayFromMidnight();
        const { db } = database;
        const owner = await createTestProject(db);
        await importArticles(
          db,
          owner.project,
          slugs.map((slug) => articleInput({ slug })),
        );
        const strings = new Set<string>();
        const stored = await writeLegacyPageViews(
          db,
          Array.from({ length: 60 }, (_, i) => legacyView(owner.project, i, strings)),
        );
        // The migration leaves them where they are: moving them could hold up the start.
        await migrateToLatest(db);
        assert.equal(await legacyCount(db), 60);
        const viewsBefore = await rawPageViews(db, owner.project.id);
        assert.equal(viewsBefore.length, 60);

        const app = await buildApp({ db, rollupDelayMs: 5 });
        try {
          const period = `from=${utcDay(daysAgo(60))}&to=${utcDay(daysAgo(1))}`;
          const paths = [
            `/v1/analytics/timeseries?${period}&interval=day`,
            `/v1/analytics/breakdown/country?${period}`,
            `/v1/analytics/breakdown/utm_source?${period}`,
            `/v1/analytics/articles/alpha/reading?${period}`,
          ];
          const answersBefore = await Promise.all(paths.map((path) => getJson(app, path, owner.headers)));
          for (const answer of answersBefore) assert.equal(answer.status, 200, JSON.stringify(answer.body));

          // An update of a page view still in page_views moves it, then applies.
          const recent = stored[57];
          const updated = await update(app, recent, { timeOnPage: 42 }, { headers: owner.headers });
          assert.equal(updated.statusCode, 200, updated.body);
          assert.equal(await legacyCount(db), 59);
          assert.equal(
            (await rawPageViews(db, owner.project.id)).find((view) => view.id === recent)?.time_on_page_ms,
            42_000,
          );

          const answered: string[] = [];
          const moved = await moveLegacyPageViews(db.kysely, dialect, {
            batchSize: 7,
            pauseMs: 1,
            // Between two batches: a new view, and an update of one tracked before.
            onBatch: async (count) => {
              const tracked = await track(app, { slug: slugs[count % 3] }, { headers: owner.headers });
              assert.equal(tracked.statusCode, 201, tracked.body);
              answered.push(tracked.json().id);
              const again = await update(
                app,
                answered[0],
                { scrollDepth: 20 + (count % 80) },
                { headers: owner.headers },
              );
              assert.equal(again.statusCode, 200, again.body);
            },
          });
          assert.equal(moved, 59);
          assert.ok(answered.length >= 5, `views tracked during the move: ${answered.length}`);
          assert.equal(await hasLegacyPageViews(db.kysely), false);

          const viewsAfter = new Map(
            (await rawPageViews(db, owner.project.id)).map((view) => [view.id, view]),
          );
          assert.deepEqual([...viewsAfter.keys()].sort(), [...stored, ...answered].sort());
          for (const view of viewsBefore) {
            const now = viewsAfter.get(view.id)!;
            // The one updated: its time on page and update time only.
            const expected =
              view.id === recent ? { ...view, time_on_page_ms: 42_000, updated_at: now.updated_at } : view;
            assert.deepEqual(now, expected, view.id);
          }
          // Each string once.
          const values = await db.kysely.selectFrom('page_view_strings').select('value').execute();
          assert.deepEqual(values.map((row) => row.value).sort(), [...strings].sort());
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
          // Nothing left: a second run moves nothing.
          assert.equal(await moveLegacyPageViews(db.kysely, dialect), 0);
        } finally {
          await app.close();
        }
      });
    });
  }
}
