// A Redis of its own on a spare port, frozen with SIGSTOP as a hung host looks, then resumed: the
// API goes on answering, limited by each instance's memory, and logs each change of state once.
// (The shared Redis of the test run is never stopped.)
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/app.ts';
import { createRateLimitStore } from '../../src/server.ts';
import { createTestDatabase, createTestKey, createTestProject, type TestDatabase } from '../helpers.ts';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let redisProcess: ChildProcess | undefined;
let redisUrl = '';
let database: TestDatabase;

before(async () => {
  if (!hasRedisServer) return;
  const port = await freePort();
  redisUrl = `redis://127.0.0.1:${port}`;
  redisProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let attempt = 0; ; attempt++) {
    const client = new Redis(redisUrl, { lazyConnect: true, retryStrategy: () => null });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      client.disconnect();
    }
  }
  database = await createTestDatabase('sqlite');
});

after(async () => {
  if (redisProcess && redisProcess.exitCode === null) {
    redisProcess.kill('SIGCONT');
    redisProcess.kill('SIGTERM');
  }
  await database?.drop();
});

test(
  'a frozen Redis: requests are answered and limited in memory with their headers; each change of state is logged once',
  { skip: hasRedisServer ? false : 'redis-server is not installed', timeout: 30_000 },
  async () => {
    const lines: string[] = [];
    const app: FastifyInstance = await buildApp({
      db: database.db,
      rateLimits: createRateLimitStore(redisUrl),
      logLevel: 'info',
      logStream: { write: (line: string) => void lines.push(line) },
    });
    app.get('/v1/probe', async () => ({ data: { ok: true } }));
    const messages = () => lines.map((line) => JSON.parse(line).msg as string);
    const unavailable = () =>
      messages().filter((msg) => msg.startsWith('rate limit store (Redis) unavailable')).length;
    const back = () => messages().filter((msg) => msg.startsWith('rate limit store (Redis) is back')).length;
    const probe = (headers: Record<string, string>) =>
      app.inject({ method: 'GET', url: '/v1/probe', headers });
    const inspector = new Redis(redisUrl);
    try {
      const { project } = await createTestProject(database.db);
      const bucketOf = (keyId: string) => `folio:rl2:key:${keyId}:127.0.0.1`;
      // The client connects in the background; a request before it has is counted in memory (and
      // logged as a change of state). Wait until Redis counts one, then count log lines from there.
      const warmUp = await createTestKey(database.db, project, { rateLimit: 1000 });
      for (let attempt = 0; (await inspector.zcard(bucketOf(warmUp.keyId))) === 0; attempt++) {
        assert.ok(attempt < 200, `Redis never counted a request: ${messages().join('\n')}`);
        await probe(warmUp.headers);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const [unavailableBefore, backBefore] = [unavailable(), back()];
      const before = await createTestKey(database.db, project, { rateLimit: 3 });
      const shared = await probe(before.headers);
      assert.equal(shared.statusCode, 200);
      assert.equal(shared.headers['x-ratelimit-remaining'], '2');
      assert.equal(await inspector.zcard(bucketOf(before.keyId)), 1, 'not counted in Redis');

      redisProcess!.kill('SIGSTOP');
      // Without a command timeout this request waits as long as Redis is frozen.
      const during = await createTestKey(database.db, project, { rateLimit: 3 });
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await probe(during.headers));
      assert.deepEqual(
        answers.map((response) => [response.statusCode, response.headers['x-ratelimit-remaining']]),
        [
          [200, '2'],
          [200, '1'],
          [200, '0'],
          [429, '0'],
        ],
      );
      assert.equal(answers[3].headers['x-ratelimit-limit'], '3');
      assert.match(String(answers[3].headers['retry-after']), /^[1-9]\d*$/);
      for (let i = 0; i < 10; i++) assert.equal((await probe(during.headers)).statusCode, 429);
      assert.equal(unavailable(), unavailableBefore + 1, messages().join('\n'));
      assert.equal(back(), backBefore);

      redisProcess!.kill('SIGCONT');
      const afterwards = await createTestKey(database.db, project, { rateLimit: 100 });
      for (let attempt = 0; back() === backBefore; attempt++) {
        assert.ok(attempt < 200, `Redis never came back: ${messages().join('\n')}`);
        assert.equal((await probe(afterwards.headers)).statusCode, 200);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Counted in Redis again, under the bucket of the key used after the thaw.
      await probe(afterwards.headers);
      assert.ok(
        (await inspector.zcard(bucketOf(afterwards.keyId))) >= 1,
        'not counted in Redis after it came back',
      );
      assert.equal(unavailable(), unavailableBefore + 1, messages().join('\n'));
      assert.equal(back(), backBefore + 1, messages().join('\n'));
    } finally {
      inspector.disconnect();
      await app.close();
    }
  },
);
