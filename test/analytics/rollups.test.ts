// The rollups that statistics are read from must always equal a computation from the raw page
// views: after random tracking traffic with updates sent out of order and concurrently, after
// refused requests, across days, and after rebuilding them from the raw rows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { roundRatio } from '../../src/analytics/measures.ts';
import { rebuildRollups } from '../../src/analytics/rollups/queries/rebuild-rollups.ts';
import { articleInput, createTestProject, describeEachDialect, getJson, importArticles } from '../helpers.ts';
import {
  awayFromMidnight,
  browser,
  ips,
  otherBrowser,
  random,
  referenceRollups,
  storedRollups,
  track,
  update,
  writePageViews,
} from './support.ts';

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
const slugs = ['alpha', 'beta', 'gamma', 'delta'];

describeEachDialect('rollups agree with the raw page views', (ctx) => {
  for (const seed of [7, 2026]) {
    test(`random traffic, out-of-order and concurrent updates (seed ${seed})`, async () => {
      await awayFromMidnight();
      const rng = random(seed);
      const owner = await createTestProject(ctx.db);
      await importArticles(
        ctx.db,
        owner.project,
        slugs.map((slug) => articleInput({ slug })),
      );
      const bystander = await createTestProject(ctx.db);
      await importArticles(ctx.db, bystander.project, [articleInput({ slug: 'alpha' })]);
      // Earlier days, written by the factory; the one of 20 hours ago can still be updated.
      const earlier = await writePageViews(ctx.db, owner.project, [
        {
          slug: 'alpha',
          at: new Date(Date.now() - 20 * 3_600_000),
          timeOnPage: 3,
          scrollDepth: 10,
          visitor: 'x',
        },
        {
          slug: 'beta',
          at: new Date(Date.now() - 3 * 86_400_000),
          timeOnPage: 40,
          scrollDepth: 95,
          country: 'FR',
        },
      ]);

      const ids: string[] = [earlier[0]];
      for (let i = 0; i < 40; i++) {
        const body: Record<string, unknown> = { slug: rng.pick(slugs), fetchGeo: rng.chance(0.7) };
        if (rng.chance(0.5)) body.timeOnPage = rng.measure(20);
        if (rng.chance(0.5)) body.scrollDepth = rng.measure(100);
        if (rng.chance(0.3)) body.bounced = rng.chance(0.5);
        const headers = rng.chance(0.3) ? { ...owner.headers, 'x-folio-client': 'sdk' } : owner.headers;
        const response = await track(ctx.app, body, {
          headers,
          ip: rng.pick(ips),
          userAgent: rng.pick([browser, otherBrowser]),
        });
        assert.equal(response.statusCode, 201, response.body);
        ids.push(response.json().id);
      }
      // The bystander's page views must not move the owner's rollups (nor the reverse).
      await track(ctx.app, { slug: 'alpha', fetchGeo: true }, { headers: bystander.headers, ip: '8.8.8.8' });

      for (let round = 0; round < 25; round++) {
        // A few updates at once: some of them land in one batch, some for the same page view.
        const sends = Array.from({ length: 1 + rng.below(6) }, () => {
          const body: Record<string, unknown> = {};
          if (rng.chance(0.7)) body.timeOnPage = rng.measure(60);
          if (rng.chance(0.7)) body.scrollDepth = rng.measure(100);
          if (rng.chance(0.4)) body.exitPosition = rng.measure(100);
          if (rng.chance(0.4)) body.bounced = rng.chance(0.5);
          if (rng.chance(0.2)) body.events = [{ type: 'click', timeOffset: rng.below(10_000) }];
          if (rng.chance(0.05)) body.scrollDepth = 101; // refused: must change nothing
          const id = rng.chance(0.05) ? '0123456789abAAAAAAAAAAAAAAAAAAAAAA' : rng.pick(ids);
          const method = rng.chance(0.3) ? ('POST' as const) : ('PUT' as const);
          return update(ctx.app, id, body, { headers: owner.headers, method });
        });
        for (const response of await Promise.all(sends))
          assert.ok([200, 400, 404].includes(response.statusCode), response.body);
      }

      const reference = await referenceRollups(ctx.db, owner.project.id);
      assert.deepEqual(await storedRollups(ctx.db, owner.project.id), reference);
      assert.equal(Object.keys(reference.days).length >= 2, true);

      // The API's figures are those of the reference.
      const sum = (
        field: 'views' | 'sdk_views' | 'visitors' | 'reached50' | 'bounced' | 'engaged' | 'time_on_page_ms',
      ) =>
        Object.entries(reference.days)
          .filter(([day]) => day >= new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10))
          .reduce((total, [, counters]) => total + counters[field], 0);
      const stats = (await getJson(ctx.app, '/v1/analytics/stats', owner.headers)).body.data;
      assert.deepEqual(stats.summary, {
        totalViews: sum('views'),
        uniqueVisitors: sum('visitors'),
        avgViewsPerVisitor: roundRatio(sum('views'), sum('visitors'), 2),
      });
      assert.equal(stats.requestSource.sdk, roundRatio(sum('sdk_views') * 100, sum('views'), 1));
      const funnel = (await getJson(ctx.app, '/v1/analytics/funnel', owner.headers)).body;
      assert.equal(funnel.funnel.reached50, sum('reached50'));
      assert.equal(funnel.engagement.bounceRate, roundRatio(sum('bounced') * 100, sum('views'), 1));
      assert.equal(funnel.engagement.engagementRate, roundRatio(sum('engaged') * 100, sum('views'), 1));
      assert.equal(
        funnel.engagement.avgTimeOnPage,
        roundRatio(sum('time_on_page_ms'), sum('views') * 1000, 1),
      );

      // Rebuilding from the raw rows gives the same rollups (visitor sets aside).
      const visitorsBefore = await ctx.db.kysely
        .selectFrom('analytics_daily_visitors')
        .select(['day', 'visitor_id'])
        .where('project_id', '=', owner.project.id)
        .orderBy('day')
        .orderBy('visitor_id')
        .execute();
      await rebuildRollups(ctx.db.kysely, owner.project.id, new Date().toISOString().slice(0, 10));
      assert.deepEqual(await storedRollups(ctx.db, owner.project.id), reference);
      const visitorsAfter = await ctx.db.kysely
        .selectFrom('analytics_daily_visitors')
        .select(['day', 'visitor_id'])
        .where('project_id', '=', owner.project.id)
        .orderBy('day')
        .orderBy('visitor_id')
        .execute();
      assert.deepEqual(
        visitorsAfter,
        visitorsBefore.filter(
          (row) => row.day >= new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
        ),
      );
      assert.deepEqual(
        await storedRollups(ctx.db, bystander.project.id),
        await referenceRollups(ctx.db, bystander.project.id),
      );
    });
  }
});
