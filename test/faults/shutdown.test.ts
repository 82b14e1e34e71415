// SIGTERM under load, on the real server: requests in flight complete (none is reset), their
// page-view writes are committed, and a slow upload cannot hold the process past its deadline.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { browser } from '../analytics/support.ts';
import {
  articleInput,
  createTestProject,
  importArticles,
  storedPageViewIds,
  type TestProject,
} from '../helpers.ts';
import { type Folio, report, sleep, startFolio, timedFetch } from './support.ts';

interface Upload {
  /** Sends the rest of the body. */
  finish(): void;
  answer: Promise<{ status: number | string; body: string; headers: Record<string, unknown> }>;
}

/** A kept-alive connection on which requests are sent one at a time. */
class KeptAlive {
  readonly socket: Socket;
  #received = '';
  #waiting: (() => void) | null = null;
  /** Resolves when the server closes the connection. */
  readonly closed: Promise<void>;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk) => {
      this.#received += chunk;
      this.#waiting?.();
    });
    this.socket.on('error', () => {});
    this.closed = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.#waiting?.();
        resolve();
      }),
    );
  }

  /** Sends a GET and reads its whole answer (by Content-Length), or what came before a close. */
  async get(path: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    this.#received = '';
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    for (;;) {
      const end = this.#received.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = this.#received.slice(0, end).split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const at = line.indexOf(':');
          headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
        }
        const body = this.#received.slice(end + 4);
        if (Buffer.byteLength(body) >= Number(headers['content-length'] ?? 0)) {
          return { status: Number(statusLine!.split(' ')[1]), headers, body };
        }
      }
      if (this.socket.destroyed) return { status: 0, headers: {}, body: this.#received };
      await new Promise<void>((resolve) => (this.#waiting = resolve));
    }
  }
}

/** A POST whose headers and first half of the body are sent now, the rest on `finish()`. */
function startUpload(base: string, headers: Record<string, string>, body: string): Upload {
  const url = new URL('/v1/analytics/track', base);
  const half = Math.floor(body.length / 2);
  const req = request(url, {
    method: 'POST',
    agent: false,
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) },
  });
  const answer = new Promise<{ status: number | string; body: string; headers: Record<string, unknown> }>(
    (resolve) => {
      req.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, body: text, headers: response.headers }),
        );
        response.on('error', (error) =>
          resolve({ status: `error:${(error as NodeJS.ErrnoException).code}`, body: '', headers: {} }),
        );
      });
      req.on('error', (error) =>
        resolve({ status: `error:${(error as NodeJS.ErrnoException).code}`, body: '', headers: {} }),
      );
    },
  );
  req.write(body.slice(0, half));
  return {
    finish: () => req.end(body.slice(half)),
    answer,
  };
}

/**
 * The real server on an SQLite file of its own with one article, `hello`, and the given shutdown
 * deadline; filled in before the suite's tests, stopped and removed after them.
 */
