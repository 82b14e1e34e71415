// The dashboard in a real browser (Debian's Chromium through playwright-core): sign in with the
// keyboard, read the figures of tracked page views, see the charts drawn, open an article's funnel
// and drop-off curve, and use it on a phone-sized screen. Screenshots go to DASHBOARD_SCREENSHOTS
// when it is set, to be looked at.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium, type Page } from 'playwright-core';
import { buildApp } from '../../src/app.ts';
import { track, update } from '../analytics/support.ts';
import {
  articleInput,
  createTestDatabase,
  createTestKey,
  createTestProject,
  importArticles,
  type TestDatabase,
  type TestProject,
} from '../helpers.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasBrowser = existsSync(chromiumPath);
if (!hasBrowser && process.env.CI) throw new Error(`CI: Chromium is missing at ${chromiumPath}`);
const screenshots = process.env.DASHBOARD_SCREENSHOTS ?? null;

describe('dashboard in a browser', { skip: hasBrowser ? false : `no Chromium at ${chromiumPath}` }, () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let browser: Browser;
  let origin: string;
  let owner: TestProject;

  before(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildApp({ db: database.db });
    origin = await app.listen({ port: 0, host: '127.0.0.1' });
    owner = await createTestProject(database.db, { name: 'Field Notes' });
    await importArticles(database.db, owner.project, [
      articleInput({ slug: 'long-read', title: 'A long read', content: 'word '.repeat(1100) }),
      articleInput({ slug: 'short-note', title: 'A short note' }),
    ]);
    const visits = [
      { slug: 'long-read', depth: 95, time: 260, width: 1440, referrer: 'https://www.google.com/search?q=x' },
      {
        slug: 'long-read',
        depth: 60,
        time: 90,
        width: 390,
        referrer: 'https://news.ycombinator.com/item?id=1',
      },
      { slug: 'long-read', depth: 20, time: 12, width: 390, referrer: '' },
      { slug: 'short-note', depth: 100, time: 30, width: 820, referrer: 'https://www.google.com/' },
    ];
    for (const [index, visit] of visits.entries()) {
      const created = await track(
        app,
        { slug: visit.slug, screenWidth: visit.width, referrer: visit.referrer || undefined, fetchGeo: true },
        { headers: owner.headers, ip: `81.2.69.${160 + index}` },
      );
      assert.equal(created.statusCode, 201, created.body);
      const updated = await update(
        app,
        created.json().id,
        { scrollDepth: visit.depth, exitPosition: visit.depth, timeOnPage: visit.time },
        { headers: owner.headers },
      );
      assert.equal(updated.statusCode, 200, updated.body);
    }
    browser = await chromium.launch({ executablePath: chromiumPath });
  });

  after(async () => {
    await browser?.close();
    await app?.close();
    await database?.drop();
  });

  async function signIn(page: Page, key: string) {
    await page.goto(`${origin}/dashboard`);
    // The key field has the focus: a keyboard user types and presses Enter.
    await page.waitForSelector('#key:focus');
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
  }

  /** Pixels of a chart's canvas in the colour of its line: only a series with data draws them. */
  function linePixels(page: Page, selector: string, [red, green, blue]: number[]): Promise<number> {
    return page.$eval(
      selector,
      (container, colour) => {
        const canvas = container.querySelector('canvas')!;
        const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
        let drawn = 0;
        for (let index = 0; index < data.length; index += 4) {
          const near =
            Math.abs(data[index] - colour[0]) < 24 &&
            Math.abs(data[index + 1] - colour[1]) < 24 &&
            Math.abs(data[index + 2] - colour[2]) < 24;
          if (near && data[index + 3] > 200) drawn++;
        }
        return drawn;
      },
      [red, green, blue],
    );
  }

  test('dashboard: keyboard sign-in shows the period figures and draws the views chart', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await signIn(page, owner.key);
    await page.waitForSelector('.cards');
    if (screenshots) await page.screenshot({ path: join(screenshots, 'dashboard.png'), fullPage: true });
    const cards = await page.$$eval('.card', (nodes) =>
      nodes.map((node) => [
        node.querySelector('.label')!.textContent,
        node.querySelector('.value')!.textContent,
      ]),
    );
    assert.deepEqual(cards.slice(0, 2), [
      ['Views', '4'],
      ['Visitors', '4'],
    ]);
    // Views and visitors are equal here: the visitors line, drawn last, covers the views line.
    assert.ok((await linePixels(page, '.wide .chart', [13, 148, 136])) > 200, 'the visitors line is drawn');
    const articles = await page.$$eval('.top-articles tbody tr', (rows) =>
      rows.map((row) => row.textContent),
    );
    assert.deepEqual(articles, ['A long read3', 'A short note1']);
    assert.deepEqual(errors, []);
    assert.equal(await page.evaluate<string>('document.cookie'), '', 'no cookie');
    await page.close();
  });

  test('dashboard: an article opens its funnel and drop-off curve from the keyboard', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, owner.key);
    await page.waitForSelector('.top-articles button');
    await page.focus('.top-articles button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.article-detail .chart canvas');
    const funnel = await page.$$eval('.article-detail .bars li', (items) =>
      items.map((item) => item.textContent),
    );
    assert.equal(funnel.length, 4);
    assert.match(funnel[0]!, /^Reached 25%66\.7% \(2\)$/);
    assert.ok(
      (await linePixels(page, '.article-detail .chart', [194, 65, 12])) > 200,
      'the drop-off curve is drawn',
    );
    if (screenshots) await page.screenshot({ path: join(screenshots, 'article.png'), fullPage: true });
    await page.close();
  });

  test('dashboard: the key stays in the tab across reloads and sign-out forgets it', async () => {
    const page = await browser.newPage();
    await signIn(page, owner.key);
    await page.waitForSelector('.cards');
    await page.reload();
    await page.waitForSelector('.cards');
    assert.equal(await page.evaluate(() => sessionStorage.length), 1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForSelector('#key');
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await page.close();
  });

  test('dashboard: a wrong key, a public key and a key without the analytics scope are told apart', async () => {
    const page = await browser.newPage();
    await signIn(page, `folio_sk_${'x'.repeat(32)}`);
    assert.match((await page.textContent('[role=alert]', { timeout: 5000 })) ?? '', /not valid/);
    const publicKey = await createTestKey(database.db, owner.project, { kind: 'public' });
    await signIn(page, publicKey.key);
    assert.match((await page.textContent('[role=alert]')) ?? '', /needs a secret key/);
    // A secret key without a scope the dashboard needs is told which.
    const reader = await createTestKey(database.db, owner.project, { scopes: ['read'] });
    await signIn(page, reader.key);
    assert.match((await page.textContent('[role=alert]')) ?? '', /needs the 'analytics' scope/);
    await page.close();
  });

  test('dashboard: on a phone-sized screen nothing scrolls sideways', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    await signIn(page, owner.key);
    await page.waitForSelector('.wide .chart canvas');
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    if (screenshots) await page.screenshot({ path: join(screenshots, 'phone.png'), fullPage: true });
    await page.close();
  });
});
