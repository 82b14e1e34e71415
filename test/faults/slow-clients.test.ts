// Slow clients on the real server: bodies sent at a trickle are timed out (408) and their sockets
// closed, connections past MAX_CONNECTIONS are dropped at once instead of exhausting file
// descriptors, and the server goes on answering others.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { createTestProject } from '../helpers.ts';
import { type Folio, report, startFolio, timedFetch } from './support.ts';

interface Trickle {
  socket: Socket;
  /** What the server sent, and whether it closed the socket (never us). */
  closed: Promise<{ received: string; byServer: boolean }>;
  stop(): void;
}

/** A POST that announces 1,000 bytes of body and sends one every 100 ms. */
function trickle(port: number, key: string): Trickle {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', () => {});
  socket.on('connect', () => {
    socket.write(
      'POST /v1/analytics/track HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n' +
        `X-API-Key: ${key}\r\n\r\n`,
    );
    timer = setInterval(() => socket.writable && socket.write('{'), 100);
  });
  const closed = new Promise<{ received: string; byServer: boolean }>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ received, byServer: !stopped });
    }),
  );
  return {
    socket,
    closed,
    stop: () => {
      stopped = true;
      socket.destroy();
    },
  };
}

describe('fault: slow clients on the real server', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-faults-'));
  let folio: Folio;
  let key: string;

  before(async () => {
    const db = openDatabase(join(dir, 'folio.db'));
    await migrateToLatest(db);
    key = (await createTestProject(db)).key;
    await db.close();
    folio = await startFolio({
      DATABASE_URL: join(dir, 'folio.db'),
      REQUEST_TIMEOUT_MS: '1000',
      HEADERS_TIMEOUT_MS: '1000',
      MAX_CONNECTIONS: '40',
    });
  });

  after(async () => {
    await folio?.service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('trickling bodies get 408 and are closed, connections past the cap are dropped, others are served', async () => {
    const port = Number(new URL(folio.base).port);
    // 45 trickling uploads against a cap of 40 connections (one may be the test's own keep-alive).
    const sockets = Array.from({ length: 45 }, () => trickle(port, key));
    const closed = await Promise.all(sockets.map((one) => one.closed));
    const served = await timedFetch(`${folio.base}/health`);
    for (const one of sockets) one.stop();

    const timedOut = closed.filter((one) => one.received.startsWith('HTTP/1.1 408 ')).length;
    const dropped = closed.filter((one) => one.received === '').length;
    report(
      `slow bodies (1 byte/100 ms), 45 sockets, REQUEST_TIMEOUT_MS=1000, MAX_CONNECTIONS=40: ${timedOut} answered 408 and closed by the server, ${dropped} dropped unanswered at the cap; then /health ${served.status}`,
    );
    for (const one of closed) {
      assert.equal(one.byServer, true, 'the server closes every trickling socket');
      assert.match(one.received, /^$|^HTTP\/1\.1 408 /);
    }
    assert.ok(dropped >= 5 && dropped <= 6, `${dropped} connections dropped at the cap`);
    assert.equal(timedOut + dropped, 45);
    assert.equal(served.status, 200);
  });
});
