// The visitor sets as entries (migration 0041): a 16-byte hash of scope and visitor id, the same
// from the roll-ups (JavaScript) and the rebuild (SQL); the sets an older release kept are still
// asked until the cleanup empties them; the cleanup forgets the entries of the days before yesterday.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { runCleanup } from '../../src/analytics/rollups/retention.ts';
import { shiftDay, utcDay } from '../../src/analytics/days.ts';
import { visitorEntryOf, visitorEntryParameter, visitorEntrySql } from '../../src/db/visitor-entries.ts';
import { articleInput, createTestProject, describeEachDialect, importArticles } from '../helpers.ts';
import { writePageViews } from './support.ts';
import { projectNumSql } from '../../src/db/id-numbers.ts';

describeEachDialect('visitor-set entries', (ctx) => {
  const hex = (entry: unknown) =>
    typeof entry === 'string' ? entry.replaceAll('-', '') : Buffer.from(entry as Uint8Array).toString('hex');

  test('the SQL entry of a project, scope and visitor id is the one the roll-ups compute', async () => {
    const project = '7d1e2c58-0d4f-4a57-9a0e-3c2b1a0f9e8d';
    const triples = [
      [project, 's:0b6f0c3e-6a4b-4f39-9d3e-2f1c7c1d2a11:h:2026-11-27T13', 'q2nC5Yp0uGx3b7wKzVd1aA'],
      [project, 'b:referrer:https://news.example/café?q=ü', 'q2nC5Yp0uGx3b7wKzVd1aA'],
      [project, 'b:utm_campaign:汉字 and spaces', '{0B6F0C3E-6A4B-4F39-9D3E-2F1C7C1D2A11}'],
      // The same scope and visitor in another project.
      ['another-project', 'b:utm_campaign:汉字 and spaces', '{0B6F0C3E-6A4B-4F39-9D3E-2F1C7C1D2A11}'],
      ['', '', ''],
      // Triples whose texts would join the same without the lengths first.
      [project, 'xb', 'a'],
      [project, 'b', 'ax'],
      ['p1', 'x', 'v'],
      ['p', '1x', 'v'],
    ];
    const entries = new Set<string>();
    for (const [projectId, scope, visitor] of triples) {
      const { rows } = await sql<{ entry: unknown }>`select ${sql.raw(
        visitorEntrySql(ctx.dialect, 'project_id', 'scope', 'visitor'),
      )} as entry from (select ${projectId} as project_id, ${scope} as scope, ${visitor} as visitor) as triple`.execute(
        ctx.db.kysely,
      );
      const expected = visitorEntryOf(projectId, scope, visitor).toString('hex');
      assert.equal(hex(rows[0].entry), expected, `${projectId} / ${scope} / ${visitor}`);
      entries.add(expected);
    }
    assert.equal(entries.size, triples.length);
  });

  test("a visitor an older release's sets hold for the day is not counted again", async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [articleInput({ slug: 'known' }), articleInput({ slug: 'fresh' })]);
    const ids = Object.fromEntries(
      (
        await ctx.db.kysely
          .selectFrom('articles')
          .select(['id', 'slug'])
          .where('project_id', '=', project.id)
          .execute()
      ).map((row) => [row.slug, row.id]),
    );
    const at = new Date();
    const day = utcDay(at);
    // Before the upgrade, an instance of the older release counted visitor `a` in `known`'s day.
    await ctx.db.kysely
      .insertInto('analytics_visitor_sets')
      .values({ project_id: project.id, day, scope: `s:${ids.known}:d:${day}`, visitor_id: 'a' })
      .execute();
    await writePageViews(ctx.db, project, [
      { slug: 'known', visitor: 'a', at },
      { slug: 'fresh', visitor: 'a', at },
    ]);
    await rollUpQueued(ctx.db);
    const visitors = Object.fromEntries(
      (
        await ctx.db.kysely
          .selectFrom('analytics_daily_articles')
          .select(['article_id', 'views', 'visitors'])
          .where('project_id', '=', project.id)
          .where('day', '=', day)
          .execute()
      ).map((row) => [row.article_id, [Number(row.views), Number(row.visitors)]]),
    );
    // `known`'s view is counted, its visitor was already; `fresh`'s set never held it.
    assert.deepEqual(visitors, { [ids.known]: [1, 0], [ids.fresh]: [1, 1] });
  });

  test('the cleanup forgets the entries of the days before yesterday, a project at a time', async () => {
    const owners = [await createTestProject(ctx.db), await createTestProject(ctx.db)];
    const now = new Date();
    const today = utcDay(now);
    const days = [-4, -2, -1, 0].map((offset) => shiftDay(today, offset));
    for (const { project } of owners) {
      for (const day of days) {
        for (let visitor = 0; visitor < 5; visitor++) {
          await sql`insert into analytics_visitor_entries (project_num, day, entry)
            values (${projectNumSql(project.id)}, ${day},
              ${visitorEntryParameter(project.id, 's::h:x', `v${visitor}`, ctx.dialect)})`.execute(
            ctx.db.kysely,
          );
        }
      }
    }
    const deleted = await runCleanup(ctx.db, { retentionDays: null, batchSize: 3, now });
    assert.equal(deleted.analytics_visitor_sets, 2 * 2 * 5);
    for (const { project } of owners) {
      const { rows } = await sql<{
        day: string;
        count: number;
      }>`select cast(day as text) as day, count(*) as count
        from analytics_visitor_entries
        where project_num = ${projectNumSql(project.id)}
        group by day order by day`.execute(ctx.db.kysely);
      assert.deepEqual(
        rows.map((row) => [row.day, Number(row.count)]),
        [
          [days[2], 5],
          [days[3], 5],
        ],
      );
    }
  });
});
