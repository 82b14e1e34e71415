// The Docusaurus and Next.js fixtures imported into a project and read back through the API on
// each database: tag slugs from tags.yml and github-slugger find their tags, and articles keep
// their authors, last editor and co-located images (URLs and authors as API fields are the
// serving stage's, tested with it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readContentSource } from '../../../../src/content/import/read-source.ts';
import { importContent } from '../../../../src/content/import.ts';
import { createTestProject, describeEachDialect, getJson } from '../../../helpers.ts';
import { fixturePath } from './harness.ts';

const select = (fields: string[]) =>
  `select=${encodeURIComponent(JSON.stringify(Object.fromEntries(fields.map((f) => [f, true]))))}`;

describeEachDialect('Docusaurus and Next.js imports', (ctx) => {
  test('Docusaurus: tags.yml slugs find their tags; a post keeps its author, last editor and folder images', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://lantern.example.io' });
    await importContent(ctx.db, project.slug, await readContentSource(fixturePath('docusaurus')));
    const release = await getJson(ctx.app, '/v1/tags/releases', headers);
    assert.equal(release.status, 200);
    assert.equal(release.body.data.name, 'Release');
    assert.equal((await getJson(ctx.app, '/v1/tags/release', headers)).status, 200, 'found by name too');
    const post = await getJson(ctx.app, `/v1/articles/lantern-1-0?${select(['author', 'tags'])}`, headers);
    assert.equal(post.status, 200);
    assert.deepEqual(post.body.data.author, {
      name: 'Ana Ribeiro',
      image: 'https://github.com/ana-example.png',
    });
    assert.deepEqual(
      // The API lists an article's tags by name.
      post.body.data.tags.map((tag: { name: string }) => tag.name),
      ['Community', 'Release'],
    );
    const offline = await getJson(
      ctx.app,
      `/v1/articles/offline-mode?${select(['content', 'lastUpdatedBy', 'updatedAt'])}`,
      headers,
    );
    assert.match(offline.body.data.content, /blog\/2024\/04\/22\/offline-mode\/queue\.png/);
    assert.deepEqual(offline.body.data.lastUpdatedBy, { name: 'Rui Costa', image: null });
    assert.equal(offline.body.data.updatedAt, '2024-05-02T00:00:00.000Z');
  });

  test('Next.js tailwind starter: github-slugger tag slugs find their tags; JSX that is plain HTML is stored as HTML', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: 'https://pixel.example.io' });
    await importContent(
      ctx.db,
      project.slug,
      await readContentSource(fixturePath('nextjs/tailwind-starter')),
    );
    const next = await getJson(ctx.app, '/v1/tags/nextjs', headers);
    assert.equal(next.status, 200);
    assert.equal(next.body.data.name, 'Next.js');
    const colour = await getJson(
      ctx.app,
      `/v1/articles/colour-picker?${select(['content', 'tags'])}`,
      headers,
    );
    assert.match(colour.body.data.content, /<div class="flex gap-2">/);
    assert.deepEqual(
      colour.body.data.tags.map((tag: { name: string }) => tag.name).sort(),
      ['Next.js', 'Tooling', 'colour'].sort(),
    );
  });
});
