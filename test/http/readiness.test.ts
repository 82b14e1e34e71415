// /ready's rule (it fails only for what is the instance's own) and a PostgreSQL outage as one
// instance sees it, in process: the database is cut off by a TCP proxy between the app and the
// test's PostgreSQL, so that the shared server itself is never stopped. The same faults with the
// real server and a PostgreSQL of their own, under load, are in test/faults/postgres.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { revokeApiKey } from '../../src/projects/queries.ts';
import { track } from '../analytics/support.ts';
import {
  articleInput,
  createTestDatabase,
  createTestKey,
  createTestProject,
  importArticles,
  postgresUrl,
  type TestDatabase,
  type TestProject,
} from '../helpers.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP proxy that can be cut (it stops listening and ends every connection) and restored. */
class CuttableProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  port = 0;

  constructor(target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => {
          this.#sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.#server.address() as { port: number }).port;
  }

  /** As a database host that went away: connections are refused, and those open are ended. */
  async cut(): Promise<void> {
    const closed = new Promise((resolve) => this.#server.close(resolve));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let value = await probe();
  for (let i = 0; i < 500 && !done(value); i++) {
    await sleep(20);
    value = await probe();
  }
  assert.ok(done(value), `${what}: ${JSON.stringify(value)}`);
  return value;
}

function metric(text: string, name: string): string | undefined {
  return new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
}

const pgSkip = postgresUrl ? false : 'TEST_POSTGRES_URL is not set';

describe('a PostgreSQL that goes away, as one instance sees it', { skip: pgSkip }, () => {
  let database: TestDatabase;
  let project: TestProject;

  before(async () => {
    database = await createTestDatabase('postgres');
    project = await createTestProject(database.db);
    await importArticles(database.db, project.project, [articleInput({ slug: 'hello' })]);
  });
  after(async () => database?.drop());

  test('cut off: 503 + Retry-After at once, /ready 200 telling it, one log line down and one up, metrics, notifications heard again', async (t) => {
    const target = new URL(database.url);
    const proxy = new CuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.listen();
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    const db = openDatabase(proxied.toString(), { connectTimeoutMs: 500, queryTimeoutMs: 1500 });
    const lines: string[] = [];
    const app = await buildApp({ db, logLevel: 'info', logStream: { write: (line) => lines.push(line) } });
    t.after(async () => {
      await app.close();
      await db.close();
      await proxy.cut();
    });
    const ready = () => app.inject({ url: '/ready' }).then((response) => response.json());
    await until(ready, (body) => body.status === 'ready', 'ready before the cut');
    const { headers, keyId } = await createTestKey(database.db, project.project);
    const before = new Map<string, string>();
    for (const url of ['/v1/articles', '/v1/articles/hello']) {
      const response = await app.inject({ url, headers });
      assert.equal(response.statusCode, 200);
      before.set(url, response.body);
    }

    await proxy.cut();
    const logged = (message: string) => lines.filter((line) => line.includes(`"msg":"${message}`)).length;
    const unavailable = (response: {
      statusCode: number;
      body: string;
      headers: Record<string, unknown>;
    }) => {
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.headers['retry-after'], '5');
      assert.equal(JSON.parse(response.body).error, 'Service Unavailable');
    };
    const readsAndTrack = () =>
      Promise.all([
        app.inject({ url: '/v1/articles', headers }),
        app.inject({ url: '/v1/articles/hello', headers }),
        track(app, { slug: 'hello' }, { headers }),
      ]);
    for (let round = 0; round < 10; round++) {
      const [list, article, tracked] = await readsAndTrack();
      // A view is never acknowledged without the database. A read may still be answered from what
      // was kept before the cut, in the moment before the instance hears of it: the same bytes.
      unavailable(tracked);
      if (list.statusCode === 200) assert.equal(list.body, before.get('/v1/articles'));
      else unavailable(list);
      if (article.statusCode === 200) assert.equal(article.body, before.get('/v1/articles/hello'));
      else unavailable(article);
    }
    await until(
      async () => db.health().up,
      (up) => !up,
      'the database seen down',
    );
    await until(
      async () => db.keysStamp(),
      (stamp) => stamp === null,
      'the notifications heard lost',
    );
    // Heard: nothing kept is trusted any more.
    for (const response of await readsAndTrack()) unavailable(response);
    const down = await app.inject({ url: '/ready' });
    assert.equal(down.statusCode, 200, down.body);
    assert.equal(down.json().status, 'degraded');
    assert.equal(down.json().checks.database, 'The database cannot be reached (connection refused)');
    assert.notEqual(down.json().checks.notifications, 'ok');
    const metrics = (await app.inject({ url: '/metrics' })).body;
    assert.equal(metric(metrics, 'folio_database_up'), '0');
    assert.equal(metric(metrics, 'folio_database_outages_total'), '1');
    assert.equal(metric(metrics, 'folio_database_notifications_up'), '0');
    // Thirty refused requests and more checks, one line.
    assert.equal(logged('database unreachable'), 1, lines.join(''));
    assert.equal(logged('database unavailable'), 0);

    await proxy.listen();
    await until(
      () => app.inject({ url: '/v1/articles', headers }).then((response) => response.statusCode),
      (status) => status === 200,
      'served again',
    );
    await until(ready, (body) => body.status === 'ready', 'ready again, listening again');
    assert.equal(logged('database unreachable'), 1);
    assert.equal(logged('database reachable again'), 1);
    const after = (await app.inject({ url: '/metrics' })).body;
    assert.equal(metric(after, 'folio_database_up'), '1');
    assert.equal(metric(after, 'folio_database_outages_total'), '1');
    assert.equal(metric(after, 'folio_database_notifications_up'), '1');
    // Listening again: the key is kept while nothing changes, and its revocation is heard.
    assert.equal((await app.inject({ url: '/v1/articles', headers })).statusCode, 200);
    await revokeApiKey(database.db.kysely, keyId, new Date().toISOString());
    await db.changesSeen();
    assert.equal((await app.inject({ url: '/v1/articles', headers })).statusCode, 401);
  });

  test('a connection lost while checked out, between two statements, ends no process; its next query is a 503', async (t) => {
    const db = openDatabase(database.url, { poolSize: 2 });
    const app = await buildApp({ db });
    t.after(async () => (await app.close(), await db.close()));
    await db.kysely.connection().execute(async (connection) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection);
      await sql`select pg_terminate_backend(${rows[0].pid})`.execute(database.db.kysely);
      // The client hears of it with no query running: an 'error' event with nobody to listen ended
      // the process.
      await sleep(200);
      await assert.rejects(sql`select 1`.execute(connection), (error: Error & { code?: string }) => {
        assert.equal(error.code, '08006', error.message);
        return true;
      });
    });
    await until(
      () =>
        sql<{ one: number }>`select 1 as one`.execute(db.kysely).then(
          (result) => result.rows[0].one,
          () => 0,
        ),
      (one) => one === 1,
      'a new connection',
    );
    assert.equal((await app.inject({ url: '/ready' })).statusCode, 200);
  });

  test('its own pool exhausted while the database answers: /ready 503, the instance is unavailable', async (t) => {
    const db = openDatabase(database.url, { poolSize: 1 });
    const app = await buildApp({ db });
    t.after(async () => (await app.close(), await db.close()));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = db.kysely.connection().execute(async (connection) => {
      await sql`select 1`.execute(connection);
      await held;
    });
    await sleep(50);
    const busy = await app.inject({ url: '/ready' });
    release();
    await holding;
    assert.equal(busy.statusCode, 503, busy.body);
    assert.equal(busy.headers['retry-after'], '5');
    assert.equal(busy.json().status, 'unavailable');
    assert.match(busy.json().checks.database, /^The connection pool is exhausted \(1 connections busy/);
    assert.equal((await app.inject({ url: '/ready' })).statusCode, 200);
  });
});

