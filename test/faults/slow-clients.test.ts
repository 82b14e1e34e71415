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
import { type Folio, report, sleep, startFolio, timedFetch } from './support.ts';

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

/** A socket from `localAddress` that sends nothing; resolves once connected, tells when it closes. */
function idleSocket(
  port: number,
  localAddress: string,
): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    const closed = new Promise<string>((resolveClosed) => socket.on('close', () => resolveClosed(received)));
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, closed }));
  });
}

/** One GET /health on a fresh socket from `localAddress`: its status line, or '' when dropped. */
function healthFrom(port: number, localAddress: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => {});
    socket.on('connect', () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.on('close', () => resolve(received.split('\r\n')[0] ?? ''));
  });
}

describe('fault: one address cannot hold every connection', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-faults-'));
  let folio: Folio;

  before(async () => {
    const db = openDatabase(join(dir, 'folio.db'));
    await migrateToLatest(db);
    await db.close();
    folio = await startFolio({
      DATABASE_URL: join(dir, 'folio.db'),
      HEADERS_TIMEOUT_MS: '10000',
      REQUEST_TIMEOUT_MS: '10000',
      MAX_CONNECTIONS: '100',
      MAX_CONNECTIONS_PER_IP: '5',
    });
  });

  after(async () => {
    await folio?.service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('past MAX_CONNECTIONS_PER_IP an address is dropped at once, others are served, a freed slot is reused', async () => {
    const port = Number(new URL(folio.base).port);
    // Another loopback address stands for another client (the whole of 127/8 is local on Linux).
    const held = [];
    for (let i = 0; i < 5; i++) held.push(await idleSocket(port, '127.0.0.2'));
    const extra = await Promise.all(Array.from({ length: 3 }, () => idleSocket(port, '127.0.0.2')));
    const extraClosed = await Promise.all(extra.map((one) => one.closed));
    const refusedStatus = await healthFrom(port, '127.0.0.2');
    const otherStatus = await healthFrom(port, '127.0.0.3');
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await sleep(100);
    const afterFree = await healthFrom(port, '127.0.0.2');
    report(
      `MAX_CONNECTIONS_PER_IP=5: 5 idle sockets held from 127.0.0.2; 3 more dropped unanswered (${extraClosed.filter((text) => text === '').length}/3); a request from 127.0.0.2 '${refusedStatus}', from 127.0.0.3 '${otherStatus}'; after one is freed '${afterFree}'`,
    );
    assert.deepEqual(extraClosed, ['', '', ''], 'the connections past the cap are closed without an answer');
    assert.equal(refusedStatus, '');
    assert.equal(otherStatus, 'HTTP/1.1 200 OK');
    assert.equal(afterFree, 'HTTP/1.1 200 OK');
    for (const one of held) one.socket.destroy();
    assert.match(folio.service.output, /MAX_CONNECTIONS_PER_IP/);
  });
});
