// PostgreSQL runs the statements marked by preparedOnPostgres (db/database.ts) as named prepared
// statements, by a generic plan from their sixth run on: a plan made without the parameters' values.
// Such a plan once searched a project's article days by the project alone for every row of a
// roll-up batch: 210 ms a batch, found by the read-mix bench (its throughput while tracking fell
// from 90% to 67% of the quiet one), not by a test. Here every statement that page views and their
// roll-up run by name is caught as it runs, on a database whose tables hold thousands of rows, and
// its generic plan must read each table of that size by an index, finding few rows per lookup.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import { PageViewWriter } from '../../src/analytics/ingest/page-view-writer.ts';
import {
  isPageViewOfPublishedArticle,
  isPublishedArticle,
} from '../../src/analytics/ingest/queries/published-article.ts';
import { findArticleId } from '../../src/analytics/reports/queries/article-id.ts';
import { rollUpQueued } from '../../src/analytics/rollups/rollup-queue.ts';
import { findViewCountBySlug } from '../../src/content/article-queries.ts';
import { hashKey } from '../../src/projects/keys.ts';
import { queryActiveKey } from '../../src/projects/queries.ts';
import { columnArrays, unnestArrays } from '../../src/db/dialect-sql.ts';
import type { Db } from '../../src/db/database.ts';
import {
  articleInput,
  createTestDatabase,
  createTestProject,
  genericPlanTree,
  importArticles,
  type PlanNode,
  postgresUrl,
} from '../helpers.ts';
import { daysAgo, factoryRow, insertEmptyArticleDays } from '../analytics/support.ts';

/** A table holding this many rows is read by an index, never scanned. */
const largeTable = 1000;
/** Rows an index lookup of one key may find, by the planner's estimate. */
const rowsPerLookup = 10;

interface Sizes {
  /** Rows of each table (and partition) as ANALYZE counted them. */
  rows: Map<string, number>;
  /** The key columns of each index. */
  keys: Map<string, string[]>;
}

async function sizesOf(db: Db): Promise<Sizes> {
  const tables = await sql<{ name: string; rows: number }>`select relname as name, reltuples::int as rows
    from pg_class where relkind in ('r', 'p') and relnamespace = current_schema()::regnamespace`.execute(
    db.kysely,
  );
  const indexes = await sql<{ name: string; columns: string[] }>`select c.relname as name,
      array_agg(a.attname::text order by a.attnum) as columns
    from pg_index as i join pg_class as c on c.oid = i.indexrelid
    join pg_attribute as a on a.attrelid = i.indrelid and a.attnum = any ((i.indkey::int2[])[0:i.indnkeyatts - 1])
    where c.relnamespace = current_schema()::regnamespace group by c.relname`.execute(db.kysely);
  return {
    rows: new Map(tables.rows.map((row) => [row.name, row.rows])),
    keys: new Map(indexes.rows.map((row) => [row.name, row.columns])),
  };
}

/**
 * What is wrong with a plan: a scan of a large table, an index lookup that finds many rows, or one
 * that filters rows its index found without having named every column of that index.
 */
