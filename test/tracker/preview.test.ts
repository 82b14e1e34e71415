// A draft preview in a real browser (Debian's Chromium through playwright-core): a page on the
// blog's origin with `?preview=TOKEN` reads the draft through the public key with the token (CORS)
// and loads the tracker, which sends no page view; the same page without `preview=` is tracked.
// Skipped when Chromium is not installed, except under CI=true, where that is a failure.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { rawPageViews } from '../analytics/support.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  importArticles,
} from '../helpers.ts';
import { chromiumPath, type PageSite, servePages, whenChromium } from './browser-support.ts';

whenChromium('a draft preview in a browser', browserSuite);

/** A desktop Chrome: HeadlessChrome's own User-Agent is (rightly) answered as a bot. */
const desktopChrome =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

function browserSuite(): void {
  describeEachDialect('a draft preview in a browser', (ctx) => {
    let browser: Browser;
    let api: string;
    let site: PageSite;
    let siteOrigin: string;

    before(async () => {
      api = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      site = await servePages((url) => pageHtml(api, url));
      siteOrigin = site.origin;
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          `--user-agent=${desktopChrome}`,
        ],
      });
    });
    after(async () => {
      await browser?.close();
      await site?.close();
    });

    test('the page reads the draft with the token and the tracker sends no view; without preview= it does', async () => {
      const owner = await createTestProject(ctx.db, { scopes: ['read', 'write'], siteUrl: siteOrigin });
      await importArticles(ctx.db, owner.project, [
        articleInput({ slug: 'draft', status: 'draft', publishedAt: null, title: 'Secret draft' }),
        articleInput({ slug: 'live' }),
      ]);
      const publicKey = await createTestKey(ctx.db, owner.project, { kind: 'public', origins: [siteOrigin] });
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/v1/articles/draft/previews',
        headers: owner.headers,
        payload: { expiresIn: '1h' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const { url } = JSON.parse(created.body).data as { url: string; token: string };
      assert.ok(url.startsWith(`${siteOrigin}/draft?preview=`), url);

      const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
      const page = await context.newPage();
      const thrown: Error[] = [];
      page.on('pageerror', (error) => thrown.push(error));
      const tracked: string[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(`${api}/v1/analytics/track`)) tracked.push(request.url());
      });

      // The preview link as the API made it, with the public key for the page to use.
      await page.goto(`${url}&k=${publicKey.key}`);
      await page.waitForFunction('window.previewTitle !== undefined', undefined, { timeout: 10_000 });
      assert.equal(await page.evaluate('window.previewTitle'), 'Secret draft');
      assert.equal(await page.evaluate('typeof window.folio'), 'object', 'the tracker ran');
      // Give a page view every chance to be sent, then leave the page (updates go on leaving).
      await page.waitForTimeout(500);
      await page.evaluate('document.dispatchEvent(new Event("visibilitychange"))');
      assert.deepEqual(tracked, []);

      // The control: the same page, same tracker, without preview=, is tracked.
      const posted = page.waitForRequest(
        (request) => request.url().startsWith(`${api}/v1/analytics/track?`),
        {
          timeout: 10_000,
        },
      );
      await page.goto(`${siteOrigin}/live?k=${publicKey.key}`);
      const response = await (await posted).response();
      assert.equal(response?.status(), 201);
      await context.close();
      assert.deepEqual(thrown, []);

      const rows = await rawPageViews(ctx.db, owner.project.id);
      assert.equal(rows.length, 1, 'only the page without preview= made a view');
    });
  });
}

/** A blog page: reads its article through the API (with the page's preview token, if any) and loads the tracker. */
function pageHtml(api: string, url: URL): string {
  const key = url.searchParams.get('k') ?? '';
  const preview = url.searchParams.get('preview');
  const slug = url.pathname.split('/').pop() ?? '';
  const read = `${api}/v1/articles/${slug}${preview ? `?preview=${encodeURIComponent(preview)}` : ''}`;
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${slug}</title>
<script defer src="${api}/v1/analytics/script.js" data-key="${key}"></script>
</head><body>
<script>
fetch(${JSON.stringify(read)}, { headers: { 'X-API-Key': ${JSON.stringify(key)} } })
  .then((answer) => answer.json())
  .then((body) => { window.previewTitle = body.data ? body.data.title : null; });
</script>
</body></html>`;
}
