// Folio behind a real PgBouncer (Debian's, on a spare port, in front of the suite's PostgreSQL).
// In transaction mode a server connection serves whichever client runs a transaction next, so
// LISTEN lands on a connection other clients use and named prepared statements meet connections
// that do not hold them. Configured (DATABASE_POOL_MODE=transaction, the listener on a session of
// PostgreSQL itself), a fleet works as on PostgreSQL directly; not configured, it must still never
// trust a silence it cannot hear: a key revoked on one instance is refused at once by the other.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { buildApp } from '../../src/app.ts';
import { type Db, type OpenOptions, openDatabase } from '../../src/db/database.ts';
import { DatabaseUnavailableError } from '../../src/db/database-health.ts';
import { revokeApiKey } from '../../src/projects/service.ts';
import { track } from '../analytics/support.ts';
import {
  articleInput,
  createTestDatabase,
  createTestProject,
  getJson,
  importArticles,
  postgresUrl,
  type TestDatabase,
} from '../helpers.ts';
import { missing, type Pgbouncer, pgbouncerBin, sleep, startPgbouncer } from './support.ts';

const bin = pgbouncerBin();
const skip =
  postgresUrl === null
    ? 'needs TEST_POSTGRES_URL'
    : missing('PgBouncer (Debian package pgbouncer)', bin !== null);

const browser =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

/** Two instances (database handle and app) through the pooler, as a fleet behind a balancer. */
async function fleet(url: string, options: OpenOptions) {
  const instances: { db: Db; app: Awaited<ReturnType<typeof buildApp>> }[] = [];
  for (let index = 0; index < 2; index++) {
    const db = openDatabase(url, { poolSize: 3, ...options });
    instances.push({ db, app: await buildApp({ db, viewCountLagMs: 0 }) });
  }
  return {
    instances,
    close: async () => {
      for (const { app, db } of instances) {
        await app.close();
        await db.close();
      }
    },
  };
}

/** Tracks a view, sending it again after a 503 (as the tracker and the client do), and returns the final status. */
async function trackAgainAfter503(
  instance: { app: Awaited<ReturnType<typeof buildApp>> },
  key: string,
  slug: string,
) {
  for (let attempt = 0; ; attempt++) {
    const response = await track(
      instance.app,
      { slug },
      { headers: { 'x-api-key': key, 'user-agent': browser } },
    );
    if (response.statusCode !== 503 || attempt === 3) return response;
    assert.ok(response.headers['retry-after']);
  }
}

/**
 * Rolls up the queue, again after a DatabaseUnavailableError: an instance that finds a prepared
 * statement of another client's on its connection stops naming its own, and fails that one query,
 * as a tracked view gets one 503; the server's roll-up timer tries again at its next pass.
 */
async function rollUpAgainAfterUnavailable(db: Db) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await rollUpQueued(db);
    } catch (error) {
      if (!(error instanceof DatabaseUnavailableError) || attempt === 3) throw error;
    }
  }
}

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await sleep(50);
  return check();
}

/** The fleet's shared behaviour: tracking, counting, and a revoked key refused by the other instance. */
async function fleetWorks(
  first: { db: Db; app: Awaited<ReturnType<typeof buildApp>> },
  second: typeof first,
) {
  const { project, key, keyId, headers } = await createTestProject(first.db);
  await importArticles(first.db, project, [articleInput({ slug: 'post' })]);
  for (let index = 0; index < 12; index++) {
    const instance = index % 2 === 0 ? first : second;
    assert.equal((await trackAgainAfter503(instance, key, 'post')).statusCode, 201);
  }
  await rollUpAgainAfterUnavailable(first.db);
  await first.db.changesSeen();
  await second.db.changesSeen();
  for (const instance of [first, second]) {
    const article = await getJson(instance.app, '/v1/articles/post', headers);
    assert.equal(article.body.data.viewCount, 12);
  }
  // Known to both (their key lookups kept), then revoked through the second.
  assert.equal((await getJson(first.app, '/v1/project', headers)).status, 200);
  assert.equal((await getJson(second.app, '/v1/project', headers)).status, 200);
  await revokeApiKey(second.db, keyId);
  await first.db.changesSeen();
  assert.equal((await getJson(first.app, '/v1/project', headers)).status, 401);
  assert.equal((await getJson(second.app, '/v1/project', headers)).status, 401);
}

describe('behind PgBouncer', { skip }, () => {
  let database: TestDatabase;
  let transaction: Pgbouncer;
  let session: Pgbouncer;
  const warnings: string[] = [];
  const onWarning = (warning: Error & { code?: string }) => warnings.push(warning.code ?? warning.message);

  before(async () => {
    process.on('warning', onWarning);
    database = await createTestDatabase('postgres');
    transaction = await startPgbouncer(bin!, database.url, 'transaction');
    // Session mode gives each client connection a server connection for its life: enough for two
    // instances' pools and listeners.
    session = await startPgbouncer(bin!, database.url, 'session', 10);
  });
  after(async () => {
    process.off('warning', onWarning);
    await transaction?.service.stop();
    await session?.service.stop();
    await database?.drop();
  });

  test('in transaction mode, configured: no named statements, the listener on PostgreSQL itself, and a fleet that hears every change', async () => {
    const { instances, close } = await fleet(transaction.through(database.url), {
      poolMode: 'transaction',
      listenUrl: database.url,
    });
    try {
      const [first, second] = instances;
      // The key lookups are kept, and exact, because the listener hears the other instance.
      for (const { db } of instances) db.keysStamp();
      assert.ok(await waitUntil(() => instances.every(({ db }) => db.hearsChanges() === true), 10_000));
      await fleetWorks(first!, second!);
    } finally {
      await close();
    }
  });

  test('in session mode, nothing to configure', async () => {
    const { instances, close } = await fleet(session.through(database.url), {});
    try {
      for (const { db } of instances) db.keysStamp();
      assert.ok(await waitUntil(() => instances.every(({ db }) => db.hearsChanges() === true), 10_000));
      await fleetWorks(instances[0]!, instances[1]!);
    } finally {
      await close();
    }
  });

  test('in transaction mode, not configured: the listener knows it hears nothing and says so, and nothing is served stale', async () => {
    const { instances, close } = await fleet(transaction.through(database.url), {});
    try {
      for (const { db } of instances) db.keysStamp();
      // The probe sent through the pool is never heard: the listener does not count as listening.
      assert.ok(await waitUntil(() => warnings.includes('FOLIO_LISTEN_DEAF'), 15_000), warnings.join());
      assert.equal(instances[0]!.db.hearsChanges(), false);
      await fleetWorks(instances[0]!, instances[1]!);
    } finally {
      await close();
    }
  });
});
