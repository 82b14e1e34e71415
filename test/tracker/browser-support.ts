// What the browser tests share: where Chromium is (skipped without it, except under CI=true, where
// that is a failure), and a small site on 127.0.0.1 serving the pages a test renders.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Db } from '../../src/db/database.ts';
import type { PageViewTable } from '../../src/db/schema.ts';
import { rawPageViews } from '../analytics/support.ts';

export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Runs `suite` when Chromium is installed; else a skipped test named `name` (a failure under CI=true). */
export function whenChromium(name: string, suite: () => void): void {
  if (existsSync(chromiumPath)) return suite();
  const missing = `Chromium is not installed at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH): ${name} is skipped`;
  if (process.env.CI === 'true') test('Chromium is installed (CI=true)', () => assert.fail(missing));
  else test(name, { skip: missing }, () => {});
}

export interface PageSite {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  close(): Promise<void>;
}

/** Serves `render(url)` as HTML for every path but /favicon.ico (404). */
export async function servePages(render: (url: URL) => string): Promise<PageSite> {
  const site = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://site');
    if (url.pathname === '/favicon.ico') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(render(url));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
    close: async () => {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    },
  };
}

/** Waits (polling the database) until the project's page views satisfy `done`. */
export async function pageViewsWhen(
  db: Db,
  projectId: string,
  done: (rows: PageViewTable[]) => boolean,
): Promise<PageViewTable[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const rows = await rawPageViews(db, projectId);
    if (done(rows)) return rows;
    if (Date.now() > deadline) assert.fail(`page views never got there: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
