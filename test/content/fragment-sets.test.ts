// A fragment held by many words (`tion`) is stored as a set of its own once a search read its word
// sets alone (fragment-sets.ts), and read from it afterwards: it must hold exactly the articles
// whose text holds the fragment, after every kind of content change, and never be stored from a
// read older than the content.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findMatches, type MatchLimits, type Run } from '../../src/content/article-matches.ts';
import type { ArticleFilter } from '../../src/content/article-queries.ts';
import { projectFragments, rebuildArticleSets } from '../../src/content/article-set-queries.ts';
import { articleSetKeys } from '../../src/content/article-sets.ts';
import { fragmentSetsWritten, keepFragmentSets } from '../../src/content/fragment-sets.ts';
import { termSetsOf } from '../../src/content/search-cache.ts';
import { articleInput, createTestProject, describeEachDialect, importArticles } from '../helpers.ts';
import { contentVersion } from '../../src/analytics/rollups/queries/content-version.ts';
import { recordingRun, searchFilter } from './search-support.ts';

const count = 40;
const words = ['nation', 'motion', 'station', 'plain'];
const inputs = () =>
  Array.from({ length: count }, (_, i) =>
    articleInput({
      slug: `f-${String(i).padStart(2, '0')}`,
      title: i % 5 === 0 ? `Ration ${i}` : `Title ${i}`,
      content: `${words[i % words.length]} word${i}`,
    }),
  );

/** Past a share of one chunk, a term held by three words is read alone. */
const limits: MatchLimits = {
  termChunksFirst: 1,
  checkedInTexts: 0,
  termChunksMost: 1000,
  laterCheckedInTexts: 0,
};

test('articleSetKeys: an article is in the set of each stored fragment its text holds, in no other', () => {
  const keys = articleSetKeys({ status: 'published', tagIds: [], searchText: 'a nation\nof motion' }, [
    'tion',
    'atio',
    'otion',
    'ation of',
    'zzzz',
  ]);
  assert.deepEqual(
    [...keys].filter((key) => key.startsWith('f:')),
    ['f:tion', 'f:atio', 'f:otion'],
  );
});

