// Pure rules of analytics: rounding half away from zero on exact integers, the units page views are
// kept in, and what one page view contributes to the rollups.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { contributionOf, hasBounced, isEngaged } from '../../src/analytics/contribution.ts';
import { percentage, roundRatio, toCentiPercent, toMilliseconds } from '../../src/analytics/measures.ts';
import { rankArticles } from '../../src/analytics/reports/top-articles.ts';

describe('roundRatio', () => {
  test('rounds halves away from zero, where binary floating point would not', () => {
    const cases: Array<[number, number, number, number]> = [
      [1, 8, 2, 0.13], // 0.125
      [1, 40, 2, 0.03], // 0.025
      [1, 20, 1, 0.1], // 0.05
      [5, 1000, 2, 0.01], // 0.005
      [1005, 1000, 2, 1.01], // 1.005, which Math.round(1.005 * 100) / 100 makes 1
      [2, 3, 1, 0.7],
      [1, 3, 1, 0.3],
      [1, 3, 2, 0.33],
      [2, 3, 2, 0.67],
      [10, 4, 2, 2.5],
      [7, 7, 2, 1],
      [0, 5, 1, 0],
    ];
    for (const [numerator, denominator, decimals, expected] of cases) {
      assert.equal(roundRatio(numerator, denominator, decimals), expected, `${numerator}/${denominator}`);
    }
  });

  test('is 0 when the denominator is 0 (no views, no visitors)', () => {
    assert.equal(roundRatio(0, 0, 2), 0);
    assert.equal(percentage(0, 0), 0);
  });

  test('percentage: part / whole × 100 with one decimal, halves away from zero', () => {
    assert.equal(percentage(1, 3), 33.3);
    assert.equal(percentage(2, 3), 66.7);
    assert.equal(percentage(1, 8), 12.5);
    assert.equal(percentage(1, 16), 6.3); // 6.25
    assert.equal(percentage(1, 1600), 0.1); // 0.0625
    assert.equal(percentage(3, 3), 100);
  });

  test('agrees with exact decimal rounding for any integers (property)', () => {
    fc.assert(
      fc.property(
        fc.nat(10_000_000),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 3 }),
        (n, d, places) => {
          // Exact reference: long division in BigInt, then compare the remainder with half.
          const scale = 10n ** BigInt(places);
          const q = (BigInt(n) * scale) / BigInt(d);
          const r = (BigInt(n) * scale) % BigInt(d);
          const expected = 2n * r >= BigInt(d) ? q + 1n : q;
          assert.equal(roundRatio(n, d, places), Number(expected) / Number(scale));
        },
      ),
    );
  });

  test('refuses what it cannot round exactly', () => {
    assert.throws(() => roundRatio(1.5, 2, 1), RangeError);
    assert.throws(() => roundRatio(-1, 2, 1), RangeError);
  });
});

describe('units of a stored page view', () => {
  test('timeOnPage is kept in whole milliseconds, rounded as decimals are', () => {
    assert.equal(toMilliseconds(0), 0);
    assert.equal(toMilliseconds(12.5), 12_500);
    assert.equal(toMilliseconds(1.0005), 1001);
    assert.equal(toMilliseconds(4.9994), 4999);
    assert.equal(toMilliseconds(86_400), 86_400_000);
  });

  test('scrollDepth is kept in hundredths of a percent, rounded as decimals are', () => {
    assert.equal(toCentiPercent(0), 0);
    assert.equal(toCentiPercent(0.285), 29); // 28.499999999999996 in binary
    assert.equal(toCentiPercent(24.994), 2499);
    assert.equal(toCentiPercent(24.995), 2500);
    assert.equal(toCentiPercent(100), 10_000);
  });
});

describe('contribution of one page view', () => {
  const view = (
    time: number,
    depth: number,
    bounced: number | null = null,
    source: 'sdk' | 'direct' = 'direct',
  ) => ({
    source,
    time_on_page_ms: time,
    scroll_depth_centi: depth,
    bounced,
  });

  test('bounced when sent; when never sent, when timeOnPage < 5 s', () => {
    assert.equal(hasBounced(view(4999, 0)), true);
    assert.equal(hasBounced(view(5000, 0)), false);
    assert.equal(hasBounced(view(60_000, 0, 1)), true);
    assert.equal(hasBounced(view(0, 0, 0)), false);
  });

  test('engaged with timeOnPage ≥ 10 s or scrollDepth ≥ 50', () => {
    assert.equal(isEngaged(view(9999, 4999)), false);
    assert.equal(isEngaged(view(10_000, 0)), true);
    assert.equal(isEngaged(view(0, 5000)), true);
  });

  test('counts each funnel step the depth reaches, thresholds included', () => {
    assert.deepEqual(contributionOf(view(12_000, 7500, null, 'sdk')), {
      views: 1,
      sdk_views: 1,
      time_on_page_ms: 12_000,
      scroll_depth_centi: 7500,
      bounced: 0,
      engaged: 1,
      reached25: 1,
      reached50: 1,
      reached75: 1,
      reached90: 0,
    });
    assert.deepEqual(
      [2499, 2500, 4999, 5000, 8999, 9000].map((depth) => {
        const c = contributionOf(view(0, depth));
        return [c.reached25, c.reached50, c.reached75, c.reached90];
      }),
      [
        [0, 0, 0, 0],
        [1, 0, 0, 0],
        [1, 0, 0, 0],
        [1, 1, 0, 0],
        [1, 1, 1, 0],
        [1, 1, 1, 1],
      ],
    );
  });
});

describe('ranking of top articles', () => {
  const names = (ids: string[]) => ids.map((id) => ({ id, slug: id.replace('id-', ''), title: id }));

  test('most views first, ties by slug, at most the limit', async () => {
    const views = new Map([
      ['id-c', 3],
      ['id-a', 3],
      ['id-b', 5],
      ['id-d', 1],
    ]);
    const top = await rankArticles(views, async (ids) => names(ids), 3);
    assert.deepEqual(
      top.map((article) => `${article.slug}:${article.views}`),
      ['b:5', 'a:3', 'c:3'],
    );
  });

  test('removed articles are skipped and the next ones fill the list; ties at the edge are all looked up', async () => {
    const views = new Map([
      ['id-gone', 9],
      ['id-x', 4],
      ['id-y', 4],
      ['id-z', 4],
      ['id-w', 2],
      ['id-also-gone', 1],
    ]);
    const lookups: string[][] = [];
    const top = await rankArticles(
      views,
      async (ids) => {
        lookups.push(ids);
        return names(ids.filter((id) => !id.includes('gone')));
      },
      2,
    );
    assert.deepEqual(
      top.map((article) => `${article.slug}:${article.views}`),
      ['x:4', 'y:4'],
    );
    assert.deepEqual(
      lookups,
      [['id-gone', 'id-x', 'id-y', 'id-z']],
      'z ties with y: looked up in the same group',
    );

    const many = await rankArticles(
      views,
      async (ids) => names(ids.filter((id) => !id.includes('gone'))),
      10,
    );
    assert.deepEqual(
      many.map((article) => article.slug),
      ['x', 'y', 'z', 'w'],
    );
  });
});
