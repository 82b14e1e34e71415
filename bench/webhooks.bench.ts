// Webhook delivery, on SQLite and (with BENCH_POSTGRES_URL) PostgreSQL, to a receiver on 127.0.0.1
// in this process: how long after a change its event arrives (p50/p99), when the change was made
// by this instance (the dispatcher is nudged) and by another (found by the WEBHOOK_POLL_MS poll),
// then BENCH_WEBHOOK_CHANGES (1,000) changes recorded as fast as they commit: the time until all
// are delivered, the outbox and delivery tables meanwhile and after, and the latency of
// GET /v1/articles (over HTTP, one request at a time) quiet and during the burst. The server, the
// dispatcher and the receiver share this process, as a server and its dispatcher do.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { defaultWebhookConfig } from '../src/config.ts';
import { announceDuePublications } from '../src/content/announcements.ts';
import { importContent } from '../src/content/import.ts';
import { type Db, openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { recordEvents } from '../src/db/outbox.ts';
import { createApiKey, createProject } from '../src/projects/service.ts';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import { createWebhook } from '../src/webhooks/service.ts';
import { AddressPolicy } from '../src/webhooks/addresses.ts';
import { loadAverage, percentile, withPostgresDatabase } from './lib.ts';

const changes = Number(process.env.BENCH_WEBHOOK_CHANGES ?? 1_000);
const pollMs = defaultWebhookConfig.pollMs;

const ms = (value: number) => `${value.toFixed(1)} ms`;

class Receiver {
  readonly arrivals = new Map<string, number>();
  #waiting = new Map<string, () => void>();
  readonly server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      if (!this.arrivals.has(id)) this.arrivals.set(id, performance.now());
      this.#waiting.get(id)?.();
      response.writeHead(204).end();
    });
  });
  arrival(id: string): Promise<number> {
    const known = this.arrivals.get(id);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve) => this.#waiting.set(id, () => resolve(this.arrivals.get(id)!)));
  }
}

async function tableSizes(db: Db): Promise<string> {
  const count = async (table: 'outbox_events' | 'webhook_deliveries', where?: [string, string]) => {
    let query = db.kysely.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
    if (where) query = query.where(where[0] as never, '=', where[1] as never);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };
  return `outbox ${await count('outbox_events')} rows, deliveries ${await count('webhook_deliveries')} rows (${await count('webhook_deliveries', ['status', 'pending'])} pending)`;
}

async function bench(label: string, databaseUrl: string): Promise<void> {
  const db = openDatabase(databaseUrl, { poolSize: 10 });
  await migrateToLatest(db);
  const project = await createProject(db, { name: 'Bench', slug: 'bench', description: '' });
  const { key } = await createApiKey(db, 'bench', { kind: 'secret', rateLimit: 1_000_000 });
  await importContent(db, 'bench', {
    tags: [],
    articles: Array.from({ length: 50 }, (_, i) => ({
      file: `a${i}.md`,
      slug: `a${i}`,
      title: `Article ${i}`,
      excerpt: null,
      coverImage: null,
      status: 'published' as const,
      publishedAt: '2026-01-01T00:00:00.000Z',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      author: { name: 'Ada', image: null },
      lastUpdatedBy: null,
      tags: [],
      seo: null,
      variants: [],
      content: `Body ${i} `.repeat(200),
    })),
  });
  const receiver = new Receiver();
  receiver.server.listen(0, '127.0.0.1');
  await once(receiver.server, 'listening');
  const target = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`;
  const settings = { ...defaultWebhookConfig, allowPrivate: ['127.0.0.1'] };
  await createWebhook(db, project.id, { url: target }, new AddressPolicy(settings.allowPrivate));
  // The app serves requests; the dispatcher is this bench's, so that it can be nudged or not.
  const app = await buildApp({ db, webhooks: { dispatch: false } });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const dispatcher = new WebhookDispatcher(db, { settings, announce: announceDuePublications });
  dispatcher.start();
  const record = async (index: number) =>
    (
      await db.kysely
        .transaction()
        .execute((trx) =>
          recordEvents(trx, [
            { projectId: project.id, type: 'article.updated', data: { slug: `a${index % 50}`, index } },
          ]),
        )
    )[0]!;

  // Delay after a change made through this instance.
  const nudged: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    const id = await record(i);
    dispatcher.nudge();
    nudged.push((await receiver.arrival(id)) - started);
  }
  // Delay after a change made elsewhere (another instance, the CLI): the poll finds it.
  const polled: number[] = [];
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * pollMs));
    const started = performance.now();
    const id = await record(i);
    polled.push((await receiver.arrival(id)) - started);
  }
  console.log(
    `${label}: delivery delay after a change, this instance (nudged): p50 ${ms(percentile(nudged, 50))}, p99 ${ms(percentile(nudged, 99))} (200 changes); another instance (poll ${pollMs} ms): p50 ${ms(percentile(polled, 50))}, p99 ${ms(percentile(polled, 99))} (20 changes)`,
  );

  // Request latency quiet, then during a burst of changes.
  const latencies = async (until: () => boolean, atLeast: number) => {
    const values: number[] = [];
    while (!until() || values.length < atLeast) {
      const started = performance.now();
      const response = await fetch(`${base}/v1/articles?limit=10&sort=title`, {
        headers: { 'x-api-key': key },
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET /v1/articles answered ${response.status}`);
      values.push(performance.now() - started);
    }
    return values;
  };
  const quietEnd = performance.now() + 2_000;
  const quiet = await latencies(() => performance.now() > quietEnd, 50);

  const burstStart = performance.now();
  let recorded = 0;
  let peak = '';
  const ids: string[] = [];
  const burst = (async () => {
    for (let i = 0; i < changes; i++) {
      ids.push(await record(i));
      recorded++;
      dispatcher.nudge();
      if (i === Math.floor(changes / 2)) peak = await tableSizes(db);
    }
  })();
  let allDelivered = false;
  const delivered = (async () => {
    await burst;
    const recordedAfter = performance.now() - burstStart;
    await Promise.all(ids.map((id) => receiver.arrival(id)));
    allDelivered = true;
    return { recordedAfter, deliveredAfter: performance.now() - burstStart };
  })();
  const during = await latencies(() => allDelivered, 20);
  const { recordedAfter, deliveredAfter } = await delivered;
  console.log(
    `${label}: ${changes} changes recorded in ${ms(recordedAfter)}, all delivered ${ms(deliveredAfter)} after the first (${recorded} events); halfway: ${peak}; after: ${await tableSizes(db)}`,
  );
  console.log(
    `${label}: GET /v1/articles quiet p50 ${ms(percentile(quiet, 50))} p99 ${ms(percentile(quiet, 99))} (${quiet.length}); during the burst p50 ${ms(percentile(during, 50))} p99 ${ms(percentile(during, 99))} (${during.length})`,
  );

  await dispatcher.stop();
  await app.close();
  receiver.server.close();
  await db.close();
}

console.log(`load average: ${await loadAverage()}`);
if (process.env.BENCH_SKIP_SQLITE !== '1') {
  const dir = mkdtempSync(join(tmpdir(), 'folio-bench-webhooks-'));
  try {
    await bench('SQLite', join(dir, 'folio.db'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const postgres = process.env.BENCH_POSTGRES_URL;
if (postgres) await withPostgresDatabase(postgres, 'folio_bench_webhooks', (url) => bench('PostgreSQL', url));
