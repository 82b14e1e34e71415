import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { buildApp } from '../../src/app.ts';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { findActiveKey, keyLookup } from '../../src/projects/key-lookup.ts';
import { createApiKey, revokeApiKey } from '../../src/projects/service.ts';
import { track, update } from '../analytics/support.ts';
import { articleInput, createTestProject, describeEachDialect, getJson, importArticles } from '../helpers.ts';

// The key lookup runs on every request and is kept in memory on SQLite while nothing changed in
// the database: these tests change it through a second connection, as the CLI does.
describeEachDialect('key lookup', (ctx) => {
  test('a key revoked through another connection is refused on the very next lookup', async () => {
    const { project, key, keyId, headers } = await createTestProject(ctx.db);
    assert.equal((await getJson(ctx.app, '/v1/project', headers)).status, 200);
    assert.equal((await findActiveKey(ctx.db, key))?.project.id, project.id);
    const other = openDatabase(ctx.url);
    try {
      await revokeApiKey(other, keyId);
    } finally {
      await other.close();
    }
    // PostgreSQL: the change is known once its notification arrived (no round trip per request);
    // SQLite: the change stamp kept for this turn of the event loop is dropped (a request that
    // arrives after another process's commit is in a later turn anyway).
    await ctx.db.changesSeen();
    assert.equal(await findActiveKey(ctx.db, key), undefined);
    assert.equal((await getJson(ctx.app, '/v1/project', headers)).status, 401);
  });

  test('kept answers only what find keeps, never by a query: none before the first lookup, none once a key changed', async () => {
    const { project, key, keyId } = await createTestProject(ctx.db);
    const keys = keyLookup(ctx.db);
    // PostgreSQL keeps answers while its change notifications are heard: once the listener is up.
    for (let wait = 0; wait < 200 && ctx.db.keysStamp() === null; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await ctx.db.changesSeen();
    // A key never looked up: nothing kept, and no lookup started (the hit path asks at every request).
    assert.equal(keys.kept(key), null);
    assert.equal(keys.kept('folio_sk_unknown'), null);
    assert.equal((await keys.find(key))?.project.id, project.id);
    assert.equal(keys.kept(key)?.project.id, project.id);
    // A key found invalid is kept as such: kept says null, and the hook's find answers it.
    assert.equal(await keys.find('folio_sk_never-issued'), undefined);
    assert.equal(keys.kept('folio_sk_never-issued'), null);
    await revokeApiKey(ctx.db, keyId);
    await ctx.db.changesSeen();
    assert.equal(keys.kept(key), null);
    assert.equal(await keys.find(key), undefined);
  });

  test('a key revoked through the same database handle is refused at once, in the same turn of the event loop', async () => {
    const { key, keyId } = await createTestProject(ctx.db);
    assert.ok(await findActiveKey(ctx.db, key));
    // No timer or I/O in between: SQLite's change stamp, kept for the turn, is dropped by the write.
    await revokeApiKey(ctx.db, keyId);
    assert.equal(await findActiveKey(ctx.db, key), undefined);
  });

  test('a key created through another connection works at once, though it was just refused', async () => {
    const { project } = await createTestProject(ctx.db);
    const other = openDatabase(ctx.url);
    try {
      const first = await createApiKey(other, project.slug, { kind: 'secret' });
      await revokeApiKey(other, first.row.id);
      await ctx.db.changesSeen();
      assert.equal(await findActiveKey(ctx.db, first.key), undefined);
      const second = await createApiKey(other, project.slug, { kind: 'secret' });
      await ctx.db.changesSeen();
      assert.equal((await findActiveKey(ctx.db, second.key))?.project.id, project.id);
      const response = await getJson(ctx.app, '/v1/project', { 'x-api-key': second.key });
      assert.equal(response.status, 200);
      assert.equal(response.body.data.project.id, project.id);
    } finally {
      await other.close();
    }
  });

  test('a key revoked through this connection is refused on the very next lookup', async () => {
    const { key, keyId, headers } = await createTestProject(ctx.db);
    assert.equal((await getJson(ctx.app, '/v1/project', headers)).status, 200);
    await revokeApiKey(ctx.db, keyId);
    assert.equal((await getJson(ctx.app, '/v1/project', headers)).status, 401);
    assert.equal(await findActiveKey(ctx.db, key), undefined);
  });
});

/** A handle on the same database whose key lookups are counted (each runs one compiled query). */
function countingLookups(db: Db): { db: Db; queries: () => number } {
  let queries = 0;
  const counted: Db = {
    ...db,
    executeCompiled: (query) => {
      queries++;
      return db.executeCompiled(query);
    },
  };
  return { db: counted, queries: () => queries };
}

/**
 * Waits until the database can tell key changes apart (PostgreSQL: its change listener, started by
 * the first lookup, is connected; before, every lookup asks the database), then until every change
 * made so far is seen.
 */
async function keysWatched(db: Db): Promise<void> {
  for (let tries = 0; db.keysStamp() === null && tries < 500; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.notEqual(db.keysStamp(), null, 'the change listener never connected');
  await db.changesSeen();
}

// The lookup is kept until a project or an API key changes: page views (many a second on a blog
// being read) and the record of a key's use must leave it alone.
describeEachDialect('key lookup kept across page views', (ctx) => {
  test('tracked and rolled-up page views do not empty the kept key lookups', async () => {
    const { project, key } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [articleInput({ slug: 'kept' })]);
    await keysWatched(ctx.db);
    const lookups = countingLookups(ctx.db);
    assert.equal((await findActiveKey(lookups.db, key))?.project.id, project.id);
    assert.equal(lookups.queries(), 1);
    for (let i = 0; i < 3; i++) {
      const created = await track(ctx.app, { slug: 'kept' }, { headers: { 'x-api-key': key } });
      assert.equal(created.statusCode, 201);
      assert.equal(
        (await update(ctx.app, created.json().id, { timeOnPage: 30 }, { headers: { 'x-api-key': key } }))
          .statusCode,
        200,
      );
    }
    await rollUpQueued(ctx.db);
    await ctx.db.changesSeen();
    assert.equal((await findActiveKey(lookups.db, key))?.project.id, project.id);
    assert.equal(lookups.queries(), 1, 'the page views emptied the key lookups');
  });

  test("recording a key's use does not empty the kept key lookups", async () => {
    const { project, key, keyId } = await createTestProject(ctx.db);
    // PostgreSQL: the notification of the key's creation arrives after its commit.
    await keysWatched(ctx.db);
    const lookups = countingLookups(ctx.db);
    assert.equal((await findActiveKey(lookups.db, key))?.project.id, project.id);
    const keys = keyLookup(ctx.db);
    const touched = keys.touch(keyId, new Date().toISOString());
    await keys.flush();
    await touched;
    await ctx.db.changesSeen();
    assert.equal((await findActiveKey(lookups.db, key))?.project.id, project.id);
    assert.equal(lookups.queries(), 1);
  });

  test("the uses of several keys are recorded together, in one statement, at the newest use's time", async () => {
    const first = await createTestProject(ctx.db);
    const second = await createTestProject(ctx.db);
    await keysWatched(ctx.db);
    const lookups = countingLookups(ctx.db);
    assert.ok(await findActiveKey(lookups.db, first.key));
    let statements = 0;
    const counted: Db = {
      ...ctx.db,
      kysely: ctx.db.kysely.withPlugin({
        transformQuery: (args) => {
          statements++;
          return args.node;
        },
        transformResult: async (args) => args.result,
      }),
    };
    const keys = keyLookup(counted);
    const touched = [
      keys.touch(first.keyId, '2026-11-27T10:00:00.000Z'),
      keys.touch(second.keyId, '2026-11-27T10:00:03.000Z'),
      keys.touch(first.keyId, '2026-11-27T10:00:01.000Z'),
    ];
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(statements, 0, 'a use was recorded before the others of its few seconds');
    await keys.flush();
    await Promise.all(touched);
    assert.equal(statements, 1);
    const rows = await ctx.db.kysely
      .selectFrom('api_keys')
      .select(['id', 'last_used_at'])
      .where('id', 'in', [first.keyId, second.keyId])
      .execute();
    assert.deepEqual(
      rows.map((row) => String(row.last_used_at)),
      ['2026-11-27T10:00:03.000Z', '2026-11-27T10:00:03.000Z'],
    );
    await keys.flush();
    assert.equal(statements, 1, 'nothing left to record');
    // Not a change of any key: the kept lookup stays.
    await ctx.db.changesSeen();
    assert.ok(await findActiveKey(lookups.db, first.key));
    assert.equal(lookups.queries(), 1);
  });

  test("a request records its key's use, written at the latest when the app closes, before its database", async () => {
    const { keyId, headers } = await createTestProject(ctx.db);
    // As server.ts does: the app's own database handle, closed by a hook of the app's closing.
    const db = openDatabase(ctx.url);
    const app = await buildApp({ db });
    app.addHook('onClose', async () => db.close());
    try {
      assert.equal((await getJson(app, '/v1/project', headers)).status, 200);
    } finally {
      await app.close();
    }
    const row = await ctx.db.kysely
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    assert.ok(row.last_used_at !== null, 'the use was not recorded');
  });

  test("a content change on another instance is seen by the kept lookup (the project's content version)", async () => {
    const { project, key } = await createTestProject(ctx.db);
    const before = (await findActiveKey(ctx.db, key))!.project.content_version;
    const other = openDatabase(ctx.url);
    try {
      await importArticles(other, project, [articleInput({ slug: 'new' })]);
    } finally {
      await other.close();
    }
    await ctx.db.changesSeen();
    assert.ok((await findActiveKey(ctx.db, key))!.project.content_version > before);
  });

  test('a key revoked on one instance is refused on the next request on another', async () => {
    const { project, key, keyId, headers } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [articleInput({ slug: 'read' })]);
    const otherDb = openDatabase(ctx.url);
    const otherApp = await buildApp({ db: otherDb });
    try {
      // Known to this instance, with page views written since.
      assert.equal((await getJson(ctx.app, '/v1/project', headers)).status, 200);
      assert.equal(
        (await track(ctx.app, { slug: 'read' }, { headers: { 'x-api-key': key } })).statusCode,
        201,
      );
      assert.equal((await getJson(otherApp, '/v1/project', headers)).status, 200);
      // Revoked through the other instance's handle (as its CLI or key endpoint would).
      await revokeApiKey(otherDb, keyId);
      assert.equal((await getJson(otherApp, '/v1/project', headers)).status, 401);
      await ctx.db.changesSeen();
      assert.equal((await getJson(ctx.app, '/v1/project', headers)).status, 401);
    } finally {
      await otherApp.close();
      await otherDb.close();
    }
  });
});
