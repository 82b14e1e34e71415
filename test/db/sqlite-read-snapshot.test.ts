// The read snapshot of statistics and insights (db/read-snapshot.ts): one state of the database for
// every query of an answer, a read-only transaction, and on SQLite one that needs no write lock, so
// that it is answered while another process holds that lock.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { readSnapshot } from '../../src/db/read-snapshot.ts';
import type { Db } from '../../src/db/database.ts';
import { createTestProject, describeEachDialect } from '../helpers.ts';

async function projectCount(db: Db | Parameters<Parameters<typeof readSnapshot>[1]>[0]): Promise<number> {
  const kysely = 'kysely' in db ? db.kysely : db;
  const row = await kysely
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describeEachDialect('read snapshot', (ctx) => {
  test('every query of a snapshot sees the state of its first read, not a commit made meanwhile', async () => {
    const before = await projectCount(ctx.db);
    const [first, second] = await readSnapshot(ctx.db, async (trx) => {
      const first = await projectCount(trx);
      await createTestProject(ctx.db);
      return [first, await projectCount(trx)];
    });
    assert.equal(first, before);
    assert.equal(second, before);
    assert.equal(await projectCount(ctx.db), before + 1);
  });

  test('a snapshot refuses writes and changes nothing', async () => {
    const { project } = await createTestProject(ctx.db);
    await assert.rejects(
      readSnapshot(ctx.db, (trx) => trx.updateTable('projects').set({ name: 'changed' }).execute()),
      /read.?only/i,
    );
    const row = await ctx.db.kysely
      .selectFrom('projects')
      .select('name')
      .where('id', '=', project.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.name, project.name);
  });

  if (ctx.dialect === 'sqlite') {
    test('a snapshot is read while another connection holds the write lock', async (t) => {
      const db = openDatabase(ctx.url, { busyWaitMs: 100 });
      const other = new DatabaseSync(ctx.url, { timeout: 0 });
      t.after(async () => (other.close(), await db.close()));
      const expected = await projectCount(db);
      other.exec('begin immediate');
      try {
        assert.equal(await readSnapshot(db, (trx) => projectCount(trx)), expected);
      } finally {
        other.exec('commit');
      }
    });
  }
});
