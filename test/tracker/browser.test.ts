// The tracker in a real browser: Debian's Chromium, driven by playwright-core, loads a
// page from another origin that embeds the one-line snippet; the real app listens on a loopback
// port, and what the page did must show in the stats and funnel API. Skipped when Chromium is not
// installed, except under CI=true, where that is a failure (.ci/run installs it).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Browser, chromium, type Page, type Request } from 'playwright-core';
import type { PageViewTable } from '../../src/db/schema.ts';
import { rawPageViews } from '../analytics/support.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
} from '../helpers.ts';
import { chromiumPath, type PageSite, pageViewsWhen, servePages, whenChromium } from './browser-support.ts';

whenChromium('the tracker in a browser', browserSuite);

/** A desktop Chrome: HeadlessChrome's own User-Agent is (rightly) answered as a bot. */
const desktopChrome =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

const viewport = { width: 800, height: 600 };
const tallPage = 4000;

function browserSuite(): void {
  describeEachDialect('the tracker in a browser', (ctx) => {
    let browser: Browser;
    let api: string;
    let site: PageSite;
    let siteOrigin: string;

    before(async () => {
      api = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      site = await servePages((url) => pageHtml(api, url));
      siteOrigin = site.origin;
      // The User-Agent for the whole browser: Playwright's per-page override is not applied to
      // the beacons a page sends while it is being left.
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: [`--user-agent=${desktopChrome}`],
      });
    });
    after(async () => {
      await browser?.close();
      await site?.close();
    });

    async function blog(slugs: string[], origins?: string[]) {
      const owner = await createTestProject(ctx.db);
      await importArticles(
        ctx.db,
        owner.project,
        slugs.map((slug) => articleInput({ slug })),
      );
      const publicKey = await createTestKey(ctx.db, owner.project, {
        kind: 'public',
        origins: origins ?? [siteOrigin],
      });
      return { ...owner, publicKey: publicKey.key };
    }

    async function open(userAgent?: string) {
      const context = await browser.newContext({ userAgent, viewport });
      const page = await context.newPage();
      const thrown: Error[] = [];
      page.on('pageerror', (error) => thrown.push(error));
      const apiRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(api)) apiRequests.push(`${request.method()} ${request.url()}`);
      });
      return { context, page, thrown, apiRequests };
    }

    /** The tracker's next page-view POST. */
    const pageViewPosted = (page: Page) =>
      page.waitForRequest((request) => request.url().startsWith(`${api}/v1/analytics/track?`), {
        timeout: 10_000,
      });

    /**
     * Waits for the POST's answer and lets the page read it. `expect`: its status, or 403 for a
     * refusal the page may not read (no CORS headers on it).
     */
    async function settle(page: Page, posted: Promise<Request>, expect: number): Promise<void> {
      const response = await (await posted).response();
      if (response === null) assert.equal(expect, 403, 'the POST failed');
      else {
        assert.equal(response.status(), expect);
        await response.finished();
      }
      // The page reads the answer in a task of its own: let it run.
      await page.evaluate('new Promise((resolve) => setTimeout(resolve, 50))');
    }

    /** Loads a page and waits until the tracker knows its page view id. */
    async function visit(page: Page, path: string, expect = 201) {
      const posted = pageViewPosted(page);
      await page.goto(`${siteOrigin}${path}`);
      await settle(page, posted, expect);
    }

    async function spaNavigate(page: Page, path: string, height: number, expect = 201) {
      const posted = pageViewPosted(page);
      await page.evaluate(`spa(${JSON.stringify(path)}, ${height})`);
      await settle(page, posted, expect);
    }

    const slugOf = async (row: PageViewTable) =>
      (
        await ctx.db.kysely
          .selectFrom('articles')
          .select('slug')
          .where('id', '=', row.article_id)
          .executeTakeFirstOrThrow()
      ).slug;

    test('a page on another origin: views, SPA and real navigation, depth and time reach the stats', async () => {
      const { project, headers, publicKey } = await blog(['first', 'second', 'third']);
      const { context, page, thrown } = await open();
      await visit(page, `/blog/first?k=${publicKey}&h=${tallPage}&utm_source=news`);
      // TRACKER_SCREENSHOT=file.png: to look at what the browser shows.
      if (process.env.TRACKER_SCREENSHOT) await page.screenshot({ path: process.env.TRACKER_SCREENSHOT });
      // To the bottom, then some time on the page.
      await page.evaluate('toBottom()');
      await page.waitForTimeout(300);
      // SPA navigation to a page that fits the viewport.
      await spaNavigate(page, '/blog/second', 100);
      await page.waitForTimeout(200);
      // A real navigation (a link), then halfway down the tall page, then the tab is closed.
      const answered = pageViewPosted(page);
      await page.click('#next');
      await settle(page, answered, 201);
      // The bottom of the viewport halfway down the page: 50%.
      await page.evaluate('toHalf()');
      await page.waitForTimeout(200);
      await page.close({ runBeforeUnload: true });
      assert.deepEqual(thrown, []);

      // The browser stays open, as it does when a reader closes a tab: a beacon sent as the page
      // closes is not cut off by closing the whole context under it.
      const rows = await pageViewsWhen(
        ctx.db,
        project.id,
        (rows) => rows.length === 3 && rows.every((row) => Number(row.time_on_page_ms) > 0),
      );
      await context.close();
      const bySlug = Object.fromEntries(await Promise.all(rows.map(async (row) => [await slugOf(row), row])));
      assert.deepEqual(Object.keys(bySlug).sort(), ['first', 'second', 'third']);
      assert.equal(Number(bySlug.first.scroll_depth_centi), 10000);
      assert.equal(Number(bySlug.second.scroll_depth_centi), 10000, 'a page that fits the viewport is 100%');
      assert.ok(
        Math.abs(Number(bySlug.third.scroll_depth_centi) - 5000) <= 100,
        bySlug.third.scroll_depth_centi,
      );
      assert.ok(Number(bySlug.first.time_on_page_ms) >= 300, bySlug.first.time_on_page_ms);
      assert.ok(Number(bySlug.second.time_on_page_ms) >= 200, bySlug.second.time_on_page_ms);
      assert.ok(Number(bySlug.third.time_on_page_ms) >= 200, bySlug.third.time_on_page_ms);
      // One session for the tab, across SPA and real navigation.
      assert.equal(new Set(rows.map((row) => row.session_id)).size, 1);
      assert.equal(bySlug.first.utm_source, 'news');
      assert.equal(
        bySlug.first.page_url,
        `${siteOrigin}/blog/first?k=${publicKey}&h=${tallPage}&utm_source=news`,
      );
      assert.equal(bySlug.second.referrer, bySlug.first.page_url);
      assert.equal(bySlug.third.referrer, `${siteOrigin}/blog/second`);

      const stats = await getJson(ctx.app, '/v1/analytics/stats?days=1', headers);
      assert.equal(stats.status, 200);
      assert.equal(stats.body.data.summary.totalViews, 3);
      assert.deepEqual(
        stats.body.data.topArticles.map((article: { slug: string; views: number }) => [
          article.slug,
          article.views,
        ]),
        [
          ['first', 1],
          ['second', 1],
          ['third', 1],
        ],
      );
      const funnel = await getJson(ctx.app, '/v1/analytics/funnel?days=1', headers);
      assert.equal(funnel.status, 200);
      const { funnel: reached, engagement } = funnel.body;
      assert.deepEqual(
        [reached.pageViews, reached.reached50, reached.reached75, reached.reached90],
        [3, 3, 2, 2],
      );
      assert.ok(engagement.avgTimeOnPage >= 0.2, JSON.stringify(engagement));
      assert.ok(Math.abs(engagement.avgScrollDepth - 83.3) <= 0.1, JSON.stringify(engagement));
    });

    test('SPA navigation: the page left keeps its own depth, not that of the page that replaced it', async () => {
      const { project, publicKey } = await blog(['long-read', 'next-short', 'last-tall']);
      const { context, page, thrown } = await open();
      await visit(page, `/blog/long-read?k=${publicKey}&h=${tallPage}`);
      await page.evaluate('scrollTo(0, 1000)');
      await page.waitForTimeout(100);
      const expected = Number(
        await page.evaluate('(scrollY + innerHeight) / document.documentElement.scrollHeight * 100'),
      );
      assert.ok(expected > 20 && expected < 50, String(expected));
      // The router has already rendered the short next page when it calls pushState.
      await spaNavigate(page, '/blog/next-short', 100);
      // Never scrolled nor hidden: measured once, a second after it began.
      await page.waitForTimeout(1200);
      await spaNavigate(page, '/blog/last-tall', tallPage);
      await context.close();
      assert.deepEqual(thrown, []);
      const rows = await pageViewsWhen(
        ctx.db,
        project.id,
        (rows) => rows.length === 3 && rows[0].exit_position !== null && rows[1].exit_position !== null,
      );
      const short = rows.find((row) => row.page_url?.includes('next-short'))!;
      assert.deepEqual([Number(short.scroll_depth_centi), Number(short.exit_position)], [10000, 100]);
      const left = rows.find((row) => row.page_url?.includes('long-read'))!;
      assert.ok(
        Math.abs(Number(left.scroll_depth_centi) / 100 - expected) < 0.02,
        `${left.scroll_depth_centi}`,
      );
      assert.ok(Math.abs(Number(left.exit_position) - expected) < 0.02, `${left.exit_position}`);
    });

    test('a page that fits the viewport counts as 100%; each tab has its own session', async () => {
      const { project, publicKey } = await blog(['short']);
      const { context, page, thrown } = await open();
      await visit(page, `/blog/short?k=${publicKey}&h=100`);
      const second = await context.newPage();
      const answered = pageViewPosted(second);
      await second.goto(`${siteOrigin}/blog/short?k=${publicKey}&h=100`);
      await settle(second, answered, 201);
      // Reloading keeps the tab, and so its session.
      const reloaded = pageViewPosted(page);
      await page.reload();
      await settle(page, reloaded, 201);
      await page.close({ runBeforeUnload: true });
      await second.close({ runBeforeUnload: true });
      assert.deepEqual(thrown, []);
      const rows = await pageViewsWhen(
        ctx.db,
        project.id,
        (rows) => rows.length === 3 && rows.every((row) => row.exit_position !== null),
      );
      await context.close();
      for (const row of rows) {
        assert.equal(Number(row.scroll_depth_centi), 10000);
        assert.equal(Number(row.exit_position), 100);
      }
      assert.equal(new Set(rows.map((row) => row.session_id)).size, 2);
    });

    test('folio.track sends a custom event; data-slug names the article of the page', async () => {
      const { project, publicKey } = await blog(['launch-notes']);
      const { context, page, thrown } = await open();
      await visit(page, `/en/2026/launch?k=${publicKey}&h=${tallPage}&slug=launch-notes`);
      const beacon = page.waitForResponse((response) =>
        response.url().startsWith(`${api}/v1/analytics/track/`),
      );
      await page.evaluate(`folio.track('signup', '#cta')`);
      assert.equal((await beacon).status(), 200);
      await context.close();
      assert.deepEqual(thrown, []);
      const [row] = await pageViewsWhen(
        ctx.db,
        project.id,
        (rows) => rows.length === 1 && rows[0].event_count === 1,
      );
      assert.equal(await slugOf(row), 'launch-notes');
      const [event] = JSON.parse(row.events);
      assert.equal(event.type, 'signup');
      assert.equal(event.element, '#cta');
      assert.ok(event.timeOffset > 0, JSON.stringify(event));
    });

    test('a 404 (not an article) skips only that page: the next SPA page is tracked', async () => {
      const { project, publicKey } = await blog(['after-about']);
      const { context, page, thrown } = await open();
      await visit(page, `/about?k=${publicKey}&h=${tallPage}`, 404);
      await spaNavigate(page, '/blog/after-about', 100);
      await context.close();
      assert.deepEqual(thrown, []);
      const [row] = await pageViewsWhen(ctx.db, project.id, (rows) => rows.length === 1);
      assert.equal(await slugOf(row), 'after-about');
    });

    /** After `first`, the page navigates (SPA), sends an event and scrolls: nothing must be sent. */
    async function assertSilentAfter(page: Page, apiRequests: string[]) {
      const before = apiRequests.length;
      await page.evaluate(`spa('/blog/other', 100)`);
      await page.evaluate(`folio.track('click')`);
      await page.evaluate('toBottom()');
      // Whatever the tracker would send, it sends synchronously from these calls.
      await page.waitForTimeout(300);
      assert.deepEqual(apiRequests.slice(before), []);
    }

    test('a bot answer (202) stops the tracker: nothing more is sent from the page', async () => {
      const { project, publicKey } = await blog(['bots', 'other']);
      const { context, page, thrown, apiRequests } = await open(
        'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      );
      await visit(page, `/blog/bots?k=${publicKey}&h=${tallPage}`, 202);
      await assertSilentAfter(page, apiRequests);
      await context.close();
      assert.deepEqual(thrown, []);
      assert.deepEqual(await rawPageViews(ctx.db, project.id), []);
    });

    test('an error (an origin the key does not allow) stops the tracker quietly', async () => {
      const { project, publicKey } = await blog(['refused', 'other'], ['https://blog.example.com']);
      const { context, page, thrown, apiRequests } = await open();
      await visit(page, `/blog/refused?k=${publicKey}&h=${tallPage}`, 403);
      await assertSilentAfter(page, apiRequests);
      await context.close();
      assert.deepEqual(thrown, [], 'nothing thrown into the page');
      assert.deepEqual(await rawPageViews(ctx.db, project.id), []);
    });
  });
}

function pageHtml(api: string, url: URL): string {
  const key = url.searchParams.get('k') ?? '';
  const height = Number(url.searchParams.get('h') ?? 100);
  const slug = url.searchParams.get('slug');
  const title = url.pathname.split('/').pop();
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title>
<script defer src="${api}/v1/analytics/script.js" data-key="${key}"${slug ? ` data-slug="${slug}"` : ''}></script>
</head><body style="margin:0;font-family:sans-serif">
<h1 style="margin:0;height:40px">Article ${title}</h1>
<div id="content" style="height:${height}px;background:linear-gradient(#fff,#69c)"></div>
<a id="next" href="/blog/third?k=${key}&h=${tallPage}">next</a>
<script>
function spa(to, px) { document.getElementById('content').style.height = px + 'px'; history.pushState({}, '', to); }
function toBottom() { scrollTo(0, document.documentElement.scrollHeight); }
// The bottom of the viewport halfway down the page.
function toHalf() { scrollTo(0, document.documentElement.scrollHeight / 2 - innerHeight); }
</script>
</body></html>`;
}
