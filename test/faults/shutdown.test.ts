// SIGTERM under load, on the real server: requests in flight complete (none is reset), their
// page-view writes are committed, and a slow upload cannot hold the process past its deadline.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { browser } from '../analytics/support.ts';
import { articleInput, createTestProject, importArticles, type TestProject } from '../helpers.ts';
import { type Folio, report, sleep, startFolio, timedFetch } from './support.ts';

interface Upload {
  /** Sends the rest of the body. */
  finish(): void;
  answer: Promise<{ status: number | string; body: string; headers: Record<string, unknown> }>;
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

describe('fault: SIGTERM under load on the real server', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-faults-'));
  const path = join(dir, 'folio.db');
  let db: Db;
  let project: TestProject;
  let folio: Folio;

  before(async () => {
    db = openDatabase(path);
    await migrateToLatest(db);
    project = await createTestProject(db);
    await importArticles(db, project.project, [articleInput({ slug: 'hello' })]);
    folio = await startFolio({ DATABASE_URL: path, SHUTDOWN_TIMEOUT_MS: '1500' });
  });

  after(async () => {
    await folio?.service.stop();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('in-flight requests complete, their writes commit, a stalled upload is cut, the process exits 0', async () => {
    const headers = { ...project.headers, 'user-agent': browser };
    const body = JSON.stringify({ slug: 'hello', pageTitle: 'A page title long enough to split' });
    // The server has answered a request, so every upload below reaches a warm process.
    assert.equal((await timedFetch(`${folio.base}/health`)).status, 200);
    const uploads = Array.from({ length: 32 }, () => startUpload(folio.base, headers, body));
    const stalled = startUpload(folio.base, headers, body);
    // Let the server read their headers: a request it has not seen yet is refused with 503 (below).
    await sleep(300);
    const signalled = performance.now();
    folio.service.child.kill('SIGTERM');
    await sleep(100);
    for (const upload of uploads) upload.finish();
    const answers = await Promise.all(uploads.map((upload) => upload.answer));
    const exit = await folio.service.exited;
    const exitSeconds = (performance.now() - signalled) / 1000;
    const stalledAnswer = await stalled.answer;

    const statuses: Record<string, number> = {};
    for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    const accepted = answers
      .filter((answer) => answer.status === 201)
      .map((answer) => JSON.parse(answer.body).id);
    const { rows } = await sql<{ id: string }>`select id from page_views`.execute(db.kysely);
    const stored = new Set(rows.map((row) => row.id));
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
    assert.equal(exit.code, 0, folio.service.output);
    // The stalled upload held the process only until the shutdown deadline, then it was cut.
    assert.match(String(stalledAnswer.status), /^error:/);
  });
});
