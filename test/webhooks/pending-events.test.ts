// The webhook dispatcher's batches of pending events (lockPendingEvents): the oldest first, by
// (created_at, id), read from the pending events' index in that order (migration 0044). Events
// recorded by one statement share their time; indexed by time alone, every batch sorted all of
// them again (50,000 announced articles: 11 s of SQLite's event loop to fan out).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordEvents } from '../../src/db/outbox.ts';
import { lockPendingEvents, markDispatched, pendingEvents } from '../../src/webhooks/queries.ts';
import { createTestProject, describeEachDialect, queryPlan } from '../helpers.ts';

describeEachDialect('pending webhook events', (ctx) => {
  test('a batch is the oldest events by time and id, read from the index in that order, unsorted', async () => {
    const { project } = await createTestProject(ctx.db);
    const event = { projectId: project.id, type: 'article.published' as const, data: {} };
    const later = await recordEvents(
      ctx.db.kysely,
      Array.from({ length: 300 }, () => event),
      new Date(2_000),
    );
    const first = await recordEvents(
      ctx.db.kysely,
      Array.from({ length: 300 }, () => event),
      new Date(1_000),
    );
    const expected = [...first.sort(), ...later.sort()];
    const rowLocks = ctx.dialect === 'postgres';

    // Whatever the table's statistics, an index in the batch's order exists: PostgreSQL is told to
    // avoid sorting, which it could not without one (it sorted 600 events by id otherwise).
    const plan = await queryPlan(ctx.db, pendingEvents(ctx.db.kysely, 200, rowLocks).compile(), [
      'sort',
      'bitmapscan',
    ]);
    assert.match(plan, /outbox_events_pending/, plan);
    assert.doesNotMatch(plan, /TEMP B-TREE|Sort/i, plan);

    const taken: string[] = [];
    for (;;) {
      const batch = await ctx.db.kysely.transaction().execute((trx) => lockPendingEvents(trx, 200, rowLocks));
      if (batch.length === 0) break;
      taken.push(...batch.map((row) => row.id));
      await markDispatched(
        ctx.db.kysely,
        batch.map((row) => row.id),
        new Date().toISOString(),
      );
    }
    assert.deepEqual(taken, expected);
  });
});
