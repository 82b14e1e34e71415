// The ways a list finds its matches and pages must all give the same answers: a term's words read
// with the other sets, read alone, or replaced by a check of the few candidates' texts; a term
// longer than the word windows; pages read from the end, or found by their ids first; a term's
// set kept between searches until the content changes. Checked against references computed here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { sql } from 'kysely';
import { findMatches, type MatchLimits, type Run } from '../../src/content/article-matches.ts';
import { readArticlePage, readSearchPageOnSqlite } from '../../src/content/article-page.ts';
import type { ArticleFilter, ArticleOrder } from '../../src/content/article-queries.ts';
import { rebuildArticleSets } from '../../src/content/article-set-queries.ts';
import { termSetsOf } from '../../src/content/search-cache.ts';
import type { ArticleInput } from '../../src/content/import/records.ts';
import { articleInput, createTestProject, describeEachDialect, getJson, importArticles } from '../helpers.ts';
import { contentVersion } from '../../src/analytics/rollups/queries/content-version.ts';
import { recordingRun, searchFilter } from './search-support.ts';

const count = 130;
const tagNames = ['Alpha', 'Beta'];
/** 300 characters, longer than the word windows (256), and one that differs only at its end. */
const longWord = 'ab'.repeat(150);
const longTwin = `${'ab'.repeat(140)}zz${'ab'.repeat(9)}`;

function articles(): ArticleInput[] {
  return Array.from({ length: count }, (_, i) => {
    const moment = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString();
    const draft = i % 11 === 5;
    const words = [`word${i}`, i % 4 === 0 ? 'common' : 'plain', i % 9 === 2 ? 'rare' : ''];
    if (i % 13 === 1) words.push(longWord);
    if (i % 17 === 3) words.push(longTwin);
    return articleInput({
      slug: `a-${String(i).padStart(3, '0')}`,
      // Titles in another order than creation, some equal but for case.
      title: `${['Kiwi', 'apple', 'Mango', 'banana'][i % 4]} ${(i * 37) % count}`,
      content: words.join(' '),
      status: draft ? 'draft' : 'published',
      publishedAt: draft ? null : new Date(Date.UTC(2025, 0, 1) + ((i * 53) % count) * 60_000).toISOString(),
      createdAt: moment,
      tags: tagNames.filter((_, t) => (i >> t) % 2 === 1),
    });
  });
}

interface Stored {
  id: string;
  slug: string;
  createdAt: string;
  titleKey: string;
  publishedAt: string | null;
}

/** The list's order, computed here: the sort key, then the id in the same direction. */
function sorted(
  rows: Stored[],
  sort: 'createdAt' | 'title' | 'publishedAt',
  order: 'asc' | 'desc',
): string[] {
  const key = (row: Stored) =>
    sort === 'title' ? row.titleKey : sort === 'createdAt' ? row.createdAt : row.publishedAt;
  const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const sign = order === 'asc' ? 1 : -1;
  return [...rows]
    .sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      // Null publishedAt sorts last in both orders.
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (x !== y) return sign * byBytes(x, y);
      return sign * byBytes(a.id, b.id);
    })
    .map((row) => row.slug);
}

/** `word` is held by a word set per article: past a share of 3 chunks, it is read alone. */
const wordReadAlone: MatchLimits = {
  termChunksFirst: 3,
  checkedInTexts: 0,
  termChunksMost: 1000,
  laterCheckedInTexts: 0,
};

