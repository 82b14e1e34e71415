// A blog's own end-to-end test, as it runs it: the real tracker in headless Chromium (its own
// HeadlessChrome User-Agent, driven by playwright-core) is a bot with a normal key, and counts with
// a test key, in the reports that are asked to include test views only. Skipped when Chromium is
// not installed, except under CI=true, where that is a failure.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
  viewCountOf,
} from '../helpers.ts';
import { chromiumPath, type PageSite, pageViewsWhen, servePages, whenChromium } from './browser-support.ts';

whenChromium('the tracker in headless Chromium with a test key', headlessSuite);

function headlessSuite(): void {
  describeEachDialect('the tracker in headless Chromium with a test key', (ctx) => {
    let browser: Browser;
    let api: string;
    let site: PageSite;
    let siteOrigin: string;

    before(async () => {
      api = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      site = await servePages((url) => pageHtml(api, url));
      siteOrigin = site.origin;
      // Headless, with the browser's own User-Agent: what a blog's Playwright tests run.
      browser = await chromium.launch({
        executablePath: chromiumPath,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
    });
    after(async () => {
      await browser?.close();
      await site?.close();
    });

    /** Loads the article page with `key`; the status of the tracker's page-view POST. */
    async function visit(page: Page, key: string): Promise<number> {
      const posted = page.waitForRequest(
        (request) => request.url().startsWith(`${api}/v1/analytics/track?`),
        {
          timeout: 10_000,
        },
      );
      await page.goto(`${siteOrigin}/blog/hello?k=${key}`);
      const response = await (await posted).response();
      assert.ok(response !== null, 'the POST failed');
      await response.finished();
      return response.status();
    }

    test('a normal key answers it as a bot; a test key counts it, marked, in includeTest reports only', async () => {
      const { project, headers } = await createTestProject(ctx.db);
      await importArticles(ctx.db, project, [articleInput({ slug: 'hello' })]);
      const normalKey = await createTestKey(ctx.db, project, { kind: 'public', origins: [siteOrigin] });
      const testKey = await createTestKey(ctx.db, project, {
        kind: 'public',
        origins: [siteOrigin],
        test: true,
      });

      const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
      const page = await context.newPage();
      const thrown: Error[] = [];
      page.on('pageerror', (error) => thrown.push(error));
      assert.match(String(await page.evaluate('navigator.userAgent')), /HeadlessChrome/);

      assert.equal(await visit(page, normalKey.key), 202);
      assert.equal(await visit(page, testKey.key), 201);
      // To the bottom, some time on the page, then the tab is closed: the tracker's update.
      await page.evaluate('scrollTo(0, document.documentElement.scrollHeight)');
      await page.waitForTimeout(300);
      await page.close({ runBeforeUnload: true });
      // The update is a beacon sent as the page closes: the browser sends it after the page is
      // gone, but a context closed meanwhile may drop it (a CI run on PostgreSQL saw it never come).
      const [row] = await pageViewsWhen(
        ctx.db,
        project.id,
        (rows) => rows.length === 1 && Number(rows[0].time_on_page_ms) > 0,
      );
      await context.close();
      assert.deepEqual(thrown, []);
      assert.equal(Number(row.test), 1);
      assert.equal(Number(row.scroll_depth_centi), 10000);

      assert.equal(await viewCountOf(ctx.db, project.id, 'hello'), 0);
      const stats = await getJson(ctx.app, '/v1/analytics/stats?days=1', headers);
      assert.equal(stats.body.data.summary.totalViews, 0);
      const included = await getJson(ctx.app, '/v1/analytics/stats?days=1&includeTest=true', headers);
      assert.equal(included.body.data.summary.totalViews, 1);
      assert.deepEqual(
        included.body.data.topArticles.map((article: { slug: string; views: number }) => [
          article.slug,
          article.views,
        ]),
        [['hello', 1]],
      );
      const funnel = await getJson(ctx.app, '/v1/analytics/funnel?days=1&includeTest=true', headers);
      assert.deepEqual([funnel.body.funnel.pageViews, funnel.body.funnel.reached90], [1, 1]);
      assert.equal((await getJson(ctx.app, '/v1/analytics/funnel?days=1', headers)).body.funnel.pageViews, 0);
    });
  });
}

function pageHtml(api: string, url: URL): string {
  const key = url.searchParams.get('k') ?? '';
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>hello</title>
<script defer src="${api}/v1/analytics/script.js" data-key="${key}" data-slug="hello"></script>
</head><body style="margin:0;font-family:sans-serif">
<h1 style="margin:0;height:40px">Hello</h1>
<div style="height:4000px;background:linear-gradient(#fff,#69c)"></div>
</body></html>`;
}
