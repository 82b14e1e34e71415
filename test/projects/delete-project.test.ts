// Deleting a project removes the rows of the tables that hold no foreign key to it: its roll-up
// queue entries and its visitor ids of the last two days (on PostgreSQL, migration 0033; the
// visitor-set entries of migration 0041 on both).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { deleteProject } from '../../src/projects/service.ts';
import { articleInput, createTestProject, describeEachDialect, importArticles } from '../helpers.ts';
import { otherBrowser, track } from '../analytics/support.ts';
import { projectNumSql } from '../../src/db/id-numbers.ts';

const visitorTables = ['analytics_visitor_entries', 'analytics_daily_visitors'] as const;

describeEachDialect('deleting a project', (ctx) => {
  async function rowsOf(projectId: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of ['analytics_daily_visitors', 'rollup_queue'] as const) {
      const row = await ctx.db.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('count'))
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow();
      counts[table] = Number(row.count);
    }
    const entries = await sql<{ count: number }>`select count(*) as count from analytics_visitor_entries
      where project_num = ${projectNumSql(projectId)}`.execute(ctx.db.kysely);
    counts.analytics_visitor_entries = Number(entries.rows[0].count);
    return counts;
  }

  test("its visitor ids go with it, and another project's stay", async () => {
    const [gone, kept] = [await createTestProject(ctx.db), await createTestProject(ctx.db)];
    for (const { project, headers } of [gone, kept]) {
      await importArticles(ctx.db, project, [
        articleInput({ slug: 'hello' }),
        articleInput({ slug: 'other' }),
      ]);
      for (const [slug, ip] of [
        ['hello', '198.51.100.1'],
        ['other', '198.51.100.2'],
      ]) {
        const response = await track(ctx.app, { slug, referrer: 'https://news.example/' }, { headers, ip });
        assert.equal(response.statusCode, 201, response.body);
      }
      await track(ctx.app, { slug: 'hello' }, { headers: { ...headers, 'user-agent': otherBrowser } });
    }
    await rollUpQueued(ctx.db);
    const before = await rowsOf(gone.project.id);
    for (const table of visitorTables) assert.ok(before[table] > 0, `${table} holds the views' visitors`);

    await deleteProject(ctx.db, gone.project.slug);

    assert.deepEqual(await rowsOf(gone.project.id), {
      analytics_visitor_entries: 0,
      analytics_daily_visitors: 0,
      rollup_queue: 0,
    });
    assert.deepEqual(await rowsOf(kept.project.id), { ...before, rollup_queue: 0 });
  });

  test('a queued view of a deleted project is never rolled up', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [articleInput({ slug: 'hello' })]);
    assert.equal((await track(ctx.app, { slug: 'hello' }, { headers })).statusCode, 201);
    await deleteProject(ctx.db, project.slug);
    await rollUpQueued(ctx.db);
    assert.deepEqual(await rowsOf(project.id), {
      analytics_visitor_entries: 0,
      analytics_daily_visitors: 0,
      rollup_queue: 0,
    });
  });

  if (ctx.dialect === 'postgres') {
    test('on PostgreSQL the visitor tables check no foreign key at each insert', async () => {
      const { rows } = await sql<{ table: string }>`
        select conrelid::regclass::text as table from pg_constraint
        where contype = 'f' and conrelid::regclass::text in ('analytics_visitor_entries', 'analytics_daily_visitors')`.execute(
        ctx.db.kysely,
      );
      assert.deepEqual(rows, []);
    });
  }
});