describe('/ready on SQLite', () => {
  let dir: string;
  let db: Db;
  let app: FastifyInstance;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'folio-ready-'));
    db = openDatabase(join(dir, 'folio.db'), { busyWaitMs: 50 });
    await migrateToLatest(db);
    app = await buildApp({ db });
  });
  after(async () => {
    await app.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('writes nothing: it answers 200 while another process holds the write lock', async (t) => {
    const other = new DatabaseSync(join(dir, 'folio.db'));
    t.after(() => other.close());
    other.exec('begin immediate');
    try {
      const response = await app.inject({ url: '/ready' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { status: 'ready', checks: { database: 'ok' } });
    } finally {
      other.exec('rollback');
    }
  });

  test("a write refused for another process's write lock: /ready 503 saying so, until a write commits", async (t) => {
    const project = await createTestProject(db);
    await importArticles(db, project.project, [articleInput({ slug: 'hello' })]);
    const other = new DatabaseSync(join(dir, 'folio.db'));
    t.after(() => other.close());
    other.exec('begin immediate');
    try {
      assert.equal((await track(app, { slug: 'hello' }, { headers: project.headers })).statusCode, 503);
      const locked = await app.inject({ url: '/ready' });
      assert.equal(locked.statusCode, 503, locked.body);
      assert.deepEqual(locked.json(), {
        status: 'unavailable',
        checks: { database: 'The database is locked by another process' },
      });
    } finally {
      other.exec('commit');
    }
    assert.equal((await track(app, { slug: 'hello' }, { headers: project.headers })).statusCode, 201);
    const ready = await app.inject({ url: '/ready' });
    assert.deepEqual(ready.json(), { status: 'ready', checks: { database: 'ok' } });
  });
});
