// The webhook dispatcher at rest: woken by its poll alone, it asks the database nothing until an
// event is written (the outbox's stamp moves, migration 0038), whichever connection writes it, and
// no kept key lookup is dropped by an event.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KyselyPlugin } from 'kysely';
import { announceDuePublications } from '../../src/content/announcements.ts';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { recordEvents } from '../../src/db/outbox.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestProject, describeEachDialect, eventually } from '../helpers.ts';
import { eventDispatched, stubLookup } from './support.ts';

describeEachDialect('webhook dispatcher at rest', (ctx) => {
  test('asks nothing while no event is written, and fans out one that another connection writes', async () => {
    const { project } = await createTestProject(ctx.db);
    // PostgreSQL: the stamp is known once the change listener is up (until then, every poll asks).
    await eventually(async () => ctx.db.outboxStamp() !== null);
    await ctx.db.changesSeen();
    let statements = 0;
    const counter: KyselyPlugin = {
      transformQuery: (args) => {
        statements++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const counted: Db = { ...ctx.db, kysely: ctx.db.kysely.withPlugin(counter) };
    const dispatcher = new WebhookDispatcher(counted, {
      settings: { timeoutMs: 400, pollMs: 20, retryDelaysMs: [50], allowPrivate: ['127.0.0.1'] },
      announce: announceDuePublications,
      lookup: stubLookup,
    });
    dispatcher.start();
    try {
      // The first wake asks for everything; the wakes after it (every 20 ms) find the stamp unmoved.
      await eventually(async () => statements > 0);
      await sleep(200);
      const settled = statements;
      await sleep(600);
      assert.equal(statements - settled, 0, 'the dispatcher asked the database at rest');

      const keys = ctx.db.keysStamp();
      const other = openDatabase(ctx.url);
      let eventId: string | undefined;
      try {
        [eventId] = await other.kysely
          .transaction()
          .execute((trx) => recordEvents(trx, [{ projectId: project.id, type: 'tag.created', data: {} }]));
      } finally {
        await other.close();
      }
      await ctx.db.changesSeen();
      assert.equal(ctx.db.keysStamp(), keys, 'an event dropped the kept key lookups');
      // Far sooner than the rescan of 15 s that would find it without the stamp.
      await eventually(() => eventDispatched(ctx.db, eventId!), 5_000);
    } finally {
      await dispatcher.stop();
    }
  });
});
