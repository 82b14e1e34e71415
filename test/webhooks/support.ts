// What the webhook tests share: a stubbed DNS (no test resolves a real name), a receiver on
// 127.0.0.1 that answers as each test scripts it, and waiting for the delivery log to settle.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/database.ts';
import type { HostLookup } from '../../src/webhooks/public.ts';

/** Names the tests use, and what they resolve to; any other name does not resolve. */
export const stubbedHosts: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'receiver.test': ['127.0.0.1'],
  'intranet.example.com': ['192.168.1.20'],
  'metadata.example.com': ['169.254.169.254'],
  'mixed.example.com': ['93.184.216.34', '10.1.2.3'],
  'v6-private.example.com': ['fd00::1'],
};

export const stubLookup: HostLookup = async (hostname) => {
  const addresses = stubbedHosts[hostname];
  if (addresses === undefined)
    throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

/** The webhook settings of a test app: 127.0.0.1 only, stubbed DNS, short timeouts and retries. */
export function testWebhookOptions(overrides: Record<string, unknown> = {}) {
  return {
    allowPrivate: ['127.0.0.1'],
    lookup: stubLookup,
    timeoutMs: 400,
    pollMs: 50,
    retryDelaysMs: [50, 50, 50],
    ...overrides,
  };
}

export interface ReceivedDelivery {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers its n-th request (from 0): a status, or `hang` (never answers). */
export type Answer = number | 'hang';

export class Receiver {
  readonly received: ReceivedDelivery[] = [];
  readonly #server: http.Server;
  #script: (index: number) => Answer;
  #waiters: Array<() => void> = [];

  constructor(script: (index: number) => Answer = () => 200) {
    this.#script = script;
    this.#server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const index = this.received.length;
        this.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        for (const wake of this.#waiters.splice(0)) wake();
        const answer = this.#script(index);
        if (answer === 'hang') return;
        response.writeHead(answer).end('ok');
      });
    });
  }

  set script(script: (index: number) => Answer) {
    this.#script = script;
  }

  async start(): Promise<string> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  /** Resolves once `count` requests have arrived (fails after `ms`). */
  async waitFor(count: number, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`receiver got ${this.received.length} of ${count} requests`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    this.#server.close();
  }
}

export async function createHook(
  app: FastifyInstance,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const response = await app.inject({ method: 'POST', url: '/v1/webhooks', headers, payload: body });
  if (response.statusCode !== 201) throw new Error(`webhook not created: ${response.body}`);
  return response.json().data;
}

export async function deliveryRows(db: Db, webhookId: string) {
  return db.kysely.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).execute();
}

/** Whether the outbox's event `id` was fanned out into deliveries (its dispatched_at is set). */
export async function eventDispatched(db: Db, id: string): Promise<boolean> {
  const row = await db.kysely
    .selectFrom('outbox_events')
    .select('dispatched_at')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.dispatched_at !== null;
}
