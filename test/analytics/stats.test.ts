// Statistics and the scroll funnel of a period, from page views written by a factory with known
// values at known instants, so that every figure can be asserted exactly.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
} from '../helpers.ts';
import { awayFromMidnight, daysAgo, type FactoryView, track, writePageViews } from './support.ts';

const day = (date: Date) => date.toISOString().slice(0, 10);

describeEachDialect('analytics: stats and funnel', (ctx) => {
  before(awayFromMidnight);

  async function blog(slugs: string[]) {
    const owner = await createTestProject(ctx.db);
    await importArticles(
      ctx.db,
      owner.project,
      slugs.map((slug) => articleInput({ slug, title: `The ${slug}` })),
    );
    return owner;
  }

  async function stats(headers: Record<string, string>, query = '') {
    const response = await getJson(ctx.app, `/v1/analytics/stats${query}`, headers);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.data;
  }

  async function funnel(headers: Record<string, string>, query = '') {
    const response = await getJson(ctx.app, `/v1/analytics/funnel${query}`, headers);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body;
  }

  /**
   * Three articles over a month. Today: alpha ×3 (v1, v1, v2; US, US, DE), beta ×1 (v3, sdk, no
   * country). Yesterday: alpha ×1 (v1, DE), gamma ×2 (v4 twice, FR, sdk once). 29 days ago at
   * 00:00:00.000: beta ×1 (v5, US). 30 days ago at 23:59:59.999: gamma ×5 (v6, no country).
   */
  async function month() {
    const owner = await blog(['alpha', 'beta', 'gamma']);
    const views: FactoryView[] = [
      { slug: 'alpha', visitor: 'v1', country: 'US', at: daysAgo(0, '00:00:01.000') },
      { slug: 'alpha', visitor: 'v1', country: 'US' },
      { slug: 'alpha', visitor: 'v2', country: 'DE' },
      { slug: 'beta', visitor: 'v3', sdk: true },
      { slug: 'alpha', visitor: 'v1', country: 'DE', at: daysAgo(1) },
      { slug: 'gamma', visitor: 'v4', country: 'FR', at: daysAgo(1), sdk: true },
      { slug: 'gamma', visitor: 'v4', country: 'FR', at: daysAgo(1, '23:59:59.999') },
      { slug: 'beta', visitor: 'v5', country: 'US', at: daysAgo(29, '00:00:00.000') },
      ...Array.from({ length: 5 }, () => ({ slug: 'gamma', visitor: 'v6', at: daysAgo(30, '23:59:59.999') })),
    ];
    await writePageViews(ctx.db, owner.project, views);
    return owner;
  }

  test('30 days: every figure of the summary, sources, top articles and top countries', async () => {
    const { headers } = await month();
    const articleIds = Object.fromEntries(
      (await ctx.db.kysely.selectFrom('articles').select(['id', 'slug']).execute()).map((row) => [
        row.slug,
        row.id,
      ]),
    );
    const data = await stats(headers);
    assert.deepEqual(data.summary, { totalViews: 8, uniqueVisitors: 6, avgViewsPerVisitor: 1.33 });
    assert.deepEqual(data.requestSource, { sdk: 25, direct: 75 });
    assert.deepEqual(data.topArticles, [
      { articleId: articleIds.alpha, title: 'The alpha', slug: 'alpha', views: 4 },
      { articleId: articleIds.beta, title: 'The beta', slug: 'beta', views: 2 },
      { articleId: articleIds.gamma, title: 'The gamma', slug: 'gamma', views: 2 },
    ]);
    assert.deepEqual(data.topCountries, [
      { country: 'US', views: 3 },
      { country: 'DE', views: 2 },
      { country: 'FR', views: 2 },
    ]);
  });

  test('the period starts at 00:00 UTC of the day days − 1 days ago and ends now', async () => {
    const { headers } = await month();
    const started = Date.now();
    const data = await stats(headers);
    assert.equal(data.period.days, 30);
    assert.equal(data.period.startDate, `${day(daysAgo(29))}T00:00:00.000Z`);
    assert.ok(
      Date.parse(data.period.endDate) >= started - 5 && Date.parse(data.period.endDate) <= Date.now(),
    );
    assert.match(data.period.endDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const day31 = await stats(headers, '?days=31');
    assert.equal(day31.period.startDate, `${day(daysAgo(30))}T00:00:00.000Z`);
    assert.deepEqual(day31.summary, { totalViews: 13, uniqueVisitors: 7, avgViewsPerVisitor: 1.86 });
    assert.deepEqual(
      day31.topArticles.map((article: { slug: string; views: number }) => [article.slug, article.views]),
      [
        ['gamma', 7],
        ['alpha', 4],
        ['beta', 2],
      ],
    );
    assert.deepEqual(day31.requestSource, { sdk: 15.4, direct: 84.6 }); // 2 / 13

    const today = await stats(headers, '?days=1');
    assert.equal(today.period.startDate, `${day(new Date())}T00:00:00.000Z`);
    assert.deepEqual(today.summary, { totalViews: 4, uniqueVisitors: 3, avgViewsPerVisitor: 1.33 });
    assert.deepEqual(today.requestSource, { sdk: 25, direct: 75 });

    const twoDays = await stats(headers, '?days=2');
    assert.deepEqual(
      twoDays.summary,
      { totalViews: 7, uniqueVisitors: 5, avgViewsPerVisitor: 1.4 },
      'v1 counts once a day',
    );
  });

  test('without a days parameter the period is 30 days; the default and ?days=30 agree', async () => {
    const { headers } = await month();
    const byDefault = await stats(headers);
    const explicit = await stats(headers, '?days=30');
    assert.deepEqual(
      { ...byDefault, period: { ...byDefault.period, endDate: null } },
      { ...explicit, period: { ...explicit.period, endDate: null } },
    );
  });

  test('a project without page views answers zeros and empty lists', async () => {
    const { headers } = await blog(['alpha']);
    const data = await stats(headers);
    assert.deepEqual(
      {
        summary: data.summary,
        requestSource: data.requestSource,
        topArticles: data.topArticles,
        topCountries: data.topCountries,
      },
      {
        summary: { totalViews: 0, uniqueVisitors: 0, avgViewsPerVisitor: 0 },
        requestSource: { sdk: 0, direct: 0 },
        topArticles: [],
        topCountries: [],
      },
    );
    const empty = await funnel(headers);
    assert.deepEqual(empty.funnel, {
      pageViews: 0,
      reached25: 0,
      reached50: 0,
      reached75: 0,
      reached90: 0,
      percentages: { reached25: 0, reached50: 0, reached75: 0, reached90: 0 },
    });
    assert.deepEqual(empty.engagement, {
      avgTimeOnPage: 0,
      avgScrollDepth: 0,
      bounceRate: 0,
      engagementRate: 0,
    });
  });

  test('top articles and countries: at most 10, most views first, ties by slug and by code', async () => {
    const slugs = Array.from({ length: 12 }, (_, i) => `post-${String.fromCharCode(108 - i)}`); // post-l … post-a
    const owner = await blog(slugs);
    const countries = ['ZA', 'YE', 'US', 'NL', 'JP', 'IT', 'GB', 'FR', 'ES', 'DE', 'CA', 'BR'];
    const views: FactoryView[] = [];
    slugs.forEach((slug, i) => {
      // post-l and post-k: 1 view; then 2, 2; 3, 3; … so that every count is a tie of two.
      for (let n = 0; n <= Math.floor(i / 2); n++) views.push({ slug, country: countries[i] });
    });
    await writePageViews(ctx.db, owner.project, views);
    const data = await stats(owner.headers);
    assert.deepEqual(
      data.topArticles.map((article: { slug: string; views: number }) => `${article.slug}:${article.views}`),
      [
        'post-a:6',
        'post-b:6',
        'post-c:5',
        'post-d:5',
        'post-e:4',
        'post-f:4',
        'post-g:3',
        'post-h:3',
        'post-i:2',
        'post-j:2',
      ],
    );
    assert.deepEqual(
      data.topCountries.map(
        (country: { country: string; views: number }) => `${country.country}:${country.views}`,
      ),
      ['BR:6', 'CA:6', 'DE:5', 'ES:5', 'FR:4', 'GB:4', 'IT:3', 'JP:3', 'NL:2', 'US:2'],
    );
  });

  test('top articles add the remembered past days and the live ones exactly, request after request', async () => {
    const owner = await blog(['old-favourite', 'rising', 'steady']);
    await writePageViews(ctx.db, owner.project, [
      ...Array.from({ length: 5 }, () => ({ slug: 'old-favourite', at: daysAgo(5) })),
      ...Array.from({ length: 2 }, () => ({ slug: 'steady', at: daysAgo(3) })),
      { slug: 'steady', at: daysAgo(1) },
      { slug: 'rising' },
    ]);
    const ranking = async (query = '') =>
      (await stats(owner.headers, query)).topArticles.map(
        (article: { slug: string; views: number }) => `${article.slug}:${article.views}`,
      );
    assert.deepEqual(await ranking(), ['old-favourite:5', 'steady:3', 'rising:1']);
    for (let i = 0; i < 5; i++)
      assert.equal((await track(ctx.app, { slug: 'rising' }, { headers: owner.headers })).statusCode, 201);
    assert.deepEqual(await ranking(), ['rising:6', 'old-favourite:5', 'steady:3']);
    assert.deepEqual(await ranking('?days=5'), ['rising:6', 'steady:3'], 'five days ago is outside ?days=5');
    assert.deepEqual(await ranking('?days=6'), ['rising:6', 'old-favourite:5', 'steady:3']);
    assert.deepEqual(await ranking('?days=2'), ['rising:6', 'steady:1']);
  });

  test('a page view written for a past day is counted at once, though past days are remembered', async () => {
    const owner = await blog(['alpha', 'beta']);
    await writePageViews(ctx.db, owner.project, [{ slug: 'alpha', at: daysAgo(10) }]);
    assert.equal((await stats(owner.headers)).topArticles[0].views, 1);
    await writePageViews(ctx.db, owner.project, [
      { slug: 'beta', at: daysAgo(10) },
      { slug: 'beta', at: daysAgo(12) },
    ]);
    assert.deepEqual(
      (await stats(owner.headers)).topArticles.map(
        (article: { slug: string; views: number }) => `${article.slug}:${article.views}`,
      ),
      ['beta:2', 'alpha:1'],
    );
  });

  test('page views of a removed article count in the totals but it is not listed', async () => {
    const owner = await blog(['kept', 'removed']);
    await writePageViews(ctx.db, owner.project, [{ slug: 'kept' }, { slug: 'removed' }, { slug: 'removed' }]);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'kept', title: 'The kept' })], [], {
      prune: true,
    });
    const data = await stats(owner.headers);
    assert.equal(data.summary.totalViews, 3);
    assert.deepEqual(
      data.topArticles.map((article: { slug: string }) => article.slug),
      ['kept'],
    );
  });

  /**
   * Ten page views of one article with known times, depths and bounces:
   *   time s  depth %  bounced   → bounced  engaged  reached
   *   0       0        –           yes      no       –
   *   3       20       –           yes      no       –
   *   4.999   25       –           yes      no       25
   *   5       49.99    –           no       no       25
   *   9.999   50       –           no       yes      25 50
   *   10      10       –           no       yes      –
   *   30      74.99    true        yes      yes      25 50
   *   45      75       false       no       yes      25 50 75
   *   120     90       –           no       yes      25 50 75 90
   *   2       100      false       no       yes      25 50 75 90
   */
  const tenViews: FactoryView[] = [
    { slug: 'guide', timeOnPage: 0, scrollDepth: 0 },
    { slug: 'guide', timeOnPage: 3, scrollDepth: 20 },
    { slug: 'guide', timeOnPage: 4.999, scrollDepth: 25 },
    { slug: 'guide', timeOnPage: 5, scrollDepth: 49.99 },
    { slug: 'guide', timeOnPage: 9.999, scrollDepth: 50 },
    { slug: 'guide', timeOnPage: 10, scrollDepth: 10 },
    { slug: 'guide', timeOnPage: 30, scrollDepth: 74.99, bounced: true },
    { slug: 'guide', timeOnPage: 45, scrollDepth: 75, bounced: false },
    { slug: 'guide', timeOnPage: 120, scrollDepth: 90 },
    { slug: 'guide', timeOnPage: 2, scrollDepth: 100, bounced: false },
  ];

  test('funnel: ten known page views give the exact counts, percentages and engagement', async () => {
    const owner = await blog(['guide', 'other']);
    await writePageViews(ctx.db, owner.project, [
      ...tenViews,
      { slug: 'other', timeOnPage: 600, scrollDepth: 100, at: daysAgo(45) },
    ]);
    const answer = await funnel(owner.headers);
    assert.deepEqual(Object.keys(answer).sort(), ['engagement', 'funnel', 'period']);
    assert.deepEqual(answer.funnel, {
      pageViews: 10,
      reached25: 7,
      reached50: 5,
      reached75: 3,
      reached90: 2,
      percentages: { reached25: 70, reached50: 50, reached75: 30, reached90: 20 },
    });
    // Times sum to 229.998 s (mean 22.9998), depths to 494.98 (mean 49.498).
    assert.deepEqual(answer.engagement, {
      avgTimeOnPage: 23,
      avgScrollDepth: 49.5,
      bounceRate: 40,
      engagementRate: 60,
    });
    assert.equal(answer.period.days, 30);
  });

  test('funnel: averages and percentages round halves away from zero, exactly', async () => {
    const owner = await blog(['guide']);
    // Times 1, 1, 1.15 s: mean 1.05 s exactly (floating point would say 1.0499…); depths 0, 0, 0.15.
    await writePageViews(ctx.db, owner.project, [
      { slug: 'guide', timeOnPage: 1, scrollDepth: 0, bounced: false },
      { slug: 'guide', timeOnPage: 1, scrollDepth: 0, bounced: false },
      { slug: 'guide', timeOnPage: 1.15, scrollDepth: 0.15 },
    ]);
    const three = await funnel(owner.headers);
    assert.equal(three.engagement.avgTimeOnPage, 1.1);
    assert.equal(three.engagement.avgScrollDepth, 0.1); // 0.05 → 0.1
    assert.equal(three.engagement.bounceRate, 33.3);
    // Sixteen views, one reaching 90: 6.25 % → 6.3.
    await writePageViews(ctx.db, owner.project, [
      { slug: 'guide', scrollDepth: 90 },
      ...Array.from({ length: 12 }, () => ({ slug: 'guide', scrollDepth: 10 })),
    ]);
    const sixteen = await funnel(owner.headers);
    assert.equal(sixteen.funnel.pageViews, 16);
    assert.equal(sixteen.funnel.percentages.reached90, 6.3);
  });

  test('funnel ?slug= restricts every figure to one article; an unknown slug is a 404', async () => {
    const owner = await blog(['guide', 'other']);
    await writePageViews(ctx.db, owner.project, [
      ...tenViews,
      { slug: 'other', timeOnPage: 600, scrollDepth: 100, bounced: true },
    ]);
    const guide = await funnel(owner.headers, '?slug=guide');
    assert.equal(guide.funnel.pageViews, 10);
    assert.deepEqual(guide.engagement, {
      avgTimeOnPage: 23,
      avgScrollDepth: 49.5,
      bounceRate: 40,
      engagementRate: 60,
    });
    const other = await funnel(owner.headers, '?slug=other');
    assert.deepEqual(other.funnel.percentages, {
      reached25: 100,
      reached50: 100,
      reached75: 100,
      reached90: 100,
    });
    assert.deepEqual(other.engagement, {
      avgTimeOnPage: 600,
      avgScrollDepth: 100,
      bounceRate: 100,
      engagementRate: 100,
    });
    const all = await funnel(owner.headers);
    assert.equal(all.funnel.pageViews, 11);

    const stranger = await blog(['elsewhere']);
    for (const slug of ['nope', 'elsewhere', 'GUIDE']) {
      const response = await getJson(
        ctx.app,
        `/v1/analytics/funnel?slug=${encodeURIComponent(slug)}`,
        owner.headers,
      );
      assert.equal(response.status, 404, slug);
      assert.deepEqual(response.body, {
        error: 'Not Found',
        message: `Article '${slug}' not found`,
        statusCode: 404,
      });
    }
    assert.equal((await getJson(ctx.app, '/v1/analytics/funnel?slug=%00', owner.headers)).status, 404);
    assert.equal((await funnel(stranger.headers, '?slug=elsewhere')).funnel.pageViews, 0);
  });

  test('days must be an integer from 1 to 365: anything else is a 400 naming days', async () => {
    const { headers } = await blog(['alpha']);
    for (const path of ['/v1/analytics/stats', '/v1/analytics/funnel']) {
      for (const value of ['0', '366', '-1', '1.5', 'abc', '', '30&days=31', 'Infinity', '1e309', '0x10']) {
        const response = await getJson(ctx.app, `${path}?days=${value}`, headers);
        assert.equal(response.status, 400, `${path}?days=${value}`);
        assert.deepEqual(response.body.details.issues, [
          { field: 'days', message: 'must be an integer from 1 to 365' },
        ]);
      }
      assert.equal((await getJson(ctx.app, `${path}?days=365`, headers)).status, 200);
      const unknown = await getJson(ctx.app, `${path}?days=1&unknown=x`, headers);
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.details.issues[0].field, 'unknown');
    }
    const slug = await getJson(ctx.app, `/v1/analytics/funnel?slug=${'x'.repeat(1001)}`, headers);
    assert.equal(slug.status, 400);
    assert.equal(slug.body.details.issues[0].field, 'slug');
  });

  test('answers are never stale: a new page view shows in the next stats, and GETs carry an ETag', async () => {
    const { headers } = await blog(['alpha']);
    const first = await getJson(ctx.app, '/v1/analytics/stats', headers);
    assert.equal(first.body.data.summary.totalViews, 0);
    assert.ok(first.headers.etag);
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    assert.equal((await track(ctx.app, { slug: 'alpha' }, { headers })).statusCode, 201);
    const second = await getJson(ctx.app, '/v1/analytics/stats', headers);
    assert.equal(second.body.data.summary.totalViews, 1);
    assert.equal((await getJson(ctx.app, '/v1/analytics/funnel', headers)).body.funnel.pageViews, 1);
  });

  test("a project's figures never include another project's page views", async () => {
    const a = await month();
    const b = await blog(['alpha', 'beta']);
    await writePageViews(ctx.db, b.project, [{ slug: 'beta', country: 'JP', visitor: 'v1' }]);
    const data = await stats(b.headers);
    assert.deepEqual(data.summary, { totalViews: 1, uniqueVisitors: 1, avgViewsPerVisitor: 1 });
    assert.deepEqual(
      data.topArticles.map((article: { slug: string }) => article.slug),
      ['beta'],
    );
    assert.deepEqual(data.topCountries, [{ country: 'JP', views: 1 }]);
    assert.equal((await funnel(b.headers, '?slug=alpha')).funnel.pageViews, 0);
    assert.equal((await stats(a.headers)).summary.totalViews, 8);
    const secondKeyOfB = await createTestKey(ctx.db, b.project);
    assert.equal((await stats(secondKeyOfB.headers)).summary.totalViews, 1);
  });
});
