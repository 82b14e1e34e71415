import assert from 'node:assert/strict';
import { test } from 'node:test';
import { articleInput, createTestProject, describeEachDialect, getJson, importArticles } from './helpers.ts';

describeEachDialect('smoke', (ctx) => {
  test('list and search', async () => {
    const { project, headers } = await createTestProject(ctx.db);
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'a', title: 'École 100% _under_', tags: ['X'] }),
      articleInput({ slug: 'b', title: 'Other', content: 'He said "hi"' }),
    ]);
    const list = await getJson(ctx.app, '/v1/articles', headers);
    assert.equal(list.status, 200);
    assert.equal(list.body.meta.total, 2);
    for (const [q, n] of [
      ['école', 1],
      ['ÉCOLE', 1],
      ['100%', 1],
      ['%', 1],
      ['_', 1],
      ['"hi"', 1],
      ['zz', 0],
      ['e', 2],
      ['ole', 1],
    ] as const) {
      const r = await getJson(ctx.app, `/v1/articles?search=${encodeURIComponent(q)}`, headers);
      assert.equal(r.body.meta?.total, n, `${q}: ${JSON.stringify(r.body)}`);
    }
  });
});
