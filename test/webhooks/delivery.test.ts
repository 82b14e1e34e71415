// Delivery end to end, on a real receiver on 127.0.0.1: retries after failures and timeouts, the
// signature, the log, failures past the last retry, the address check again at delivery, events
// that survive an app closed before (or during) their delivery, and requests a dead receiver does
// not slow.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Db } from '../../src/db/database.ts';
import { recordEvents } from '../../src/db/outbox.ts';
import { verifyWebhookSignature } from '../../src/webhooks/public.ts';
import {
  configuredDialects,
  createTestDatabase,
  createTestProject,
  eventually,
  getJson,
  type TestDatabase,
  type TestProject,
} from '../helpers.ts';
import { createHook, deliveryRows, Receiver, stubbedHosts, testWebhookOptions } from './support.ts';

async function recordEvent(
  db: Db,
  projectId: string,
  type: 'article.updated' | 'tag.created',
  data: Record<string, unknown>,
) {
  const [id] = await db.kysely.transaction().execute((trx) => recordEvents(trx, [{ projectId, type, data }]));
  return id!;
}

for (const dialect of configuredDialects()) {
  describe(`webhook delivery [${dialect}]`, () => {
    let database: TestDatabase;
    const apps: FastifyInstance[] = [];
    const receivers: Receiver[] = [];

    async function startApp(overrides: Record<string, unknown> = {}): Promise<FastifyInstance> {
      const app = await buildApp({ db: database.db, webhooks: testWebhookOptions(overrides) });
      apps.push(app);
      await app.ready();
      return app;
    }
    async function startReceiver(script?: ConstructorParameters<typeof Receiver>[0]) {
      const receiver = new Receiver(script);
      receivers.push(receiver);
      return { receiver, url: await receiver.start() };
    }
    const writer = (): Promise<TestProject> => createTestProject(database.db, { scopes: ['read', 'write'] });

    before(async () => {
      database = await createTestDatabase(dialect);
    });
    // Every app on the database delivers every project's events: each test's apps end with it.
    afterEach(async () => {
      for (const app of apps.splice(0)) await app.close();
      for (const receiver of receivers.splice(0)) await receiver.close();
    });
    after(async () => {
      await database.drop();
    });

    test('a 500, then a timeout, then a 2xx: retried, signed, logged attempt by attempt', async () => {
      const app = await startApp({ retryDelaysMs: [1_000, 1_000, 1_000] });
      const { receiver, url } = await startReceiver((index) =>
        index === 0 ? 500 : index === 1 ? 'hang' : 204,
      );
      const { project, headers } = await writer();
      const hook = await createHook(app, headers, { url, events: ['article.*'] });
      const eventId = await recordEvent(database.db, project.id, 'article.updated', {
        slug: 'hello',
        version: 2,
      });
      const log = async () =>
        (await getJson(app, `/v1/webhooks/${hook.id}/deliveries`, headers)).body.data[0] as
          Record<string, unknown> | undefined;

      const first = await eventually(async () => {
        const entry = await log();
        return entry?.lastStatusCode === 500 ? entry : undefined;
      });
      assert.equal(first.status, 'pending');
      assert.equal(first.attempts, 1);
      assert.equal(first.eventId, eventId);
      assert.equal(first.eventType, 'article.updated');
      assert.ok(typeof first.nextAttemptAt === 'string');
      const second = await eventually(async () => {
        const entry = await log();
        return entry?.attempts === 2 && entry.lastStatusCode === null && entry.status === 'pending'
          ? entry
          : undefined;
      });
      assert.equal(second.lastStatusCode, null);
      assert.match(String(second.lastError), /timed out/);
      const third = await eventually(async () => {
        const entry = await log();
        return entry?.status === 'delivered' ? entry : undefined;
      });
      assert.equal(third.attempts, 3);
      assert.equal(third.lastStatusCode, 204);
      assert.equal(third.lastError, null);
      assert.equal(third.nextAttemptAt, null);
      assert.equal(typeof third.durationMs, 'number');

      assert.equal(receiver.received.length, 3);
      for (const delivery of receiver.received) {
        assert.equal(delivery.headers['webhook-id'], eventId, 'one id on every retry, to dedupe by');
        assert.equal(delivery.headers['content-type'], 'application/json');
        assert.ok(verifyWebhookSignature(hook.secret, delivery.headers, delivery.body));
        assert.ok(
          !verifyWebhookSignature(hook.secret, delivery.headers, delivery.body.replace('hello', 'hellp')),
        );
        assert.ok(
          !verifyWebhookSignature(
            `whsec_${Buffer.alloc(32).toString('base64')}`,
            delivery.headers,
            delivery.body,
          ),
        );
        const body = JSON.parse(delivery.body);
        assert.deepEqual(Object.keys(body), ['type', 'timestamp', 'data']);
        assert.equal(body.type, 'article.updated');
        assert.deepEqual(body.data, { slug: 'hello', version: 2 });
        assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
      }
    });

    test('events go only to the webhooks subscribed to their type, of their own project', async () => {
      const app = await startApp();
      const tags = await startReceiver();
      const everything = await startReceiver();
      const { project, headers } = await writer();
      const other = await writer();
      await createHook(app, headers, { url: tags.url, events: ['tag.created'] });
      await createHook(app, headers, { url: everything.url });
      await createHook(app, other.headers, { url: everything.url });
      await recordEvent(database.db, project.id, 'article.updated', { slug: 'a' });
      await recordEvent(database.db, project.id, 'tag.created', { name: 'b' });
      await everything.receiver.waitFor(2);
      await tags.receiver.waitFor(1);
      // Everything fanned out: nothing more arrives.
      await eventually(async () => {
        const pending = await database.db.kysely
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('project_id', '=', project.id)
          .where('status', '=', 'pending')
          .execute();
        return pending.length === 0;
      });
      assert.deepEqual(
        tags.receiver.received.map((delivery) => JSON.parse(delivery.body).type),
        ['tag.created'],
      );
      assert.deepEqual(
        everything.receiver.received.map((delivery) => JSON.parse(delivery.body).type).sort(),
        ['article.updated', 'tag.created'],
      );
    });

    test('past the last retry the delivery is failed, with the last status code', async () => {
      const app = await startApp({ retryDelaysMs: [20] });
      const { receiver, url } = await startReceiver(() => 503);
      const { project, headers } = await writer();
      const hook = await createHook(app, headers, { url });
      await recordEvent(database.db, project.id, 'article.updated', { slug: 'x' });
      const [row] = await eventually(async () => {
        const rows = await deliveryRows(database.db, hook.id);
        return rows[0]?.status === 'failed' ? rows : undefined;
      });
      assert.equal(row!.attempts, 2);
      assert.equal(row!.last_status_code, 503);
      assert.equal(row!.next_attempt_at, null);
      assert.equal(receiver.received.length, 2);
    });

    test('the address is checked again at delivery: a host now resolving to a private address is not reached', async () => {
      const app = await startApp({ retryDelaysMs: [60_000] });
      const { receiver, url } = await startReceiver();
      stubbedHosts['rebinding.test'] = ['127.0.0.1'];
      const { project, headers } = await writer();
      const hook = await createHook(app, headers, { url: url.replace('127.0.0.1', 'rebinding.test') });
      stubbedHosts['rebinding.test'] = ['10.0.0.5'];
      await recordEvent(database.db, project.id, 'article.updated', { slug: 'x' });
      const [row] = await eventually(async () => {
        const rows = await deliveryRows(database.db, hook.id);
        return rows[0]?.attempts === 1 && rows[0].last_error !== null ? rows : undefined;
      });
      assert.match(row!.last_error!, /^refused: .*10\.0\.0\.5/);
      assert.equal(row!.status, 'pending');
      assert.equal(receiver.received.length, 0);
    });

    test('an event recorded while no dispatcher runs is delivered by the next app on the database', async () => {
      const { receiver, url } = await startReceiver();
      const { project, headers } = await writer();
      const quiet = await buildApp({ db: database.db, webhooks: testWebhookOptions({ dispatch: false }) });
      const hook = await createHook(quiet, headers, { url });
      const eventId = await recordEvent(database.db, project.id, 'article.updated', { slug: 'kept' });
      await quiet.close();
      assert.equal(receiver.received.length, 0);
      await startApp();
      await receiver.waitFor(1);
      assert.equal(receiver.received[0]!.headers['webhook-id'], eventId);
      await eventually(async () => (await deliveryRows(database.db, hook.id))[0]?.status === 'delivered');
    });

    test('an attempt cut by the app closing is made again by another app (at least once, same webhook-id)', async () => {
      const { receiver, url } = await startReceiver((index) => (index === 0 ? 'hang' : 200));
      const { project, headers } = await writer();
      const first = await startApp({ timeoutMs: 300 });
      const hook = await createHook(first, headers, { url });
      const eventId = await recordEvent(database.db, project.id, 'article.updated', { slug: 'cut' });
      await receiver.waitFor(1);
      await first.close();
      await startApp({ timeoutMs: 300 });
      await receiver.waitFor(2);
      assert.deepEqual(
        receiver.received.map((delivery) => delivery.headers['webhook-id']),
        [eventId, eventId],
      );
      const [row] = await eventually(async () => {
        const rows = await deliveryRows(database.db, hook.id);
        return rows[0]?.status === 'delivered' ? rows : undefined;
      });
      assert.equal(row!.attempts, 2);
    });

    test('a receiver that never answers slows no request', async () => {
      const app = await startApp({ timeoutMs: 60_000 });
      const { receiver, url } = await startReceiver(() => 'hang');
      const { project, headers } = await writer();
      await createHook(app, headers, { url });
      for (let index = 0; index < 5; index++) {
        await recordEvent(database.db, project.id, 'article.updated', { slug: `s${index}` });
      }
      await receiver.waitFor(5);
      // Every attempt is still hanging, and write requests (which wake the dispatcher) answer.
      for (let index = 0; index < 5; index++) {
        const response = await app.inject({
          method: 'POST',
          url: '/v1/webhooks',
          headers,
          payload: { url: 'https://hooks.example.com/', events: ['import.completed'] },
        });
        assert.equal(response.statusCode, 201);
        assert.equal((await getJson(app, '/v1/webhooks', headers)).status, 200);
      }
      assert.equal(receiver.received.length, 5);
      await app.close();
    });
  });
}
