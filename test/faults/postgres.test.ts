// A PostgreSQL that freezes (SIGSTOP: a hung host or a partition), stops or loses its sessions,
// under the real server. The process must never exit; requests answer 503 with Retry-After instead
// of hanging or failing with 500; /health and /ready stay 200 (the outage is told in /ready's
// body); the server serves again by itself once the database is back, listening to its change
// notifications again; and no view answered 201 is lost or stored twice.
// FAULT_REPEAT=10 repeats each stop under load ten times (the figures go to FAULTS_REPORT).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { revokeApiKey } from '../../src/projects/queries.ts';
import { browser } from '../analytics/support.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  importArticles,
  storedPageViewIds,
  type TestProject,
} from '../helpers.ts';
import { type Answer, brokenAnswer, Load } from './load.ts';
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

const repeat = Math.max(1, Number(process.env.FAULT_REPEAT ?? 1));

describe(
  'fault: PostgreSQL frozen, stopped or cut off under the real server',
  {
    skip,
    timeout: 90_000 + repeat * 3 * 15_000,
  },
  () => {
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
      project = await createTestProject(db, { rateLimit: 1_000_000 });
      await importArticles(db, project.project, [
        articleInput({ slug: 'hello' }),
        articleInput({ slug: 'other' }),
      ]);
      folio = await startFolio({ DATABASE_URL: postgres.url, LOG_LEVEL: 'info' });
    });

    after(async () => {
      await folio?.service.stop();
      await db?.close();
      await postgres?.stopForGood();
    });

    const get = (path: string, headers = project.headers) => timedFetch(`${folio.base}${path}`, { headers });
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
      if (what === '/ready') {
        assertOutageReported(answer);
        return;
      }
      assert.equal(answer.status, 503, `${what}: ${answer.status} ${answer.body}`);
      assert.equal(answer.headers!.get('retry-after'), '5', what);
      assert.ok(answer.headers!.get('x-request-id'), what);
      const body = JSON.parse(answer.body);
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
        for (const [index, answer] of answers.entries())
          if (index > 0) assertUnavailable(answer, names[index]);
      }
      report(`${label}: statuses ${JSON.stringify(seen)}; slowest answer ${Math.round(slowest)} ms`);
    }

    /** A shared database's outage does not make the instance unready: /ready tells it in its body. */
    function assertOutageReported(answer: Timed): void {
      assert.equal(answer.status, 200, `/ready during the outage: ${answer.status} ${answer.body}`);
      const body = JSON.parse(answer.body);
      assert.equal(body.status, 'degraded', answer.body);
      assert.match(body.checks.database, /^The database /, answer.body);
    }

    /** Resolves once `request` is answered `status`, polling for up to 15 s; the seconds it took. */
    async function until(request: () => Promise<Timed>, status: number, what: string): Promise<number> {
      const started = performance.now();
      let answer = await request();
      while (answer.status !== status && performance.now() - started < 15_000) {
        await sleep(25);
        answer = await request();
      }
      assert.equal(answer.status, status, `${what}: ${answer.status} ${answer.body}`);
      return (performance.now() - started) / 1000;
    }

    async function recovery(label: string, returned: number): Promise<void> {
      const seconds = await until(() => get('/v1/articles'), 200, 'a read once the database is back');
      const written = await trackView();
      assert.equal(written.status, 201, written.body);
      report(
        `${label}: served again ${seconds.toFixed(2)} s after the database returned (${((performance.now() - returned) / 1000).toFixed(2)} s with the first write)`,
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

    test('stopped and started again: 503 while it is down, served again without a restart', async () => {
      await postgres.stop();
      try {
        await duringFault('PostgreSQL stopped');
      } finally {
        await postgres.start();
      }
      await recovery('PostgreSQL stopped then started', performance.now());
    });

    interface Outcome {
      crashed: boolean;
      accepted: number;
      lost: number;
      broken: string[];
      outage: Answer[];
      answers: Answer[];
      readyDuringOutage: Timed | null;
      servedAgainSeconds: number;
      /** folio_database_up while down and once served again, and the outages counted meanwhile. */
      metrics: { upWhileDown: string | null; upAfter: string | null; outages: number };
      /** Log lines saying the database went down, and came back. */
      logged: { down: number; up: number };
    }

    const faults: Array<{ name: string; down: boolean; apply(): Promise<unknown> }> = [
      { name: 'pg_ctl stop -m immediate', down: true, apply: () => postgres.stopWith('immediate') },
      { name: 'pg_ctl stop -m fast', down: true, apply: () => postgres.stopWith('fast') },
      {
        name: "pg_terminate_backend of the server's sessions",
        down: false,
        apply: () => postgres.terminateSessions(),
      },
    ];

    /** One fault under load: 12 clients tracking, updating and reading before, during and after it. */
    async function underLoad(fault: (typeof faults)[number]): Promise<Outcome> {
      if (!folio.service.running) folio = await startFolio({ DATABASE_URL: postgres.url, LOG_LEVEL: 'info' });
      const load = new Load(folio.base, project.headers);
      const outagesBefore = Number(
        metric(await timedFetch(`${folio.base}/metrics`), 'folio_database_outages_total'),
      );
      const linesBefore = folio.service.output.length;
      let upWhileDown: string | null = null;
      load.start(12);
      await sleep(400);
      await fault.apply();
      const downAt = performance.now();
      let readyDuringOutage: Timed | null = null;
      await sleep(600);
      if (fault.down) {
        readyDuringOutage = await timedFetch(`${folio.base}/ready`);
        upWhileDown = metric(await timedFetch(`${folio.base}/metrics`), 'folio_database_up');
        await sleep(200);
      }
      const returnedAt = performance.now();
      if (fault.down) await postgres.start();
      // Served again: a view sent after the database returned is answered 201.
      const deadline = performance.now() + 15_000;
      const servedAgain = () =>
        load.answers.find(
          (answer) => answer.what === 'POST track' && answer.status === 201 && answer.startedAt > returnedAt,
        );
      while (servedAgain() === undefined && performance.now() < deadline && folio.service.running)
        await sleep(20);
      await sleep(300);
      await load.stop();
      const back = servedAgain();
      // The test's own handle may still wait for its next check of the database.
      await until(
        async () => ({ status: (await db.checkHealth()).up ? 200 : 0 }) as Timed,
        200,
        'up for the test',
      );
      const ids = new Set(await storedPageViewIds(db));
      const stored = load.accepted.filter((id) => ids.has(id));
      const after = await timedFetch(`${folio.base}/metrics`);
      return {
        crashed: !folio.service.running,
        accepted: load.accepted.length,
        lost: load.accepted.length - new Set(stored).size,
        broken: [
          ...new Set(load.answers.map(brokenAnswer).filter((reason): reason is string => reason !== null)),
          ...(stored.length === new Set(stored).size ? [] : ['a view is stored twice']),
        ],
        outage: fault.down ? load.between(downAt, returnedAt) : [],
        answers: load.answers,
        readyDuringOutage,
        servedAgainSeconds: back === undefined ? Number.NaN : (back.startedAt + back.ms - returnedAt) / 1000,
        metrics: {
          upWhileDown,
          upAfter: metric(after, 'folio_database_up'),
          outages: Number(metric(after, 'folio_database_outages_total')) - outagesBefore,
        },
        logged: {
          down: count(folio.service.output.slice(linesBefore), '"msg":"database unreachable'),
          up: count(folio.service.output.slice(linesBefore), '"msg":"database reachable again'),
        },
      };
    }

    function metric(answer: Timed, name: string): string | null {
      return new RegExp(`^${name} (\\S+)$`, 'm').exec(answer.body)?.[1] ?? null;
    }

    function count(text: string, fragment: string): number {
      return text.split('\n').filter((line) => line.includes(fragment)).length;
    }

    /** A key revoked now is refused on the next request: the server hears the change again. */
    /** Requests the revoked key was still served (it is heard of by a notification). */
    async function assertNotificationsHeard(): Promise<number> {
      await until(
        async () => {
          const ready = await timedFetch(`${folio.base}/ready`);
          return {
            ...ready,
            status: JSON.parse(ready.body || '{}').checks?.notifications === 'ok' ? 200 : 0,
          };
        },
        200,
        'listening to change notifications again',
      );
      const other = await createTestKey(db, project.project, { rateLimit: 1_000_000 });
      // Twice: the second answer comes from the key the server keeps while nothing changed.
      for (let i = 0; i < 2; i++) assert.equal((await get('/v1/articles', other.headers)).status, 200);
      await revokeApiKey(db.kysely, other.keyId, new Date().toISOString());
      // The server hears of the revocation by a notification, which may arrive a moment after the
      // commit answered here: a server that does not hear it would serve the kept key for ever.
      const started = performance.now();
      let refused = await get('/v1/articles', other.headers);
      let served = 0;
      while (refused.status === 200 && performance.now() - started < 2000) {
        served++;
        await sleep(10);
        refused = await get('/v1/articles', other.headers);
      }
      // 429: requests without a valid key have a budget of their own, which the tries before used.
      const refusedAsUnknown =
        refused.status === 401 || (refused.status === 429 && /20 requests per minute/.test(refused.body));
      assert.ok(refusedAsUnknown, `a key revoked after the recovery: ${refused.status} ${refused.body}`);
      return served;
    }

    function reportOutcomes(
      fault: (typeof faults)[number],
      outcomes: Outcome[],
      heard: Array<number | string>,
    ) {
      const tally = (answers: Answer[]) => {
        const statuses: Record<string, number> = {};
        for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        return JSON.stringify(statuses);
      };
      const sum = (pick: (outcome: Outcome) => number) =>
        outcomes.reduce((total, outcome) => total + pick(outcome), 0);
      const crashes = outcomes.filter((outcome) => outcome.crashed).length;
      report(
        [
          `${fault.name} under load, ${outcomes.length} tries: ${crashes} crashes`,
          `${sum((outcome) => outcome.lost)} of ${sum((outcome) => outcome.accepted)} views answered 201 lost`,
          `answers while down ${tally(outcomes.flatMap((outcome) => outcome.outage))}`,
          `all answers ${tally(outcomes.flatMap((outcome) => outcome.answers))}`,
          `served again after (s) ${outcomes.map((outcome) => outcome.servedAgainSeconds.toFixed(2)).join(', ')}`,
          `requests a key revoked after recovery was still served ${JSON.stringify(heard)}`,
          `broken answers ${JSON.stringify(outcomes.flatMap((outcome) => outcome.broken).slice(0, 5))}`,
        ].join('; '),
      );
    }

    function assertOutcome(fault: (typeof faults)[number], outcome: Outcome): void {
      assert.equal(outcome.crashed, false, `the server exited: ${folio.service.output.slice(-2000)}`);
      assert.deepEqual(outcome.broken, []);
      assert.equal(outcome.lost, 0);
      assert.ok(outcome.accepted > 0);
      assert.ok(Number.isFinite(outcome.servedAgainSeconds), 'served again');
      // Once served again, the database is up, and each outage was logged once, however many
      // requests it refused.
      assert.equal(outcome.metrics.upAfter, '1');
      assert.equal(outcome.logged.down, outcome.metrics.outages, folio.service.output.slice(-3000));
      assert.equal(outcome.logged.up, outcome.metrics.outages);
      if (!fault.down) return;
      assert.equal(outcome.metrics.upWhileDown, '0');
      assert.equal(outcome.metrics.outages, 1);
      assert.ok(outcome.outage.length > 0, 'requests were sent while the database was down');
      for (const answer of outcome.outage) assert.equal(answer.status, 503, `${answer.what} while down`);
      assertOutageReported(outcome.readyDuringOutage!);
    }

    for (const fault of faults) {
      test(`${fault.name} under load: no exit, 503 + Retry-After meanwhile, /ready 200, every 201 stored once, recovery`, async () => {
        const outcomes: Outcome[] = [];
        const heard: Array<number | string> = [];
        for (let attempt = 0; attempt < repeat; attempt++) {
          const outcome = await underLoad(fault);
          outcomes.push(outcome);
          if (!outcome.crashed)
            heard.push(await assertNotificationsHeard().catch((error: Error) => error.message));
        }
        reportOutcomes(fault, outcomes, heard);
        for (const outcome of outcomes) assertOutcome(fault, outcome);
        for (const served of heard) assert.equal(typeof served, 'number', String(served));
      });
    }

    test('no write answered 201 is lost', async () => {
      const stored = new Set(await storedPageViewIds(db));
      const lost = accepted.filter((id) => !stored.has(id));
      report(
        `PostgreSQL frozen or stopped without load: ${accepted.length} writes answered 201, ${lost.length} lost; ${refused.length} answered 503`,
      );
      assert.deepEqual(lost, []);
      assert.ok(accepted.length >= 7);
    });
  },
);
