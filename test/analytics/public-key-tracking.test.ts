// Tracking with a key that anyone can read in a page's source: an article that is not published
// answers exactly as one that does not exist and collects no view, on the create and the update
// path; and a secret key is never taken from the URL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  importArticles,
  viewCountOf,
} from '../helpers.ts';
import { pageViewCount, rawPageViews, track, update } from './support.ts';

const future = new Date(Date.now() + 30 * 86_400_000).toISOString();
// Every one the same length as `unknown-slug`, so that the answers may be compared byte for byte.
const notPublished = [
  { slug: 'draft-aaaaa', status: 'draft' as const, publishedAt: null },
  { slug: 'sched-bbbbb', status: 'published' as const, publishedAt: future },
  { slug: 'archi-ccccc', status: 'archived' as const, publishedAt: '2026-01-01T00:00:00.000Z' },
];
const unknownSlug = 'nosuch-dddd';

/** The answer with what must differ between two requests (id, date, budget left) taken out. */
function comparable(response: LightMyRequestResponse, slug: string) {
  const headers = { ...response.headers };
  for (const name of ['x-request-id', 'date', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
    delete headers[name];
  return { status: response.statusCode, headers, body: response.body.replaceAll(slug, 'SLUG') };
}

describeEachDialect('tracking with a public key: only published articles exist', (ctx) => {
  async function blog() {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [
      articleInput({ slug: 'hello' }),
      ...notPublished.map((article) => articleInput(article)),
    ]);
    const publicKey = await createTestKey(ctx.db, owner.project, { kind: 'public' });
    return { ...owner, publicKey };
  }

  test('POST: a draft, scheduled or archived slug answers exactly as an unknown one and stores nothing', async () => {
    const { project, publicKey } = await blog();
    const options = { headers: { ...publicKey.headers, origin: 'https://blog.example.com' } };
    const unknown = await track(ctx.app, { slug: unknownSlug }, options);
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().message, `Article '${unknownSlug}' not found`);
    for (const { slug } of notPublished) {
      const answer = await track(ctx.app, { slug }, options);
      assert.deepEqual(comparable(answer, slug), comparable(unknown, unknownSlug), slug);
      // The same through the query-parameter key of sendBeacon.
      const beacon = await track(ctx.app, { slug }, { query: `?key=${publicKey.key}` });
      assert.equal(beacon.statusCode, 404, slug);
      assert.equal(await viewCountOf(ctx.db, project.id, slug), 0);
    }
    assert.equal(await pageViewCount(ctx.db, project.id), 0);
    assert.equal((await track(ctx.app, { slug: 'hello' }, options)).statusCode, 201);
  });

  test('POST: a secret key still tracks a draft, scheduled or archived article', async () => {
    const { project, headers } = await blog();
    for (const { slug } of notPublished) {
      const answer = await track(ctx.app, { slug }, { headers });
      assert.equal(answer.statusCode, 201, `${slug}: ${answer.body}`);
    }
    assert.equal(await pageViewCount(ctx.db, project.id), notPublished.length);
  });

  test('PUT and its POST alias: a page view of an article that is not published is unknown to a public key', async () => {
    const { project, headers, publicKey } = await blog();
    // Page views a secret key made of the unpublished articles (a preview, say).
    const ids: string[] = [];
    for (const { slug } of notPublished) ids.push((await track(ctx.app, { slug }, { headers })).json().id);
    const before = await rawPageViews(ctx.db, project.id);
    const unknownId = `${ids[0]!.slice(0, -4)}AAAA`;
    const unknown = await update(ctx.app, unknownId, { timeOnPage: 30 }, { headers: publicKey.headers });
    assert.equal(unknown.statusCode, 404);
    for (const id of ids) {
      for (const method of ['PUT', 'POST'] as const) {
        const answer = await update(
          ctx.app,
          id,
          { timeOnPage: 30, scrollDepth: 90 },
          { method, headers: publicKey.headers },
        );
        assert.deepEqual(comparable(answer, id), comparable(unknown, unknownId), `${method} ${id}`);
      }
      // A secret key may still update it.
      assert.equal((await update(ctx.app, id, { timeOnPage: 1 }, { headers })).statusCode, 200);
    }
    const after = await rawPageViews(ctx.db, project.id);
    const sortedTimes = (rows: typeof before) => rows.map((row) => Number(row.time_on_page_ms)).sort();
    assert.deepEqual(sortedTimes(before), [0, 0, 0]);
    assert.deepEqual(sortedTimes(after), [1000, 1000, 1000], 'only the secret key updates were stored');
    assert.deepEqual(
      after.map((row) => Number(row.scroll_depth_centi)),
      [0, 0, 0],
    );
  });

  test('PUT: a page view of a published article is still updated with a public key', async () => {
    const { project, publicKey } = await blog();
    const id = (await track(ctx.app, { slug: 'hello' }, { headers: publicKey.headers })).json().id;
    const answer = await update(ctx.app, id, { scrollDepth: 75 }, { headers: publicKey.headers });
    assert.equal(answer.statusCode, 200, answer.body);
    const [row] = await rawPageViews(ctx.db, project.id);
    assert.equal(Number(row.scroll_depth_centi), 7500);
  });
});

describeEachDialect('tracking: a secret key is never taken from the URL', (ctx) => {
  test('a secret key in ?key= is refused 401 saying to send it in the header, on every track endpoint', async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'hello' })]);
    const query = `?key=${owner.key}`;
    const created = await track(ctx.app, { slug: 'hello' }, { headers: owner.headers });
    const id = created.json().id;
    const answers = [
      await track(ctx.app, { slug: 'hello' }, { query }),
      await update(ctx.app, id, { timeOnPage: 5 }, { query }),
      await update(ctx.app, id, { timeOnPage: 5 }, { query, method: 'POST' }),
      // Even beside a header: the key has already been written into a URL.
      await track(ctx.app, { slug: 'hello' }, { query, headers: owner.headers }),
      // Whether or not it is a valid key: the answer tells nothing about it.
      await track(
        ctx.app,
        { slug: 'hello' },
        { query: '?key=folio_sk_0000000000000000000000000000000000000000' },
      ),
    ];
    for (const answer of answers) {
      assert.equal(answer.statusCode, 401, answer.body);
      const body = answer.json();
      assert.equal(body.error, 'Unauthorized');
      assert.match(body.message, /X-API-Key header/);
    }
    assert.equal(answers[0]!.json().message, answers[4]!.json().message);
    const [row] = await rawPageViews(ctx.db, owner.project.id);
    assert.equal(await pageViewCount(ctx.db, owner.project.id), 1);
    assert.equal(Number(row.time_on_page_ms), 0);
  });

  test('a public key in ?key= keeps working', async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'hello' })]);
    const publicKey = await createTestKey(ctx.db, owner.project, { kind: 'public' });
    const created = await track(ctx.app, { slug: 'hello' }, { query: `?key=${publicKey.key}` });
    assert.equal(created.statusCode, 201, created.body);
  });
});
