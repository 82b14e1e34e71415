// Tracking on a visitor's behalf: a server (server-side rendering, an edge function) forwards the
// visitor's address and User-Agent with a secret key, and tracking then judges the visitor, not the
// server: the bot rule, the visitor id, the country and the rate limit.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/app.ts';
import { RedisRateLimitStore } from '../../src/http/rate-limit.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  importArticles,
  redisUrl,
} from '../helpers.ts';
import { browser, otherBrowser, pageViewCount, rawPageViews, track, update } from './support.ts';

/** What Node's fetch sends as its User-Agent: a bot's, by the bot rule. */
const nodeAgent = 'node';
const serverIp = '192.0.2.10';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

describeEachDialect("tracking on a visitor's behalf", (ctx) => {
  async function blog(rateLimit?: number) {
    const owner = await createTestProject(ctx.db, { rateLimit });
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'hello' })]);
    return owner;
  }
  const fromServer = (headers: Record<string, string>) => ({ headers, ip: serverIp, userAgent: nodeAgent });

  test("a server's own request is a bot's; with the visitor's browser forwarded it is counted", async () => {
    const { project, headers } = await blog();
    const own = await track(ctx.app, { slug: 'hello' }, fromServer(headers));
    assert.equal(own.statusCode, 202);
    assert.deepEqual(own.json(), { success: false, reason: 'bot' });
    const visitor = { ip: '198.51.100.20', userAgent: browser };
    const forwarded = await track(ctx.app, { slug: 'hello', visitor }, fromServer(headers));
    assert.equal(forwarded.statusCode, 201, forwarded.body);
    assert.equal(forwarded.json().success, true);
    assert.equal(await pageViewCount(ctx.db, project.id), 1);
    // Its update too: the bot rule reads the forwarded User-Agent, not the server's.
    const id = forwarded.json().id;
    const bare = await update(ctx.app, id, { timeOnPage: 12 }, fromServer(headers));
    assert.equal(bare.statusCode, 202);
    const updated = await update(ctx.app, id, { timeOnPage: 12, visitor }, fromServer(headers));
    assert.equal(updated.statusCode, 200, updated.body);
    const row = (await rawPageViews(ctx.db, project.id)).find((view) => view.id === id)!;
    assert.equal(Number(row.time_on_page_ms), 12_000);
  });

  test('a forwarded bot User-Agent (or an empty one) is refused as a bot, whoever the caller is', async () => {
    const { project, headers } = await blog();
    for (const userAgent of [googlebot, '']) {
      const caller = { headers, ip: serverIp, userAgent: browser };
      const answer = await track(
        ctx.app,
        { slug: 'hello', visitor: { ip: '198.51.100.21', userAgent } },
        caller,
      );
      assert.equal(answer.statusCode, 202, userAgent);
      assert.deepEqual(answer.json(), { success: false, reason: 'bot' });
    }
    assert.equal(await pageViewCount(ctx.db, project.id), 0);
  });

  test("the visitor id is the one the visitor's own browser request gets, and the country is the visitor's", async () => {
    const { project, headers } = await blog();
    const ip = '8.8.8.8';
    const own = await track(
      ctx.app,
      { slug: 'hello', fetchGeo: true },
      { headers, ip, userAgent: otherBrowser },
    );
    const forwarded = await track(
      ctx.app,
      { slug: 'hello', fetchGeo: true, visitor: { ip, userAgent: otherBrowser } },
      fromServer(headers),
    );
    assert.equal(forwarded.statusCode, 201, forwarded.body);
    assert.equal(forwarded.json().visitorId, own.json().visitorId);
    const another = await track(
      ctx.app,
      { slug: 'hello', visitor: { ip: '8.8.4.4', userAgent: otherBrowser } },
      fromServer(headers),
    );
    assert.notEqual(another.json().visitorId, own.json().visitorId);
    const rows = await rawPageViews(ctx.db, project.id);
    assert.equal(rows.find((row) => row.id === forwarded.json().id)!.country, 'US');
    const v6 = await track(
      ctx.app,
      { slug: 'hello', fetchGeo: true, visitor: { ip: '2a00:1450:4001:81b::200e', userAgent: browser } },
      fromServer(headers),
    );
    const v6Row = (await rawPageViews(ctx.db, project.id)).find((row) => row.id === v6.json().id)!;
    assert.equal(v6Row.country, 'DE', "not the server's (documentation) address, which has none");
  });

  test('a public key sending visitor is a 400 naming visitor, on the create and the update path', async () => {
    const { project, headers } = await blog();
    const publicKey = await createTestKey(ctx.db, project, { kind: 'public' });
    const visitor = { ip: '198.51.100.22', userAgent: browser };
    const created = await track(ctx.app, { slug: 'hello', visitor }, { headers: publicKey.headers });
    assert.equal(created.statusCode, 400);
    assert.deepEqual(
      created.json().details.issues.map((issue: { field: string }) => issue.field),
      ['visitor'],
    );
    const beacon = await track(ctx.app, { slug: 'hello', visitor }, { query: `?key=${publicKey.key}` });
    assert.equal(beacon.statusCode, 400);
    const id = (await track(ctx.app, { slug: 'hello' }, { headers })).json().id;
    const updated = await update(ctx.app, id, { timeOnPage: 3, visitor }, { headers: publicKey.headers });
    assert.equal(updated.statusCode, 400);
    assert.equal(updated.json().details.issues[0].field, 'visitor');
    assert.equal(await pageViewCount(ctx.db, project.id), 1);
  });

  test('a visitor that is not an address and a User-Agent is a 400 naming the field', async () => {
    const { project, headers } = await blog();
    const cases: Array<[unknown, string[]]> = [
      [{ ip: 'not-an-ip', userAgent: browser }, ['visitor.ip']],
      [{ ip: '256.1.1.1', userAgent: browser }, ['visitor.ip']],
      [{ ip: '198.51.100.1, 10.0.0.1', userAgent: browser }, ['visitor.ip']],
      [{ ip: 12, userAgent: browser }, ['visitor.ip']],
      [{ userAgent: browser }, ['visitor.ip']],
      [{ ip: '198.51.100.1' }, ['visitor.userAgent']],
      [{ ip: '198.51.100.1', userAgent: 'x'.repeat(1025) }, ['visitor.userAgent']],
      ['198.51.100.1', ['visitor']],
    ];
    for (const [visitor, fields] of cases) {
      const answer = await track(ctx.app, { slug: 'hello', visitor }, fromServer(headers));
      assert.equal(answer.statusCode, 400, JSON.stringify(visitor));
      const named = answer.json().details.issues.map((issue: { field: string }) => issue.field);
      assert.deepEqual(named, fields, JSON.stringify(visitor));
    }
    assert.equal(await pageViewCount(ctx.db, project.id), 0);
  });

  test('the rate limit counts each forwarded visitor apart, per key and visitor address', async () => {
    await limitsEachVisitorApart(ctx.app, await blog(2));
  });

  test(
    'the same with the limits counted in Redis',
    { skip: redisUrl === null && 'no TEST_REDIS_URL' },
    async () => {
      const prefix = `folio:test:${process.pid}:${randomBytes(4).toString('hex')}:`;
      const app = await buildApp({
        db: ctx.db,
        rateLimits: new RedisRateLimitStore(new Redis(redisUrl!), prefix),
      });
      try {
        await limitsEachVisitorApart(app, await blog(2));
      } finally {
        await app.close();
      }
    },
  );
});

/** With a key limit of 2 a minute: two visitors behind one server get 2 views each, then 429. */
async function limitsEachVisitorApart(app: FastifyInstance, owner: { headers: Record<string, string> }) {
  const caller = { headers: owner.headers, ip: serverIp, userAgent: nodeAgent };
  const send = (ip: string) => track(app, { slug: 'hello', visitor: { ip, userAgent: browser } }, caller);
  for (const ip of ['198.51.100.30', '2001:db8::30']) {
    const first = await send(ip);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['x-ratelimit-limit'], '2');
    assert.equal(first.headers['x-ratelimit-remaining'], '1');
    assert.equal((await send(ip)).statusCode, 201);
    const third = await send(ip);
    assert.equal(third.statusCode, 429, `${ip}: ${third.body}`);
    assert.ok(third.headers['retry-after']);
  }
  // The server's own address has a budget of its own, untouched by the visitors it forwarded.
  const own = await track(app, { slug: 'hello' }, { headers: owner.headers, ip: serverIp });
  assert.equal(own.statusCode, 201, own.body);
  assert.equal(own.headers['x-ratelimit-remaining'], '1');
}
