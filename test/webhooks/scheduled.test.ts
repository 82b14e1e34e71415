// Scheduled publication: when an article's time comes, one article.published event, whichever of
// several instances on the database notices, and none again after a restart.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { CompiledQuery } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { dueArticles } from '../../src/content/announcements.ts';
import { recordEvents } from '../../src/db/outbox.ts';
import { earliestUnannouncedQuery } from '../../src/webhooks/queries.ts';
import {
  articleInput,
  configuredDialects,
  createTestDatabase,
  createTestProject,
  eventually,
  importArticles,
  queryPlan,
  type TestDatabase,
} from '../helpers.ts';
import { eventDispatched, testWebhookOptions } from './support.ts';

for (const dialect of configuredDialects()) {
  describe(`scheduled publication [${dialect}]`, () => {
    let database: TestDatabase;
    const apps: FastifyInstance[] = [];
    before(async () => {
      database = await createTestDatabase(dialect);
    });
    after(async () => {
      for (const app of apps) await app.close();
      await database.drop();
    });

    const publishedEvents = async (projectId: string) =>
      (
        await database.db.kysely
          .selectFrom('outbox_events')
          .select(['type', 'data'])
          .where('project_id', '=', projectId)
          .where('type', '=', 'article.published')
          .execute()
      ).map((row) => JSON.parse(row.data).slug as string);

    // The dispatcher asks for the earliest every 15 s and after every write, and each article write
    // for its project's due articles: a scan of every article's row, 130 to 400 ms at 100,000.
    test('the unannounced articles are read from their own index, never by reading every article', async () => {
      const { project } = await createTestProject(database.db);
      await importArticles(database.db, project, [
        articleInput({ slug: 'out', publishedAt: '2026-01-01T00:00:00.000Z' }),
        articleInput({ slug: 'later', publishedAt: '2099-01-01T00:00:00.000Z' }),
        articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
      ]);
      const now = new Date();
      const queries: Array<[string, CompiledQuery]> = [
        ['the earliest of all projects', earliestUnannouncedQuery(database.db.kysely).compile()],
        ['the due articles of all projects', dueArticles(database.db.kysely, now).compile()],
        ['the due articles of a project', dueArticles(database.db.kysely, now, project.id).compile()],
      ];
      for (const [name, query] of queries) {
        const plan = await queryPlan(database.db, query);
        assert.match(plan, /articles_unannounced/, `${name}: ${plan}`);
      }
    });

    test('two instances on one database: one article.published per due article, none again after a restart', async () => {
      const { project } = await createTestProject(database.db);
      const soon = new Date(Date.now() + 1_500).toISOString();
      await importArticles(database.db, project, [
        articleInput({ slug: 'already-out', publishedAt: '2026-01-01T00:00:00.000Z' }),
        articleInput({ slug: 'soon-1', publishedAt: soon }),
        articleInput({ slug: 'soon-2', publishedAt: soon }),
        articleInput({ slug: 'much-later', publishedAt: '2099-01-01T00:00:00.000Z' }),
        articleInput({ slug: 'a-draft', status: 'draft', publishedAt: null }),
      ]);
      for (let index = 0; index < 2; index++) {
        const app = await buildApp({ db: database.db, webhooks: testWebhookOptions() });
        await app.ready();
        apps.push(app);
      }
      await eventually(async () => (await publishedEvents(project.id)).length >= 3);
      // Both instances keep running past the moment; then both restart.
      const announced = await database.db.kysely
        .selectFrom('articles')
        .select(['slug', 'announced_published_at', 'published_at'])
        .where('project_id', '=', project.id)
        .orderBy('slug')
        .execute();
      for (const app of apps.splice(0)) await app.close();
      const restarted = await buildApp({ db: database.db, webhooks: testWebhookOptions() });
      await restarted.ready();
      apps.push(restarted);
      // The restarted dispatcher announces before it fans out: once it has fanned this one out, it
      // has looked for due publications too.
      const [sentinel] = await database.db.kysely
        .transaction()
        .execute((trx) => recordEvents(trx, [{ projectId: project.id, type: 'tag.created', data: {} }]));
      await eventually(() => eventDispatched(database.db, sentinel!));
      assert.deepEqual((await publishedEvents(project.id)).sort(), ['already-out', 'soon-1', 'soon-2']);
      for (const row of announced) {
        if (row.slug === 'already-out' || row.slug.startsWith('soon')) {
          assert.equal(row.announced_published_at, row.published_at, row.slug);
        } else assert.equal(row.announced_published_at, null, row.slug);
      }
    });
  });
}
