// The earliest scheduled publication, which the answer cache asks for every answer it keeps, is
// kept under the project's content version and until that moment comes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextPublication } from '../../src/projects/next-publication.ts';
import { articleInput, createTestProject, describeEachDialect, importArticles } from '../helpers.ts';

describeEachDialect('next scheduled publication', (ctx) => {
  const at = (day: number) => `2099-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;
  const now = '2026-06-01T00:00:00.000Z';

  test('kept while the content version holds, asked again for a new version', async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [articleInput({ slug: 'later', publishedAt: at(20) })]);
    const version = { id: project.id, content_version: 1 };
    assert.equal(await nextPublication(ctx.db, version, now), at(20));
    // Written behind the version's back (no import bumps it): the kept answer stands.
    await ctx.db.kysely
      .updateTable('articles')
      .set({ published_at: at(10) })
      .where('project_id', '=', project.id)
      .execute();
    assert.equal(await nextPublication(ctx.db, version, now), at(20));
    assert.equal(await nextPublication(ctx.db, { ...version, content_version: 2 }, now), at(10));
  });

  test('asked again once the moment found has come', async () => {
    const { project } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'first', publishedAt: at(5) }),
      articleInput({ slug: 'second', publishedAt: at(15) }),
    ]);
    const version = { id: project.id, content_version: 1 };
    assert.equal(await nextPublication(ctx.db, version, now), at(5));
    assert.equal(await nextPublication(ctx.db, version, at(6)), at(15));
    assert.equal(await nextPublication(ctx.db, version, at(16)), null);
  });
});
