import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { findActiveKey } from '../../src/projects/key-lookup.ts';
import { createApiKey, revokeApiKey } from '../../src/projects/service.ts';
import { createTestProject, describeEachDialect, getJson } from '../helpers.ts';

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