function planProblems(plan: PlanNode, sizes: Sizes): string[] {
  const problems: string[] = [];
  const visit = (node: PlanNode) => {
    const table = node['Relation Name'];
    if (table !== undefined && (sizes.rows.get(table) ?? 0) >= largeTable) {
      const what = `${node['Node Type']} on ${table}${node['Index Name'] ? ` by ${node['Index Name']}` : ''}`;
      if (node['Node Type'] === 'Seq Scan') problems.push(`${what}: a scan of ${sizes.rows.get(table)} rows`);
      else if (node['Plan Rows'] > rowsPerLookup)
        problems.push(`${what} (${node['Index Cond'] ?? ''}): ${node['Plan Rows']} rows a lookup`);
      else if (node.Filter !== undefined && node['Index Name'] !== undefined) {
        const named = new Set(
          [...(node['Index Cond'] ?? '').matchAll(/\((\w+) = /g)].map((match) => match[1]),
        );
        const unnamed = (sizes.keys.get(node['Index Name']) ?? []).filter((column) => !named.has(column));
        if (unnamed.length > 0)
          problems.push(
            `${what} (${node['Index Cond'] ?? ''}) filters (${node.Filter}) without ${unnamed.join(', ')}`,
          );
      }
    }
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(plan);
  return problems;
}

test('PostgreSQL: the generic plan of every named statement of tracking, roll-ups and per-request lookups reads large tables by whole keys', async (t) => {
  if (postgresUrl === null) return t.skip('TEST_POSTGRES_URL is not set');
  // Caught where pg sends it: the pool binds each connection's query function as it connects.
  const captured = new Map<string, CompiledQuery>();
  let capturing = false;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [config] = args as [{ name?: string; text?: string; values?: unknown[] } | string];
    if (
      capturing &&
      typeof config === 'object' &&
      config.name?.startsWith('folio_') &&
      config.text !== undefined
    ) {
      captured.set(config.name, CompiledQuery.raw(config.text, config.values ?? []));
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  t.after(() => {
    pg.Client.prototype.query = query;
  });

  const { db, drop } = await createTestDatabase('postgres');
  try {
    // Three projects; the first has 3,000 articles, so that the articles' numbers are a large table.
    const owners = [];
    for (const count of [3000, 40, 40]) {
      const owner = await createTestProject(db);
      await importArticles(
        db,
        owner.project,
        Array.from({ length: count }, (_, i) => articleInput({ slug: `post-${i}` })),
      );
      owners.push(owner);
    }
    // Their history, rolled up: page views of the last 12 days of 40 articles each (1,440 page
    // views and article days).
    const writer = new PageViewWriter(db, { rollupDelayMs: 3_600_000 });
    const writes: Array<Promise<void>> = [];
    for (const { project } of owners) {
      for (let day = 1; day <= 12; day++) {
        for (let i = 0; i < 40; i++) {
          const row = factoryRow(
            project,
            { slug: `post-${i}`, at: daysAgo(day), visitor: `v${(day * 7 + i) % 50}` },
            i,
          );
          writes.push(writer.write({ kind: 'create', row, slug: `post-${i}` }));
        }
      }
    }
    await Promise.all(writes);
    await writer.idle();
    // And an older release's visitor sets (migration 0006), which the roll-ups still look into.
    await sql`insert into analytics_visitor_sets (project_id, day, scope, visitor_id)
      select ${owners[0].project.id}, to_char(date '2026-01-01' + d, 'YYYY-MM-DD'), 'project', 'old-' || v
      from generate_series(0, 29) as d cross join generate_series(1, 100) as v`.execute(db.kysely);
    // Article days of two months before (60 a article), as a blog of a few months holds.
    await insertEmptyArticleDays(
      db,
      owners.slice(1).map((owner) => owner.project.id),
      60,
    );
    await sql`analyze`.execute(db.kysely);
    const sizes = await sizesOf(db);
    for (const table of ['article_nums', 'articles', 'analytics_visitor_sets', 'analytics_article_days'])
      assert.ok((sizes.rows.get(table) ?? 0) >= largeTable, `${table} holds ${sizes.rows.get(table)} rows`);

    // The checks see a plan that reads a project's article days for every row (the regression).
    const regression = CompiledQuery.raw(
      `select d.project_id, d.day, d.article_id, d.hours, d.read_times from analytics_daily_articles as d
        join ${unnestArrays(['text', 'text', 'text'], ['project_id', 'day', 'article_id'])}
        on d.project_id = u.project_id and d.day = u.day and d.article_id = u.article_id`,
      columnArrays(
        [{ project_id: owners[1].project.id, day: daysAgo(1).toISOString().slice(0, 10), article_id: 'x' }],
        ['project_id', 'day', 'article_id'],
      ),
    );
    assert.notDeepEqual(planProblems(await genericPlanTree(db, regression), sizes), []);

    // Today's page views of one project, their updates and their roll-up, every named statement caught.
    capturing = true;
    try {
      const { project } = owners[1];
      const created = Array.from({ length: 20 }, (_, i) =>
        factoryRow(project, { slug: `post-${i}`, visitor: `today-${i}` }, i),
      );
      await Promise.all(created.map((row, i) => writer.write({ kind: 'create', row, slug: `post-${i}` })));
      const now = new Date().toISOString();
      // Updates alone in a batch (one statement), then beside a new page view (the batch's transaction).
      const update = (id: string, patch: { timeOnPageMs?: number; scrollDepthCenti?: number }) =>
        writer.write({ kind: 'update', projectId: project.id, id, patch, now });
      await Promise.all(created.map((row) => update(row.id, { timeOnPageMs: 9000 })));
      await Promise.all([
        update(created[0].id, { scrollDepthCenti: 5000 }),
        writer.write({ kind: 'create', row: factoryRow(project, { slug: 'post-3' }, 99), slug: 'post-3' }),
      ]);
      await rollUpQueued(db);
      // The lookups of every request of their kind (db/compiled-query.ts).
      assert.equal(
        await queryActiveKey(db, hashKey(owners[1].key)).then((found) => found?.project.id),
        project.id,
      );
      assert.equal(await isPublishedArticle(db, project, 'post-5', now), true);
      assert.equal(await isPageViewOfPublishedArticle(db, project, created[4].id, now), true);
      assert.notEqual(await findArticleId(db, project.id, 'post-6'), null);
      // Its views of the last 12 days and today's.
      assert.equal(await findViewCountBySlug(db, project.id, 'post-7'), 13);
    } finally {
      capturing = false;
    }
    await writer.close();

    assert.ok(captured.size >= 17, `${captured.size} named statements caught`);
    for (const [name, statement] of captured) {
      const problems = planProblems(await genericPlanTree(db, statement), sizes);
      assert.deepEqual(problems, [], `${name}: ${statement.sql.replace(/\s+/g, ' ').slice(0, 200)}`);
    }
  } finally {
    await drop();
  }
});
