// Visitor ids without cookies: a keyed hash of the day's salt, the project, the IP and the
// User-Agent; one salt per UTC day shared by every instance through the database, deleted two days
// later together with the day's visitor ids.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isBotUserAgent } from '../../src/analytics/ingest/bots.ts';
import { runCleanup } from '../../src/analytics/rollups/retention.ts';
import { DailySalts } from '../../src/analytics/ingest/salts.ts';
import { lastClosedDay } from '../../src/analytics/days.ts';
import { newPageViewId, pageViewIdPattern, visitorIdFor } from '../../src/analytics/ingest/visitor.ts';
import { shiftDay, utcDay } from '../../src/analytics/days.ts';
import { createTestProject, describeEachDialect } from '../helpers.ts';

describe('visitor ids', () => {
  const salt = 'a-secret-salt';

  test('the same project, IP and User-Agent give the same id under one salt', () => {
    assert.equal(
      visitorIdFor(salt, 'p1', '203.0.113.7', 'UA'),
      visitorIdFor(salt, 'p1', '203.0.113.7', 'UA'),
    );
  });

  test('a different salt, project, IP or User-Agent gives a different id', () => {
    const base = visitorIdFor(salt, 'p1', '203.0.113.7', 'UA');
    assert.notEqual(visitorIdFor('another-salt', 'p1', '203.0.113.7', 'UA'), base);
    assert.notEqual(visitorIdFor(salt, 'p2', '203.0.113.7', 'UA'), base);
    assert.notEqual(visitorIdFor(salt, 'p1', '203.0.113.8', 'UA'), base);
    assert.notEqual(visitorIdFor(salt, 'p1', '203.0.113.7', 'UA2'), base);
  });

  test('fields cannot be shifted into one another to collide (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (a, b, c, d) => {
        fc.pre(!(a + b).includes('\u0000') && !(c + d).includes('\u0000'));
        fc.pre(a !== c || b !== d);
        assert.notEqual(visitorIdFor(salt, 'p', a, b), visitorIdFor(salt, 'p', c, d));
      }),
    );
  });

  test('an id is 128 bits in base64url and holds neither the IP nor the User-Agent', () => {
    const id = visitorIdFor(salt, 'p1', '203.0.113.7', 'Mozilla/5.0');
    assert.match(id, /^[A-Za-z0-9_-]{22}$/);
    assert.ok(!id.includes('203'));
  });
});

describe('page-view ids', () => {
  test('a time prefix then 128 random bits; they sort by creation time', () => {
    const first = newPageViewId(1_700_000_000_000);
    const second = newPageViewId(1_700_000_000_001);
    assert.match(first, pageViewIdPattern);
    assert.ok(first < second);
    const ids = new Set(Array.from({ length: 10_000 }, () => newPageViewId(1_700_000_000_000)));
    assert.equal(ids.size, 10_000);
  });
});

describe('UTC days', () => {
  test('utcDay, shiftDay and lastClosedDay work in UTC across months and years', () => {
    assert.equal(utcDay(Date.parse('2026-03-01T00:00:00.000Z')), '2026-03-01');
    assert.equal(utcDay(Date.parse('2026-02-28T23:59:59.999Z')), '2026-02-28');
    assert.equal(shiftDay('2026-03-01', -1), '2026-02-28');
    assert.equal(shiftDay('2024-03-01', -1), '2024-02-29');
    assert.equal(shiftDay('2026-12-31', 1), '2027-01-01');
    assert.equal(shiftDay('2026-01-10', -29), '2025-12-12');
    // Kept for the day asked last: days asked in turn each get their own answer.
    for (const [today, closed] of [
      ['2026-03-01', '2026-02-27'],
      ['2024-03-01', '2024-02-28'],
      ['2026-03-01', '2026-02-27'],
      ['2027-01-01', '2026-12-30'],
    ]) {
      assert.equal(lastClosedDay(today!), closed);
    }
  });
});

describe('bots', () => {
  test('crawlers, scripts and an absent User-Agent are bots; browsers are not', () => {
    for (const ua of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      'curl/8.5.0',
      'python-requests/2.31.0',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
      '',
      '   ',
      undefined,
    ]) {
      assert.equal(isBotUserAgent(ua), true, String(ua));
    }
    for (const ua of [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
    ]) {
      assert.equal(isBotUserAgent(ua), false, ua);
    }
  });
});

describeEachDialect('daily salts', (ctx) => {
  test('two instances on one database use the same salt for a day, and another one the next day', async () => {
    const first = new DailySalts(ctx.db);
    const second = new DailySalts(ctx.db);
    const [a, b] = await Promise.all([first.saltOf('2031-05-10'), second.saltOf('2031-05-10')]);
    assert.equal(a, b);
    assert.ok(a.length >= 40, 'at least 32 random bytes');
    assert.notEqual(await first.saltOf('2031-05-11'), a);
    assert.equal(await second.saltOf('2031-05-11'), await first.saltOf('2031-05-11'));
  });

  test("a day's salt and visitor ids are deleted by the cleanup two days later, not by tracking", async () => {
    const salts = new DailySalts(ctx.db);
    await salts.saltOf('2032-01-01');
    await salts.saltOf('2032-01-02');
    const projectId = (await createTestProject(ctx.db)).project.id;
    await ctx.db.kysely
      .insertInto('analytics_daily_visitors')
      .values([
        { project_id: projectId, day: '2032-01-01', visitor_id: 'v1' },
        { project_id: projectId, day: '2032-01-02', visitor_id: 'v2' },
      ])
      .execute();
    const days = async (table: 'analytics_salts' | 'analytics_daily_visitors') =>
      (
        await ctx.db.kysely
          .selectFrom(table)
          .select('day')
          .where('day', '>=', '2032-01-01')
          .orderBy('day')
          .execute()
      ).map((row) => row.day);

    await runCleanup(ctx.db, { retentionDays: null, now: new Date('2032-01-02T23:59:59Z') });
    assert.deepEqual(
      await days('analytics_salts'),
      ['2032-01-01', '2032-01-02'],
      'day 1 lives through day 2',
    );

    await new DailySalts(ctx.db).saltOf('2032-01-03');
    assert.deepEqual(
      await days('analytics_salts'),
      ['2032-01-01', '2032-01-02', '2032-01-03'],
      'a request deletes nothing',
    );
    await runCleanup(ctx.db, { retentionDays: null, now: new Date('2032-01-03T00:00:00Z') });
    assert.deepEqual(await days('analytics_salts'), ['2032-01-02', '2032-01-03']);
    assert.deepEqual(await days('analytics_daily_visitors'), ['2032-01-02']);
  });
});