describeEachDialect('search matches and deep pages', (ctx) => {
  test('list: pages read from either end, or found by their ids first, are the slices of the whole list in every sort', async () => {
    const p = await createTestProject(ctx.db);
    const inputs = articles();
    await importArticles(ctx.db, p.project, inputs, []);
    const stored = (
      await ctx.db.kysely
        .selectFrom('articles')
        .select(['id', 'slug', 'created_at', 'title_key', 'published_at'])
        .where('project_id', '=', p.project.id)
        .execute()
    ).map((row) => ({
      id: row.id,
      slug: row.slug,
      createdAt: row.created_at,
      titleKey: row.title_key,
      publishedAt: row.published_at,
    }));
    const bySlug = new Map(inputs.map((input) => [input.slug, input]));
    const tagIds = new Map(
      (
        await ctx.db.kysely
          .selectFrom('tags')
          .select(['id', 'name_key'])
          .where('project_id', '=', p.project.id)
          .execute()
      ).map((tag) => [tag.name_key, tag.id]),
    );
    const readExactly = (query: Record<string, string>, page: number) => {
      const filter: ArticleFilter = {
        projectId: p.project.id,
        now: new Date().toISOString(),
        status: query.status as ArticleFilter['status'],
        searchTerms: query.search === undefined ? [] : [query.search],
        anyTagIds: query.tags === undefined ? null : [tagIds.get(query.tags)!],
        allTagIds: null,
        excludeTagIds: query.excludeTags === undefined ? [] : [tagIds.get(query.excludeTags)!],
      };
      const read = {
        filter,
        order: { sort: query.sort, order: query.order } as ArticleOrder,
        page: { offset: (page - 1) * 7, limit: 7 },
        columns: { content: false, html: false },
        project: p.project,
      };
      return ctx.db.kysely.transaction().execute(async (trx) => {
        if (ctx.db.dialect === 'postgres')
          await sql`set transaction isolation level repeatable read`.execute(trx);
        const run: Run = async (compiled) => (await trx.executeQuery(compiled)).rows;
        return readArticlePage(ctx.db, read, run, true, 0);
      });
    };
    const filters: Array<[Record<string, string>, (input: ArticleInput) => boolean]> = [
      [{}, () => true],
      [{ tags: 'alpha' }, (a) => a.tags.includes('Alpha')],
      [{ search: 'common' }, (a) => a.content.includes('common')],
      // Most articles: a page is then found by the ordinals of the others.
      [{ search: 'word', status: 'published' }, (a) => a.status === 'published'],
      [
        { search: 'plain', excludeTags: 'beta' },
        (a) => a.content.includes('plain') && !a.tags.includes('Beta'),
      ],
    ];
    const sorts = [
      ['createdAt', 'desc'],
      ['title', 'asc'],
      ['publishedAt', 'desc'],
      ['publishedAt', 'asc'],
    ] as const;
    for (const [query, matches] of filters) {
      for (const [sort, order] of sorts) {
        const expected = sorted(
          stored.filter((row) => matches(bySlug.get(row.slug)!)),
          sort,
          order,
        );
        const label = JSON.stringify({ ...query, sort, order });
        // Seven a page: every page, the deep ones (offset 50 and more) from both ends.
        for (let page = 1; page <= Math.ceil(expected.length / 7); page++) {
          const params = new URLSearchParams({ ...query, sort, order, limit: '7', page: String(page) });
          const answer = await getJson(ctx.app, `/v1/articles?${params}`, p.headers);
          assert.equal(answer.status, 200, label);
          assert.equal(answer.body.meta.total, expected.length, label);
          assert.deepEqual(
            answer.body.data.map((article: { slug: string }) => article.slug),
            expected.slice((page - 1) * 7, page * 7),
            `${label} page ${page}`,
          );
          // The same page found by the ordinals of the matches alone, as a search on PostgreSQL
          // finds a long walk's page in its one snapshot (here every walk counts as long).
          const exact = await readExactly({ ...query, sort, order }, page);
          assert.deepEqual(
            exact.rows.map((row) => row.slug),
            expected.slice((page - 1) * 7, page * 7),
            `${label} page ${page}, by ordinals`,
          );
          assert.equal(exact.total, expected.length, label);
        }
      }
    }
  });

  test('search on SQLite: a page is found by the ordinals of the matches when nothing was committed meanwhile, else read again checking each text', async (t) => {
    if (ctx.db.dialect !== 'sqlite') {
      t.skip('a search on PostgreSQL reads one snapshot (repeatable read)');
      return;
    }
    const p = await createTestProject(ctx.db);
    const inputs = articles();
    await importArticles(ctx.db, p.project, inputs, []);
    const read = {
      filter: searchFilter(p.project.id, ['word']),
      order: { sort: 'createdAt', order: 'desc' } as ArticleOrder,
      page: { offset: 56, limit: 7 },
      columns: { content: false, html: false },
      project: p.project,
    };
    const pages: string[] = [];
    let duringSearch: (() => Promise<void>) | null = null;
    const run: Run = async (compiled) => {
      const rows = await ctx.db.readOffThread(compiled, 'search');
      // The queries that find the page (not the one reading its rows by their ids).
      if (
        /from "articles"/.test(compiled.sql) &&
        /order by/.test(compiled.sql) &&
        !/"id" in \(/.test(compiled.sql)
      )
        pages.push(compiled.sql);
      if (compiled.sql.includes('article_sets') && duringSearch !== null) {
        const write = duringSearch;
        duringSearch = null;
        await write();
      }
      return rows as never;
    };
    const slugsByCreation = [...inputs]
      .sort((a, b) => b.createdAt!.localeCompare(a.createdAt!))
      .map((a) => a.slug);
    // Background work of the app (announcements, roll-ups) may commit during a read on a busy
    // machine, which then reads the page again: a few tries for one that saw no commit.
    let quiet = await readSearchPageOnSqlite(ctx.db, read, run, 0);
    for (let tries = 1; pages.length > 1 && tries < 5; tries++) {
      pages.length = 0;
      quiet = await readSearchPageOnSqlite(ctx.db, read, run, 0);
    }
    assert.equal(quiet.total, count);
    assert.deepEqual(
      quiet.rows.map((row) => row.slug),
      slugsByCreation.slice(56, 63),
    );
    assert.equal(pages.length, 1);
    assert.doesNotMatch(pages[0], /instr\(/, 'found by ordinals, no text checked');
    // An import commits between the read of the sets and the page: the page is read again, each
    // article checked by its text.
    pages.length = 0;
    duringSearch = async () => {
      await importArticles(ctx.db, p.project, [
        ...inputs,
        articleInput({ slug: 'one-more', content: 'no match' }),
      ]);
    };
    const busy = await readSearchPageOnSqlite(ctx.db, read, run, 0);
    assert.equal(pages.length, 2);
    assert.match(pages[1], /instr\(/);
    assert.equal(busy.total, count);
    assert.deepEqual(
      busy.rows.map((row) => row.slug),
      slugsByCreation.slice(56, 63),
    );
    // No match: no page is read, and the commits are looked at once only.
    let looks = 0;
    const counting: Run = async (compiled) => {
      if (compiled.sql.includes('pragma_data_version')) looks++;
      return run(compiled);
    };
    const none = await readSearchPageOnSqlite(
      ctx.db,
      { ...read, filter: { ...read.filter, searchTerms: ['nowhere'] } },
      counting,
      0,
    );
    assert.equal(none.total, 0);
    assert.equal(looks, 1);
  });

  test('search: a term held by many words is counted exactly, whether its words are read with the other sets, read alone, or its candidates checked in their texts', async () => {
    const p = await createTestProject(ctx.db);
    const inputs = articles();
    await importArticles(ctx.db, p.project, inputs, []);
    const tagIds = new Map(
      (
        await ctx.db.kysely
          .selectFrom('tags')
          .select(['id', 'name'])
          .where('project_id', '=', p.project.id)
          .execute()
      ).map((tag) => [tag.name, tag.id]),
    );
    const run: Run = async (query) => (await ctx.db.kysely.executeQuery(query)).rows;
    const text = (a: ArticleInput) => `${a.title}\n${a.content}`.toLowerCase();
    const published = (a: ArticleInput) => a.status === 'published';
    const cases: Array<[terms: string[], tag: string | null, expected: (a: ArticleInput) => boolean]> = [
      [['word'], null, () => true],
      [['word', 'rare'], null, (a) => text(a).includes('rare')],
      [['word1'], 'Alpha', (a) => text(a).includes('word1') && a.tags.includes('Alpha')],
      [['ord1', 'rd12'], null, (a) => text(a).includes('ord1') && text(a).includes('rd12')],
      // More terms than are read at first: the shortest (`rare`, `lain`) wait for the first ones' result.
      [['word1', 'word', 'ord1', 'rare'], null, (a) => text(a).includes('word1') && text(a).includes('rare')],
      [
        ['plain', 'word', 'ord', 'word1', 'lain'],
        null,
        (a) => text(a).includes('word1') && text(a).includes('plain'),
      ],
      [[longWord], null, (a) => text(a).includes(longWord)],
      [[longWord.slice(0, 200)], null, (a) => text(a).includes(longWord.slice(0, 200))],
      [[longTwin, 'word'], 'Beta', (a) => text(a).includes(longTwin) && a.tags.includes('Beta')],
      [['abab', 'word'], null, (a) => text(a).includes('abab')],
      // Seven terms: the four past the first three are read in two rounds, or checked in the texts.
      [
        ['word12', 'word1', 'ord12', 'ord1', 'rd12', 'word', 'rare'],
        null,
        (a) => text(a).includes('word12') && text(a).includes('rare'),
      ],
    ];
    // Word sets read with the others; read alone; candidates checked in their texts.
    // The terms past the first three: read three at a time, or checked in the texts.
    const ways: MatchLimits[] = [
      { termChunksFirst: 1000, checkedInTexts: 1000, termChunksMost: 1000, laterCheckedInTexts: 1000 },
      { termChunksFirst: 3, checkedInTexts: 0, termChunksMost: 1000, laterCheckedInTexts: 0 },
      { termChunksFirst: 3, checkedInTexts: 1000, termChunksMost: 1000, laterCheckedInTexts: 1000 },
      { termChunksFirst: 1000, checkedInTexts: 1000, termChunksMost: 1000, laterCheckedInTexts: 0 },
    ];
    for (const [terms, tag, matches] of cases) {
      const filter: ArticleFilter = {
        projectId: p.project.id,
        now: new Date().toISOString(),
        status: 'published',
        searchTerms: terms,
        anyTagIds: tag === null ? null : [tagIds.get(tag)!],
        allTagIds: null,
        excludeTagIds: [],
      };
      const expected = inputs.filter((a) => published(a) && matches(a)).length;
      assert.ok(expected > 0, `${terms.join(' ')}: a case that matches`);
      for (const limits of ways) {
        const found = await findMatches(ctx.db.kysely, ctx.db.dialect, filter, run, null, limits);
        assert.equal(found?.set.size, expected, `${terms.join(' ')} ${JSON.stringify(limits)}`);
        assert.equal(found?.all.size, count);
      }
      // More word sets than are ever read: the caller counts in the texts.
      const tooMany = { termChunksFirst: 0, checkedInTexts: 0, termChunksMost: 0, laterCheckedInTexts: 0 };
      if (terms.some((term) => term.length > 3) && expected > 0) {
        const found = await findMatches(ctx.db.kysely, ctx.db.dialect, filter, run, null, tooMany);
        assert.equal(found, null, terms.join(' '));
      }
    }
    // Through the API (200 characters at most), with a page: the same total.
    const tail = longTwin.slice(100);
    const answer = await getJson(ctx.app, `/v1/articles?search=${tail}&limit=2&page=2`, p.headers);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.meta.total, inputs.filter((a) => text(a).includes(tail)).length);
  });

  test('search: a repeated search uses the term sets kept from the first, until the project’s content changes', async () => {
    const p = await createTestProject(ctx.db);
    await importArticles(ctx.db, p.project, articles(), []);
    const total = async (query: string) => {
      const answer = await getJson(ctx.app, `/v1/articles?${query}`, p.headers);
      assert.equal(answer.status, 200, query);
      return answer.body.meta.total as number;
    };
    const plain = articles().filter((a) => a.content.includes('plain')).length;
    assert.equal(await total('search=plain&limit=1'), plain);
    // The stored sets of the words holding `plain` are emptied behind the cache's back (no
    // content version bump): a search that read them would count none.
    await ctx.db.kysely
      .deleteFrom('article_sets')
      .where('project_id', '=', p.project.id)
      .where('set_key', '=', 't:plain')
      .execute();
    // Another URL, so that the answer cache has nothing: the kept set answers.
    assert.equal(await total('search=plain&limit=2'), plain);
    assert.equal(await total('search=plain&limit=3&sort=title'), plain);
    // A content change (an import of one more article) makes the kept sets outdated.
    await ctx.db.kysely.transaction().execute((trx) => rebuildArticleSets(trx, p.project.id));
    await importArticles(ctx.db, p.project, [
      ...articles(),
      articleInput({ slug: 'one-more', content: 'plain again' }),
    ]);
    assert.equal(await total('search=plain&limit=4'), plain + 1);
  });

  test('search: searches for the same large term at once read its word sets once, and each gets them', async () => {
    const p = await createTestProject(ctx.db);
    await importArticles(ctx.db, p.project, articles(), []);
    const limits = wordReadAlone;
    let termReads = 0;
    const run: Run = async (query) => {
      if (/string_agg|group_concat/.test(query.sql)) {
        termReads++;
        // Slow enough that the other searches come while it is under way.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return (await ctx.db.kysely.executeQuery(query)).rows;
    };
    const filter: ArticleFilter = searchFilter(p.project.id, ['word']);
    const version = await contentVersion(ctx.db.kysely, p.project.id);
    const known = () => termSetsOf(ctx.db, p.project.id, version);
    const found = await Promise.all(
      [1, 2, 3].map(() => findMatches(ctx.db.kysely, ctx.db.dialect, filter, run, known(), limits)),
    );
    assert.equal(termReads, 1);
    for (const matches of found) assert.equal(matches?.set.size, count);
    // Without the kept sets (a search that keeps none), each reads for itself.
    await Promise.all(
      [1, 2].map(() => findMatches(ctx.db.kysely, ctx.db.dialect, filter, run, null, limits)),
    );
    assert.equal(termReads, 3);
  });
});

describeEachDialect('search of a large term', (ctx) => {
  test('search: a term found large is read alone at the next content version, without a first share of its sets, and counted the same', async () => {
    const p = await createTestProject(ctx.db);
    await importArticles(ctx.db, p.project, articles(), []);
    const limits = wordReadAlone;
    const { run, statements } = recordingRun(ctx.db, { offThread: false });
    const filter: ArticleFilter = searchFilter(p.project.id, ['word', 'plain']);
    const expected = articles().filter((a) => a.content.includes('plain')).length;
    // The matches at a content version (its term sets cached apart from the other's).
    const matchesAt = (version: number) =>
      findMatches(
        ctx.db.kysely,
        ctx.db.dialect,
        filter,
        run,
        termSetsOf(ctx.db, p.project.id, version),
        limits,
      );
    const first = await matchesAt(1);
    assert.equal(first?.set.size, expected);
    // The first statement read a share of the sets of both terms.
    assert.equal(statements[0].match(/search_tokens/g)?.length, 2);
    statements.length = 0;
    // The next content version: `plain` is read with the other sets again, `word` alone.
    const next = await matchesAt(2);
    assert.equal(next?.set.size, expected);
    assert.equal(statements[0].match(/search_tokens/g)?.length, 1);
    assert.ok(
      statements.some((text) => /string_agg|group_concat/.test(text)),
      'word read alone',
    );
  });
});

describeEachDialect('search of a large term read alone', (ctx) => {
  test('search: a large term read alone has every member of its sets, lists and bitmaps, whatever their chunk numbers', async () => {
    const p = await createTestProject(ctx.db);
    await importArticles(
      ctx.db,
      p.project,
      Array.from({ length: 400 }, (_, i) =>
        articleInput({
          slug: `c-${i}`,
          content: `common word${i}`,
          createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
        }),
      ),
    );
    // One article in five far away (chunk 70,000: a list), the others in chunk 0 (a bitmap).
    await ctx.db.kysely
      .updateTable('articles')
      .set((eb) => ({ ordinal: eb('ordinal', '+', 70_000 * 4096) }))
      .where('project_id', '=', p.project.id)
      .where(sql<boolean>`ordinal % 5 = 0`)
      .execute();
    await ctx.db.kysely.transaction().execute((trx) => rebuildArticleSets(trx, p.project.id));
    const ordinals = (
      await ctx.db.kysely
        .selectFrom('articles')
        .select('ordinal')
        .where('project_id', '=', p.project.id)
        .execute()
    )
      .map((row) => Number(row.ordinal))
      .sort((a, b) => a - b);
    assert.ok(ordinals.at(-1)! >= 70_000 * 4096);
    let readAlone = 0;
    const run: Run = async (query) => {
      if (/string_agg|group_concat/.test(query.sql)) readAlone++;
      return (await ctx.db.kysely.executeQuery(query)).rows;
    };
    const filter: ArticleFilter = searchFilter(p.project.id, ['ommo']);
    const limits = { termChunksFirst: 0, checkedInTexts: 0, termChunksMost: 1000, laterCheckedInTexts: 0 };
    const found = await findMatches(ctx.db.kysely, ctx.db.dialect, filter, run, null, limits);
    assert.equal(readAlone, 1);
    assert.deepEqual(found?.set.ordinals(), ordinals);
  });
});

describeEachDialect(
  'search slots',
  (ctx) => {
    test('search: a request that is no search is answered while searches wait for their turn, and a search past SEARCH_TIMEOUT_MS is a 503', async (t) => {
      if (ctx.db.dialect !== 'postgres') {
        t.skip('search slots are PostgreSQL connections; SQLite searches run in a worker thread');
        return;
      }
      const p = await createTestProject(ctx.db);
      await importArticles(ctx.db, p.project, articles(), []);
      // Another session locks the article sets: every search waits on it until its timeout.
      const blocker = new pg.Client({ connectionString: ctx.url });
      await blocker.connect();
      try {
        await blocker.query('begin');
        await blocker.query('lock table article_sets in access exclusive mode');
        const searches = ['common', 'plain', 'rare'].map((term) =>
          getJson(ctx.app, `/v1/articles?search=${term}`, p.headers),
        );
        const one = await getJson(ctx.app, '/v1/articles/a-001', p.headers);
        assert.equal(one.status, 200);
        const answers = await Promise.all(searches);
        for (const answer of answers) {
          assert.equal(answer.status, 503);
          assert.match(answer.body.message, /search took too long/);
        }
        await blocker.query('rollback');
        const after = await getJson(ctx.app, '/v1/articles?search=rare', p.headers);
        assert.equal(after.status, 200);
        assert.equal(after.body.meta.total, articles().filter((a) => a.content.includes('rare')).length);
      } finally {
        await blocker.end();
      }
    });
  },
  { search: { concurrency: 1, timeoutMs: 300 } },
);