function servedOnSqlite(shutdownTimeoutMs: number): { db: Db; project: TestProject; folio: Folio } {
  const dir = mkdtempSync(join(tmpdir(), 'folio-faults-'));
  const path = join(dir, 'folio.db');
  const served = {} as { db: Db; project: TestProject; folio: Folio };
  before(async () => {
    served.db = openDatabase(path);
    await migrateToLatest(served.db);
    served.project = await createTestProject(served.db);
    await importArticles(served.db, served.project.project, [articleInput({ slug: 'hello' })]);
    served.folio = await startFolio({ DATABASE_URL: path, SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs) });
  });
  after(async () => {
    await served.folio?.service.stop();
    await served.db?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return served;
}

describe('fault: SIGTERM under load on the real server', { timeout: 60_000 }, () => {
  const served = servedOnSqlite(1500);

  test('in-flight requests complete, their writes commit, a stalled upload is cut, the process exits 0', async () => {
    const headers = { ...served.project.headers, 'user-agent': browser };
    const body = JSON.stringify({ slug: 'hello', pageTitle: 'A page title long enough to split' });
    // The server has answered a request, so every upload below reaches a warm process.
    assert.equal((await timedFetch(`${served.folio.base}/health`)).status, 200);
    const uploads = Array.from({ length: 32 }, () => startUpload(served.folio.base, headers, body));
    const stalled = startUpload(served.folio.base, headers, body);
    // Let the server read their headers: a request it has not seen yet is refused with 503 (below).
    await sleep(300);
    const signalled = performance.now();
    served.folio.service.child.kill('SIGTERM');
    await sleep(100);
    for (const upload of uploads) upload.finish();
    const answers = await Promise.all(uploads.map((upload) => upload.answer));
    const exit = await served.folio.service.exited;
    const exitSeconds = (performance.now() - signalled) / 1000;
    const stalledAnswer = await stalled.answer;

    const statuses: Record<string, number> = {};
    for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    const accepted = answers
      .filter((answer) => answer.status === 201)
      .map((answer) => JSON.parse(answer.body).id);
    const stored = new Set(await storedPageViewIds(served.db));
    const lost = accepted.filter((id) => !stored.has(id));
    report(
      `SIGTERM with 32 uploads in flight + 1 stalled: statuses ${JSON.stringify(statuses)}; stalled upload: ${stalledAnswer.status}; exit code ${exit.code} after ${exitSeconds.toFixed(2)} s (SHUTDOWN_TIMEOUT_MS=1500); writes answered 201: ${accepted.length}, lost: ${lost.length}`,
    );
    for (const answer of answers) {
      // None is reset: each completes, or (not yet seen by the server) is refused in the error shape.
      if (answer.status === 201) continue;
      assert.equal(answer.status, 503, `${answer.status} ${answer.body}`);
      assert.equal(answer.headers['retry-after'], '5');
      assert.ok(answer.headers['x-request-id']);
    }
    assert.ok(accepted.length > 0, 'requests in flight at SIGTERM complete');
    assert.deepEqual(lost, []);
    assert.equal(exit.code, 0, served.folio.service.output);
    // The writer's last roll-up ran before the database closed: every view is counted, none is left
    // queued for the next instance, and nothing was logged about it.
    const queued = await sql<{ n: number }>`select count(*) as n from rollup_queue`.execute(served.db.kysely);
    assert.equal(Number(queued.rows[0].n), 0, served.folio.service.output);
    const counted = await sql<{
      n: number;
    }>`select coalesce(sum(view_count), 0) as n from article_views`.execute(served.db.kysely);
    assert.equal(Number(counted.rows[0].n), accepted.length);
    assert.doesNotMatch(served.folio.service.output, /not rolled up at close|database is closed/);
    // The stalled upload held the process only until the shutdown deadline, then it was cut.
    assert.match(String(stalledAnswer.status), /^error:/);
  });
});

describe('fault: SIGTERM with kept-alive connections and an upload in progress', { timeout: 60_000 }, () => {
  const served = servedOnSqlite(5000);

  test('a request on a kept-alive connection gets 503 + Connection: close, a slow upload begun before completes with 201', async () => {
    const port = Number(new URL(served.folio.base).port);
    const kept = new KeptAlive(port);
    const first = await kept.get('/health');
    assert.equal(first.status, 200);
    assert.notEqual(first.headers.connection, 'close', 'the connection is kept alive');
    const headers = { ...served.project.headers, 'user-agent': browser };
    const upload = startUpload(
      served.folio.base,
      headers,
      JSON.stringify({ slug: 'hello', pageTitle: 'An upload sent slowly' }),
    );
    // Let the server read the upload's headers: it is then in flight.
    await sleep(300);
    const signalled = performance.now();
    served.folio.service.child.kill('SIGTERM');
    await sleep(100);
    const refused = await kept.get('/health');
    // The rest of the body arrives well after the signal, within SHUTDOWN_TIMEOUT_MS.
    await sleep(700);
    upload.finish();
    const uploaded = await upload.answer;
    await kept.closed;
    const exit = await served.folio.service.exited;
    const exitSeconds = (performance.now() - signalled) / 1000;
    report(
      `SIGTERM with a kept-alive connection and an upload in flight: request on the kept-alive connection ${refused.status} (Connection: ${refused.headers.connection}); upload finished 0.8 s after the signal: ${uploaded.status}; exit code ${exit.code} after ${exitSeconds.toFixed(2)} s (SHUTDOWN_TIMEOUT_MS=5000)`,
    );
    assert.equal(refused.status, 503, refused.body);
    assert.equal(refused.headers.connection, 'close');
    assert.equal(refused.headers['retry-after'], '5');
    assert.ok(refused.headers['x-request-id']);
    const body = JSON.parse(refused.body);
    assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'statusCode']);
    assert.equal(body.statusCode, 503);
    assert.equal(body.error, 'Service Unavailable');
    assert.equal(uploaded.status, 201, uploaded.body);
    assert.equal(uploaded.headers.connection, 'close');
    const { id } = JSON.parse(uploaded.body);
    assert.ok((await storedPageViewIds(served.db)).includes(id), 'the upload answered 201 is committed');
    assert.equal(exit.code, 0, served.folio.service.output);
  });
});