describeEachDialect('stored fragment sets', (ctx) => {
  test('search: a fragment read alone is stored, then read from its own set, exact after creates, updates, deletes, imports and a rebuild', async () => {
    const p = await createTestProject(ctx.db, { scopes: ['read', 'write'] });
    const projectId = p.project.id;
    await importArticles(ctx.db, p.project, inputs());
    const { run, statements } = recordingRun(ctx.db, { offThread: false });
    const filter = (): ArticleFilter => ({
      projectId,
      now: new Date().toISOString(),
      searchTerms: ['TION'],
      anyTagIds: null,
      allTagIds: null,
      excludeTagIds: [],
    });
    const version = () => contentVersion(ctx.db.kysely, projectId);
    /** The ordinals of the articles whose text holds the fragment, read here. */
    const expected = async () =>
      (
        await ctx.db.kysely
          .selectFrom('articles')
          .select(['ordinal', 'search_text'])
          .where('project_id', '=', projectId)
          .execute()
      )
        .filter((row) => row.search_text.includes('tion'))
        .map((row) => Number(row.ordinal))
        .sort((a, b) => a - b);
    const search = async () => {
      statements.length = 0;
      const found = await findMatches(ctx.db.kysely, ctx.db.dialect, filter(), run, null, limits);
      assert.ok(found !== null);
      return found;
    };

    const first = await search();
    assert.deepEqual(first.set.ordinals(), await expected());
    assert.deepEqual(
      first.readAlone.map((read) => read.fragment),
      ['tion'],
    );
    assert.deepEqual(await projectFragments(ctx.db.kysely, projectId), []);
    keepFragmentSets(ctx.db, projectId, await version(), first.readAlone);
    await fragmentSetsWritten(ctx.db);
    assert.deepEqual(await projectFragments(ctx.db.kysely, projectId), ['tion']);

    /** Read from the stored set: no word set read, and the articles holding the fragment. */
    const check = async (label: string) => {
      const found = await search();
      assert.deepEqual(found.readAlone, [], label);
      assert.ok(!statements.some((text) => /string_agg|group_concat/.test(text)), label);
      assert.deepEqual(found.set.ordinals(), await expected(), label);
    };
    await check('stored');

    const write = async (method: string, url: string, body?: object, version?: number) => {
      const response = await ctx.app.inject({
        method: method as 'POST',
        url,
        headers: { ...p.headers, ...(version === undefined ? {} : { 'if-match': `"${version}"` }) },
        ...(body === undefined ? {} : { payload: body }),
      });
      assert.ok(response.statusCode < 300, response.body);
    };
    await write('POST', '/v1/articles', {
      title: 'Devotion',
      slug: 'new-one',
      content: 'plain',
      status: 'published',
    });
    await check('created with the fragment in its title');
    // f-00 held it in its title and content; f-01 in its content only.
    await write('PATCH', '/v1/articles/f-00', { title: 'Plain', content: 'plain' }, 1);
    await write('PATCH', '/v1/articles/f-01', { content: 'plain' }, 1);
    await write('PATCH', '/v1/articles/f-03', { content: 'an emotion' }, 1);
    await check('updated');
    await write('DELETE', '/v1/articles/f-02', undefined, 1);
    await check('deleted');
    // An import changing some, adding one and pruning the rest.
    await importArticles(
      ctx.db,
      p.project,
      [
        ...inputs()
          .slice(4, 20)
          .map((input, i) => (i % 2 === 0 ? { ...input, content: 'nothing here' } : input)),
        articleInput({ slug: 'imported', content: 'a notion' }),
      ],
      [],
      { prune: true },
    );
    await check('imported and pruned');
    await ctx.db.kysely.transaction().execute((trx) => rebuildArticleSets(trx, projectId));
    assert.deepEqual(await projectFragments(ctx.db.kysely, projectId), ['tion']);
    await check('rebuilt');
  });

  test('search: a stored fragment found once is not read from its words again, at the next content versions', async () => {
    const p = await createTestProject(ctx.db);
    await importArticles(ctx.db, p.project, inputs());
    const { run, statements } = recordingRun(ctx.db, { offThread: false });
    const filter: ArticleFilter = searchFilter(p.project.id, ['tion']);
    const found = await findMatches(ctx.db.kysely, ctx.db.dialect, filter, run, null, limits);
    const version = await contentVersion(ctx.db.kysely, p.project.id);
    keepFragmentSets(ctx.db, p.project.id, version, found!.readAlone);
    await fragmentSetsWritten(ctx.db);
    // The search sets of a new process (this handle's, at versions never read): the first search
    // reads a share of the words with the stored set, the next (another version) the stored set alone.
    const at = async (version: number) => {
      statements.length = 0;
      const matches = await findMatches(
        ctx.db.kysely,
        ctx.db.dialect,
        filter,
        run,
        termSetsOf(ctx.db, p.project.id, version),
        limits,
      );
      assert.equal(matches?.set.size, found?.set.size);
      return statements.join('\n');
    };
    assert.match(await at(1_000), /search_tokens/);
    assert.doesNotMatch(await at(1_001), /search_tokens|string_agg|group_concat/);
  });

  test('search: a fragment read before a content change is not stored', async () => {
    const p = await createTestProject(ctx.db);
    await importArticles(ctx.db, p.project, inputs());
    const run: Run = async (query) => (await ctx.db.kysely.executeQuery(query)).rows;
    const found = await findMatches(
      ctx.db.kysely,
      ctx.db.dialect,
      searchFilter(p.project.id, ['tion']),
      run,
      null,
      limits,
    );
    assert.equal(found?.readAlone.length, 1);
    const read = await contentVersion(ctx.db.kysely, p.project.id);
    // One more article holding the fragment, committed after the read.
    await importArticles(ctx.db, p.project, [
      ...inputs(),
      articleInput({ slug: 'later', content: 'lotion' }),
    ]);
    keepFragmentSets(ctx.db, p.project.id, read, found!.readAlone);
    await fragmentSetsWritten(ctx.db);
    assert.deepEqual(await projectFragments(ctx.db.kysely, p.project.id), []);
  });
});
