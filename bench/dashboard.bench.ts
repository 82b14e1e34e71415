// npm run bench -- dashboard: what the dashboard costs a reader on its first visit, on the demo
// blog (examples/content) with page views tracked through the API: the bytes of its first load,
// gzipped as served, and the time from navigation until its figures and chart are shown, in
// Debian's Chromium (cold: a new browser context each run, so nothing is cached).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { importContent } from '../src/content/import.ts';
import { readContentSource } from '../src/content/import/read-source.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { demoContentPath } from '../src/demo.ts';
import { createApiKey, createProject } from '../src/projects/service.ts';

const runs = Number(process.env.BENCH_DASHBOARD_RUNS ?? 7);
const pageViews = Number(process.env.BENCH_DASHBOARD_VIEWS ?? 2000);
const browserUa =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

const dir = mkdtempSync(join(tmpdir(), 'folio-bench-dashboard-'));
const db = openDatabase(join(dir, 'folio.db'));
await migrateToLatest(db);
await createProject(db, { name: 'Folio Field Notes', slug: 'demo', description: 'Demo', siteUrl: null });
const source = await readContentSource(demoContentPath);
await importContent(db, 'demo', source);
const { key } = await createApiKey(db, 'demo', { kind: 'secret', rateLimit: 1_000_000 });
const app = await buildApp({ db });
const origin = await app.listen({ port: 0, host: '127.0.0.1' });

const slugs = source.articles.filter((article) => article.status === 'published').map((a) => a.slug);
const referrers = [
  '',
  'https://www.google.com/',
  'https://news.ycombinator.com/item?id=1',
  'https://duckduckgo.com/',
];
for (let index = 0; index < pageViews; index++) {
  const created = await app.inject({
    method: 'POST',
    url: '/v1/analytics/track',
    headers: { 'x-api-key': key, 'user-agent': browserUa, 'content-type': 'application/json' },
    remoteAddress: `81.2.${index % 200}.${index % 250}`,
    payload: JSON.stringify({
      slug: slugs[index % slugs.length],
      referrer: referrers[index % referrers.length] || undefined,
      screenWidth: [390, 820, 1440][index % 3],
      fetchGeo: true,
    }),
  });
  const id = created.json().id;
  await app.inject({
    method: 'PUT',
    url: `/v1/analytics/track/${id}`,
    headers: { 'x-api-key': key, 'user-agent': browserUa, 'content-type': 'application/json' },
    payload: JSON.stringify({
      scrollDepth: (index * 37) % 101,
      exitPosition: (index * 37) % 101,
      timeOnPage: index % 400,
    }),
  });
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
const times: number[] = [];
let transferred = 0;
for (let run = 0; run < runs; run++) {
  const context = await browser.newContext();
  await context.addInitScript(`sessionStorage.setItem('folio.dashboard.key', ${JSON.stringify(key)})`);
  const page = await context.newPage();
  let bytes = 0;
  page.on('response', async (response) => {
    const length = Number(
      response.headers()['content-length'] ?? (await response.body().catch(() => '')).length,
    );
    if (/\/dashboard/.test(response.url())) bytes += length;
  });
  const started = Date.now();
  await page.goto(`${origin}/dashboard`);
  await page.waitForSelector('.wide .chart canvas');
  await page.waitForSelector('.bars li');
  times.push(Date.now() - started);
  transferred = bytes;
  await context.close();
}
await browser.close();

const assets = await Promise.all(
  ['/dashboard', '/dashboard/app.js', '/dashboard/app.css'].map(async (url) => {
    const plain = await app.inject({ url });
    const gzip = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    return { url, bytes: plain.rawPayload.length, gzipped: gzip.rawPayload.length };
  }),
);
times.sort((a, b) => a - b);
console.log(
  `dashboard first load on the demo blog (${source.articles.length} articles, ${pageViews} page views), load ${process.env.BENCH_LOAD ?? ''}`,
);
console.table(assets);
console.log(
  `page + assets as transferred (gzip): ${transferred} bytes (HTML ${assets[0].bytes} B uncompressed)`,
);
console.log(
  `navigation → figures and chart shown, ${runs} cold runs: median ${times[Math.floor(times.length / 2)]} ms, min ${times[0]} ms, max ${times.at(-1)} ms`,
);
await app.close();
await db.close();
rmSync(dir, { recursive: true, force: true });
