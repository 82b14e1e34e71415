// A PostgreSQL that freezes (SIGSTOP: a hung host or a partition) or stops, under the real server.
// Requests must answer 503 with Retry-After instead of hanging, /health must stay 200, the first
// request after the database returns must succeed, and no write answered 201 may be lost.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { browser } from '../analytics/support.ts';
import { articleInput, createTestProject, importArticles, type TestProject } from '../helpers.ts';
import {
  type Folio,
  missing,
  type Postgres,
  postgresBin,
  report,
  sleep,
  startFolio,
  startPostgres,
  type Timed,
  timedFetch,
} from './support.ts';

const bin = postgresBin();
const skip = missing('PostgreSQL (/usr/lib/postgresql/*/bin)', bin !== null);

describe('fault: PostgreSQL frozen or stopped under the real server', { skip, timeout: 90_000 }, () => {
  let postgres: Postgres;
  let folio: Folio;
  let db: Db;
  let project: TestProject;
  const accepted: string[] = [];
  const refused: number[] = [];

  before(async () => {
    postgres = await startPostgres(bin!);
    db = openDatabase(postgres.url, { poolSize: 2, queryTimeoutMs: 30_000, connectTimeoutMs: 30_000 });
    await migrateToLatest(db);
    project = await createTestProject(db);
    await importArticles(db, project.project, [
      articleInput({ slug: 'hello' }),
      articleInput({ slug: 'other' }),
    ]);
    folio = await startFolio({ DATABASE_URL: postgres.url });
  });

  after(async () => {
    await folio?.service.stop();
    await db?.close();
    await postgres?.stopForGood();
  });

  const get = (path: string) => timedFetch(`${folio.base}${path}`, { headers: project.headers });
  async function trackView(): Promise<Timed> {
    const answer = await timedFetch(`${folio.base}/v1/analytics/track`, {
      method: 'POST',
      headers: { ...project.headers, 'content-type': 'application/json', 'user-agent': browser },
      body: JSON.stringify({ slug: 'hello' }),
    });
    if (answer.status === 201) accepted.push(JSON.parse(answer.body).id);
    else refused.push(Number(answer.status));
    return answer;
  }

  function assertUnavailable(answer: Timed, what: string): void {
    assert.equal(answer.status, 503, `${what}: ${answer.status} ${answer.body}`);
    assert.equal(answer.headers!.get('retry-after'), '5', what);
    assert.ok(answer.headers!.get('x-request-id'), what);
    const body = JSON.parse(answer.body);
    if (what === '/ready') {
      assert.equal(body.status, 'unavailable');
      assert.match(body.checks.database, /^The database /);
      return;
    }
    assert.equal(body.error, 'Service Unavailable', what);
    assert.equal(body.statusCode, 503, what);
    assert.equal(typeof body.message, 'string', what);
  }

  async function duringFault(label: string): Promise<void> {
    const seen: Record<string, Array<string | number>> = {};
    let slowest = 0;
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all([
        get('/health'),
        get('/ready'),
        get('/v1/articles'),
        get('/v1/articles/hello'),
        trackView(),
        trackView(),
      ]);
      const names = [
        '/health',
        '/ready',
        'GET /v1/articles',
        'GET /v1/articles/hello',
        'POST track',
        'POST track',
      ];
      answers.forEach((answer, index) => {
        (seen[names[index]] ??= []).push(answer.status);
        slowest = Math.max(slowest, answer.ms);
      });
      assert.equal(answers[0].status, 200, '/health needs no database');
      for (const [index, answer] of answers.entries()) if (index > 0) assertUnavailable(answer, names[index]);
    }
    report(`${label}: statuses ${JSON.stringify(seen)}; slowest answer ${Math.round(slowest)} ms`);
  }

  async function recovery(label: string, returned: number): Promise<void> {
    const first = await get('/v1/articles');
    assert.equal(first.status, 200, `the first request after the database returned: ${first.body}`);
    const written = await trackView();
    assert.equal(written.status, 201, written.body);
    report(
      `${label}: first request after the database returned: ${first.status} after ${((performance.now() - returned) / 1000).toFixed(2)} s`,
    );
  }

  test('frozen (SIGSTOP): 503 + Retry-After instead of hanging, /health 200, recovery on SIGCONT', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await trackView()).status, 201);
    // Writes in flight when the database freezes: each is answered 201 (committed) or 503.
    const inFlight = Promise.all(Array.from({ length: 10 }, () => trackView()));
    await sleep(5);
    postgres.service.signal('SIGSTOP');
    for (const answer of await inFlight)
      assert.ok([201, 503].includes(Number(answer.status)), String(answer.status));
    try {
      await duringFault('PostgreSQL frozen (SIGSTOP)');
    } finally {
      postgres.service.signal('SIGCONT');
    }
    await recovery('PostgreSQL frozen (SIGSTOP)', performance.now());
  });

  test('stopped and started again: 503 while it is down, recovery on the first request', async () => {
    await postgres.stop();
    try {
      await duringFault('PostgreSQL stopped');
    } finally {
      await postgres.start();
    }
    await recovery('PostgreSQL stopped then started', performance.now());
  });

  test('no write answered 201 is lost', async () => {
    const { rows } = await sql<{ id: string }>`select id from page_views`.execute(db.kysely);
    const stored = new Set(rows.map((row) => row.id));
    const lost = accepted.filter((id) => !stored.has(id));
    report(
      `PostgreSQL faults: ${accepted.length} writes answered 201, ${lost.length} lost; ${refused.length} answered 503, of which ${rows.length - accepted.length} were stored all the same`,
    );
    assert.deepEqual(lost, []);
    assert.ok(accepted.length >= 7);
  });
});
