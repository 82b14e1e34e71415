// Search, count and tag filters of GET /v1/articles over a large project (100,000 articles by
// default), every request uncached (the server's answer cache keeps nothing): p50/p95 of each query
// over sequential requests, then how one client searching without pause changes the latency of a
// cheap request (one article by slug), next to a raw node:http server's latency in the same run.
// SQLite always; PostgreSQL too when BENCH_POSTGRES_URL is set (a database of its own, dropped
// afterwards). BENCH_SEARCH_ARTICLES sets the size, BENCH_SEARCH_RUNS the requests per query,
// BENCH_SEARCH_SQLITE_FILE a SQLite file that is kept and reused by the next run (seeding 100,000
// articles takes from 30 s on a quiet machine to minutes on a busy one), BENCH_SEARCH_POSTGRES_KEEP
// the same for the URL of an existing, empty PostgreSQL database, BENCH_SEARCH_BUDGET_MS the most
// time spent on one query's runs (30 s). Then twelve clients search at once while a cheap request
// is timed (again with the content changing every 250 ms), and a repeated search is timed again
// and paged, and other requests' waits are timed while each heavy request of a blog this size runs
// (the project's counts, the tag list, the sitemap, writes). BENCH_SEARCH_SECTIONS picks parts;
// each table ends with the load average.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { rebuildArticleSets } from '../src/content/article-set-queries.ts';
import { searchTextOf } from '../src/content/search-text.ts';
import { type Db, openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import type { ArticleInsertRow } from '../src/db/schema.ts';
import { bumpContentVersion } from '../src/projects/queries.ts';
import { createApiKey, createProject } from '../src/projects/service.ts';
import { forkServer, insertTopics, percentile, withPostgresDatabase } from './lib.ts';

const articleCount = Number(process.env.BENCH_SEARCH_ARTICLES ?? 100_000);
// A p95 of 40 requests was their third slowest: one hiccup of a shared machine moved it by 15 ms.
const runs = Number(process.env.BENCH_SEARCH_RUNS ?? 100);
const tagCount = 30;

/** A deterministic pseudo-random sequence, so that every run searches the same data. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

// A vocabulary of 5,000 made-up words drawn with a Zipf-like skew, as natural text is: a few words
// in nearly every article, most in few. `reading` is put in 90% of the articles (the common word),
// `quetzal` in 20 of them (the rare word, followed by `plumage;` there). One word in five ends in
// `tion`, as in English, so that fragment is held by a thousand different words (the common
// fragment: a term whose word sets are too many to combine cheaply).
const syllables = 'ka lo mi nu pe ra si to vu we xa yo ze bi co da fe gu hi ja'.split(' ');
const vocabulary = Array.from({ length: 5000 }, (_, i) => {
  let word = '';
  for (let n = i + 7; n > 0; n = Math.floor(n / syllables.length)) word += syllables[n % syllables.length];
  return i % 5 === 4 ? `${word}tion` : word;
});
const commonWord = 'reading';
const rareWord = 'quetzal';
const longTerm = 'ka'.repeat(65);
const longerTerm = 'ka'.repeat(100);
/** Ten terms: the rare word and nine of the most frequent words. */
const tenTerms = [rareWord, ...vocabulary.slice(0, 9)].join(' ');
/** A query of 200 characters: the rare word, then frequent words. */
const twoHundredChars = (() => {
  let query = rareWord;
  for (let i = 0; query.length < 200; i++) query += ` ${vocabulary[i % 40]}`;
  return query.slice(0, 200).trimEnd();
})();

function article(i: number, next: () => number): { markdown: string; plain: string; title: string } {
  const word = () => vocabulary[Math.floor(vocabulary.length * next() ** 3)];
  const paragraphs: Array<{ markdown: string; plain: string }> = [];
  for (let p = 0; p < 3; p++) {
    const words = Array.from({ length: 45 }, word);
    if (p === 1 && i % 10 !== 0) words[7] = commonWord;
    if (p === 2 && i % Math.floor(articleCount / 20) === 3) {
      words[11] = `${rareWord},`;
      words[12] = 'plumage;';
    }
    const plain = `${words.join(' ')}.`;
    // Markdown syntax around some words: bold, and a link whose URL is not text.
    const marked = [...words];
    marked[3] = `**${marked[3]}**`;
    marked[20] = `[${marked[20]}](https://example.org/${i}/${p})`;
    paragraphs.push({ markdown: `${marked.join(' ')}.`, plain });
  }
  return {
    title: `Article ${i}: ${word()} ${word()}`,
    markdown: paragraphs.map((p) => p.markdown).join('\n\n'),
    plain: paragraphs.map((p) => p.plain).join('\n'),
  };
}

async function seed(db: Db, projectId: string): Promise<void> {
  const now = new Date().toISOString();
  const tagIds = Array.from({ length: tagCount }, () => randomUUID());
  const next = random(42);
  await db.kysely.transaction().execute(async (trx) => {
    await insertTopics(trx, projectId, tagIds, now);
    for (let first = 0; first < articleCount; first += 250) {
      // Announced, as the articles of a database in service are: else the server's first pass
      // would update every published row after the VACUUM below, and PostgreSQL would read the
      // lists through 90,000 dead rows and indexes twice their size.
      const rows: Array<ArticleInsertRow & { announced_published_at: string | null }> = [];
      const links: Array<{ article_id: string; tag_id: string }> = [];
      for (let i = first; i < Math.min(articleCount, first + 250); i++) {
        const { title, markdown, plain } = article(i, next);
        const moment = new Date(Date.UTC(2015, 0, 1) + i * 600_000).toISOString();
        const draft = i % 10 === 5;
        const id = randomUUID();
        const excerpt = i % 2 === 0 ? `A short summary of article ${i}.` : null;
        rows.push({
          id,
          project_id: projectId,
          slug: `article-${i}`,
          title,
          title_key: title.toLowerCase(),
          excerpt,
          cover_image: null,
          content: markdown,
          status: draft ? 'draft' : 'published',
          published_at: draft ? null : moment,
          created_at: moment,
          updated_at: moment,
          word_count: 135,
          character_count: plain.length,
          read_time_minutes: 1,
          summary: plain.slice(0, 160),
          search_text: searchTextOf(title, excerpt, plain),
          author_name: 'Bench Author',
          author_image: null,
          last_updated_by_name: null,
          last_updated_by_image: null,
          seo: null,
          storage_bytes: markdown.length,
          content_hash: String(i),
          ordinal: i,
          path: null,
          section: null,
          cover_image_alt: null,
          aliases: '[]',
          guid: null,
          visibility: 'public',
          tiers: '[]',
          authors: '[]',
          announced_published_at: draft ? null : moment,
        });
        // Tags skewed like real ones: topic 0 on half the articles, the others rarer.
        const tags = new Set([tagIds[i % 2 === 0 ? 0 : 1 + (i % 7)], tagIds[(i * 7 + 3) % tagCount]]);
        for (const tag of tags) links.push({ article_id: id, tag_id: tag });
      }
      await trx.insertInto('articles').values(rows).execute();
      await trx.insertInto('article_tags').values(links).execute();
    }
    await rebuildArticleSets(trx, projectId);
    await bumpContentVersion(trx, projectId);
  });
}

/**
 * View counts for three articles in five (997 distinct counts, so many ties), as a blog in service
 * has: the viewCount sort's pages. Added to a kept database that has none.
 */
async function seedViews(db: Db): Promise<void> {
  const { id } = await db.kysely
    .selectFrom('projects')
    .select('id')
    .where('slug', 'like', 'search-bench-%')
    .executeTakeFirstOrThrow();
  const viewed = await db.kysely
    .selectFrom('article_views')
    .select('article_id')
    .where('project_id', '=', id)
    .limit(1)
    .execute();
  if (viewed.length > 0) return;
  await sql`insert into article_views (article_id, project_id, view_count)
    select id, project_id, 1 + (ordinal * 7919) % 997 from articles where project_id = ${id} and ordinal % 5 < 3`.execute(
    db.kysely,
  );
  await sql
    .raw(db.dialect === 'postgres' ? 'VACUUM ANALYZE article_views' : 'ANALYZE article_views')
    .execute(db.kysely);
}

async function prepare(databaseUrl: string, keyFile: string | null): Promise<string> {
  // BENCH_SEARCH_SQLITE_FILE and BENCH_SEARCH_POSTGRES_KEEP keep the database (and its key in
  // keyFile) for the next run.
  if (keyFile !== null && existsSync(keyFile)) {
    const db = openDatabase(databaseUrl);
    await migrateToLatest(db);
    await seedViews(db);
    await db.close();
    console.log(`reusing ${databaseUrl}`);
    return readFileSync(keyFile, 'utf8');
  }
  const db = openDatabase(databaseUrl);
  await migrateToLatest(db);
  const slug = `search-bench-${Date.now()}`;
  const project = await createProject(db, { name: 'Search Bench', slug, storageLimit: '100 GB' });
  const started = performance.now();
  await seed(db, project.id);
  await seedViews(db);
  // As a database in service would be: planner statistics current, no autovacuum still running.
  await sql.raw(db.dialect === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE').execute(db.kysely);
  console.log(`seeded ${articleCount} articles in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const { key } = await createApiKey(db, slug, { kind: 'secret', rateLimit: 1_000_000 });
  await db.close();
  if (keyFile !== null) writeFileSync(keyFile, key);
  return key;
}

const q = encodeURIComponent;
const queries: Array<[name: string, query: string]> = [
  ['list, no filter (count of all)', 'limit=10'],
  ['list, status=published', 'limit=10&status=published'],
  ['list, page=5000', 'page=5000'],
  ['list, page=5000, sort=title', 'page=5000&sort=title'],
  ['list, page=5000, sort=publishedAt', 'page=5000&sort=publishedAt'],
  ['list, sort=viewCount', 'sort=viewCount'],
  ['list, page=5000, sort=viewCount', 'page=5000&sort=viewCount'],
  ['tags=topic 0 (50%), page 2500', 'tags=topic%200&page=2500'],
  ['tags=topic 3, its last page', 'tags=topic%203&page=LAST'],
  ['tags=topic 0 (50%), its last page', 'tags=topic%200&page=LAST'],
  [`search rare word (${rareWord})`, `search=${rareWord}`],
  [`search with punctuation (${rareWord}, plumage;)`, `search=${q(`${rareWord}, plumage;`)}`],
  ['search 10 terms (rare + 9 frequent)', `search=${q(tenTerms)}`],
  ['search of 200 characters (rare + frequent words)', `search=${q(twoHundredChars)}`],
  ['search rare word + tags=topic 3', `search=${rareWord}&tags=topic%203`],
  [
    'search rare word + tagsAll + excludeTags',
    `search=${rareWord}&tagsAll=topic%200,topic%203&excludeTags=topic%205`,
  ],
  ['search rare word, its last page (limit=3)', `search=${rareWord}&limit=3&page=LAST`],
  ['search common fragment (tion)', 'search=tion'],
  ['search tion, page 2000', 'search=tion&page=2000'],
  ['search tion + tags=topic 3', 'search=tion&tags=topic%203'],
  ['search 200-character term', `search=${longerTerm}`],
  [`search common word (${commonWord}, 90%)`, `search=${commonWord}`],
  ['search common word, page 50', `search=${commonWord}&page=50`],
  ['search two words (common + vocabulary)', `search=${commonWord}%20${vocabulary[40]}`],
  ['search 2-character term (ka)', 'search=ka'],
  ['search 1-character term (z)', 'search=z'],
  ['search absent word', 'search=nowhereword'],
  // Longer than the article sets' token windows (128 units): still counted in the texts.
  ['search 130-character term (counted in the texts)', `search=${longTerm}`],
  ['tags=topic 0 (50%)', 'tags=topic%200'],
  ['tags=topic 3,topic 4', 'tags=topic%203,topic%204'],
  ['tagsAll=topic 0,topic 3', 'tagsAll=topic%200,topic%203'],
  ['excludeTags=topic 0', 'excludeTags=topic%200'],
  ['search common + tags=topic 0', `search=${commonWord}&tags=topic%200`],
];

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return performance.now() - started;
}

/** Time one query may take in all: a query of seconds stops before its runs are done. */
const budgetMs = Number(process.env.BENCH_SEARCH_BUDGET_MS ?? 30_000);

async function latencies(
  count: number,
  request: () => Promise<number>,
  budget = Infinity,
): Promise<number[]> {
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count && performance.now() - started < budget; i++) times.push(await request());
  return times.sort((a, b) => a - b);
}

/** `page=LAST` becomes the query's last page, from its total. */
async function lastPage(base: string, query: string, headers: Record<string, string>): Promise<string> {
  if (!query.includes('page=LAST')) return query;
  const probe = query.replace(/&?page=LAST/, '');
  const { meta } = (await (await fetch(`${base}/v1/articles?${probe}`, { headers })).json()) as {
    meta: { totalPages: number };
  };
  return query.replace('page=LAST', `page=${meta.totalPages}`);
}

/**
 * The heaviest queries just after a content change: the project's content version is bumped
 * before each request (as an import does), so that no cache (the answer cache is off; the kept
 * term sets are keyed by the version) holds anything of them, nor the marks of deep pages (the
 * bump moves the order version too).
 */
async function coldQueries(
  base: string,
  headers: Record<string, string>,
  databaseUrl: string,
): Promise<void> {
  const db = openDatabase(databaseUrl);
  const { id } = await db.kysely
    .selectFrom('projects')
    .select('id')
    .where('slug', 'like', 'search-bench-%')
    .executeTakeFirstOrThrow();
  console.log('\n## Cold: the content version bumped before each request (20 requests each)\n');
  try {
    await timedAfterChanges(base, headers, coldCases, async () => {
      await db.kysely.transaction().execute((trx) => bumpContentVersion(trx, id));
    });
  } finally {
    await db.close();
  }
  await afterTextEdits(base, headers, databaseUrl);
}

/** Each query's time right after `change` (20 requests each, a change before each), as a table. */
async function timedAfterChanges(
  base: string,
  headers: Record<string, string>,
  cases: Array<[name: string, query: string]>,
  change: () => Promise<void>,
): Promise<void> {
  console.log('| query | p50 ms | p95 ms | max ms | meta.total |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, template] of cases) {
    const url = `${base}/v1/articles?${await lastPage(base, template, headers)}`;
    let total = 0;
    const times = await latencies(20, async () => {
      await change();
      // The server learns of the change (SQLite's data version, PostgreSQL's notification).
      await new Promise((resolve) => setTimeout(resolve, 30));
      const started = performance.now();
      const response = await fetch(url, { headers });
      total = ((await response.json()) as { meta: { total: number } }).meta.total;
      return performance.now() - started;
    });
    console.log(
      `| ${name} | ${fmt(percentile(times, 50))} | ${fmt(percentile(times, 95))} | ${fmt(times[times.length - 1])} | ${total} |`,
    );
  }
  console.log(`\n${load()}`);
}

/** The version a write of an article must name (If-Match): the one a stale If-Match is told of. */
async function articleVersion(base: string, writeKey: string, slug: string): Promise<string> {
  const response = await patchArticle(base, writeKey, slug, '0', {});
  return ((await response.json()) as { details: { current: string } }).details.current;
}

/** A merge patch of an article naming `version`. */
function patchArticle(base: string, writeKey: string, slug: string, version: string, body: unknown) {
  return fetch(`${base}/v1/articles/${slug}`, {
    method: 'PATCH',
    headers: {
      'x-api-key': writeKey,
      'if-match': `"${version}"`,
      'content-type': 'application/merge-patch+json',
    },
    body: JSON.stringify(body),
  });
}

/** A new secret key of the bench's project that may read and write. */
async function benchWriteKey(databaseUrl: string): Promise<string> {
  const db = openDatabase(databaseUrl);
  try {
    const { slug } = await db.kysely
      .selectFrom('projects')
      .select('slug')
      .where('slug', 'like', 'search-bench-%')
      .executeTakeFirstOrThrow();
    const { key } = await createApiKey(db, slug, {
      kind: 'secret',
      rateLimit: 1_000_000,
      scopes: ['read', 'write'],
    });
    return key;
  } finally {
    await db.close();
  }
}

/**
 * Deep pages just after an edit of an article's text (a PATCH of its content through the API,
 * before each request): the answers change, so nothing of them is cached, but no article moved in
 * these lists, so that their marks are kept (projects.order_version). The edits are undone.
 */
async function afterTextEdits(
  base: string,
  headers: Record<string, string>,
  databaseUrl: string,
): Promise<void> {
  const writeKey = await benchWriteKey(databaseUrl);
  const slug = 'article-4244';
  const { content } = (
    (await (await fetch(`${base}/v1/articles/${slug}`, { headers })).json()) as { data: { content: string } }
  ).data;
  let version = await articleVersion(base, writeKey, slug);
  const edit = async (text: string) => {
    const response = await patchArticle(base, writeKey, slug, version, { content: text });
    if (response.status !== 200) throw new Error(`PATCH ${slug}: ${response.status}`);
    version = String(Number(version) + 1);
    await response.arrayBuffer();
  };
  console.log(
    '\n## After an edit of an article’s text (a PATCH of its content before each request, 20 requests each)\n',
  );
  let n = 0;
  try {
    await timedAfterChanges(base, headers, textEditCases, () => edit(`${content}\n\nEdited ${++n}.`));
  } finally {
    await edit(content);
  }
}

const textEditCases: Array<[name: string, query: string]> = [
  ['list, page=5000', 'page=5000'],
  ['list, page=5000, sort=title', 'page=5000&sort=title'],
  ['tags=topic 0 (50%), page 2500', 'tags=topic%200&page=2500'],
  ['tags=topic 0 (50%), its last page', 'tags=topic%200&page=LAST'],
];

const coldCases: Array<[name: string, query: string]> = [
  ['list, page=5000', 'page=5000'],
  ['tags=topic 0 (50%), its last page', 'tags=topic%200&page=LAST'],
  [`search rare word (${rareWord})`, `search=${rareWord}`],
  ['search 10 terms (rare + 9 frequent)', `search=${q(tenTerms)}`],
  ['search of 200 characters (rare + frequent words)', `search=${q(twoHundredChars)}`],
  ['search common fragment (tion)', 'search=tion'],
  ['search tion, page 2000', 'search=tion&page=2000'],
  ['search tion + tags=topic 3', 'search=tion&tags=topic%203'],
  ['search 200-character term', `search=${longerTerm}`],
  ['list, page=5000, sort=title', 'page=5000&sort=title'],
  ['list, page=5000, sort=publishedAt', 'page=5000&sort=publishedAt'],
  ['list, page=5000, sort=viewCount', 'page=5000&sort=viewCount'],
  ['tags=topic 0 (50%), page 2500', 'tags=topic%200&page=2500'],
  ['tags=topic 3, its last page', 'tags=topic%203&page=LAST'],
  [`search with punctuation (${rareWord}, plumage;)`, `search=${q(`${rareWord}, plumage;`)}`],
  [
    'search rare word + tagsAll + excludeTags',
    `search=${rareWord}&tagsAll=topic%200,topic%203&excludeTags=topic%205`,
  ],
  ['search rare word, its last page (limit=3)', `search=${rareWord}&limit=3&page=LAST`],
];

/**
 * Twelve clients searching at once (four each: the common fragment, a rare word, ten terms), while
 * a cheap request (one article) is timed: how long each search takes when they share the
 * machine, and whether the cheap request waits for them. `bump`, when given, changes the
 * project's content version every 250 ms meanwhile, so that the searches keep finding their kept
 * term sets gone (as during an import).
 */
async function concurrentSearchers(
  base: string,
  headers: Record<string, string>,
  bump: (() => Promise<void>) | null = null,
): Promise<void> {
  const cheapUrl = `${base}/v1/articles/article-4242`;
  const kinds = [
    ['tion', 'search=tion'],
    [rareWord, `search=${rareWord}`],
    ['ten terms', `search=${q(tenTerms)}`],
  ];
  const times = new Map<string, number[]>(kinds.map(([name]) => [name, []]));
  let searching = true;
  const clients = Array.from({ length: 12 }, async (_, i) => {
    const [name, query] = kinds[i % kinds.length];
    while (searching) times.get(name)!.push(await timed(`${base}/v1/articles?${query}`, headers));
  });
  const bumper = (async () => {
    while (searching && bump !== null) {
      await bump();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  // At least ten seconds, so that every client finishes several searches.
  const cheap: number[] = [];
  for (const started = performance.now(); cheap.length < runs * 2 || performance.now() - started < 10_000;)
    cheap.push(await timed(cheapUrl, headers));
  searching = false;
  await Promise.all([...clients, bumper]);
  console.log(
    `\n## Twelve clients searching at once, while a cheap request is timed${bump === null ? '' : ', the content version bumped every 250 ms'}\n`,
  );
  console.log('| requests | p50 ms | p95 ms | max ms | answered |');
  console.log('|---|---:|---:|---:|---:|');
  const row = (name: string, list: number[]) => {
    list.sort((a, b) => a - b);
    console.log(
      `| ${name} | ${fmt(percentile(list, 50))} | ${fmt(percentile(list, 95))} | ${fmt(list[list.length - 1])} | ${list.length} |`,
    );
  };
  row('GET /v1/articles/:slug (cheap)', cheap);
  for (const [name, list] of times) row(`search=${name} (4 clients)`, list);
  console.log(`\n${load()}`);
}

/**
 * A repeated search: the same query again (with the answer cache off, the search's own cache of
 * matches), and its next pages.
 */
async function repeatedQuery(base: string, headers: Record<string, string>): Promise<void> {
  console.log('\n## A repeated search (answer cache off)\n');
  console.log('| query | first ms | again p50 ms | again p95 ms | pages 2-21 p50 ms |');
  console.log('|---|---:|---:|---:|---:|');
  // Terms no other query of the bench asked: the first answer is a cold one.
  for (const term of ['otion', `${rareWord} tomi`, longerTerm.slice(0, 150)]) {
    const query = `search=${q(term)}&sort=title&limit=7`;
    const first = await timed(`${base}/v1/articles?${query}`, headers);
    const again = await latencies(20, () => timed(`${base}/v1/articles?${query}`, headers));
    const pages: number[] = [];
    for (let page = 2; page <= 21; page++)
      pages.push(await timed(`${base}/v1/articles?${query}&page=${page}`, headers));
    pages.sort((a, b) => a - b);
    console.log(
      `| search=${term.length > 20 ? `${term.slice(0, 12)}… (${term.length} chars)` : term} | ${fmt(first)} | ${fmt(percentile(again, 50))} | ${fmt(percentile(again, 95))} | ${fmt(percentile(pages, 50))} |`,
    );
  }
  console.log(`\n${load()}`);
}

const fmt = (ms: number) => ms.toFixed(1);

/**
 * BENCH_SEARCH_SECTIONS: the parts to run, comma-separated, of `uncached`, `cold`, `concurrent`,
 * `repeated`, `stalls` and `cheap` (default: all).
 */
const sections = new Set(
  (process.env.BENCH_SEARCH_SECTIONS ?? 'uncached,cold,concurrent,repeated,stalls,cheap').split(','),
);

/**
 * What the project's other requests wait while one heavy request of a blog this size runs: a
 * stream of cheap reads (an article, uncached, one at a time with 5 ms between) runs throughout,
 * and each heavy request's own time is shown beside the worst wait of the stream from its start to
 * 0.5 s after its answer (what a write sets off after answering, such as the webhook dispatcher's
 * look for due publications, included). The idle row is 20 s of the stream alone, past the 15 s after which the webhook
 * dispatcher looks for due publications again. The writes are undone (the title set back, the new
 * article deleted), so that the database stays as seeded for the next run.
 */
async function stalls(base: string, headers: Record<string, string>, databaseUrl: string): Promise<void> {
  const writeKey = await benchWriteKey(databaseUrl);
  const writer = { 'x-api-key': writeKey, 'content-type': 'application/json' };
  const cheapUrl = `${base}/v1/articles/article-4242`;
  let worst = 0;
  let streaming = true;
  const stream = (async () => {
    while (streaming) {
      const waited = await timed(cheapUrl, headers);
      worst = Math.max(worst, waited);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const patch = async (article: string, body: unknown) => {
    const version = await articleVersion(base, writeKey, article);
    return () => patchArticle(base, writeKey, article, version, body);
  };
  const { title } = (
    (await (await fetch(`${base}/v1/articles/article-4243`, { headers })).json()) as {
      data: { title: string };
    }
  ).data;
  const newSlug = `stalls-${Date.now()}`;
  const heavy: Array<[string, () => Promise<() => Promise<Response>>]> = [
    ['GET /v1/project (counts)', async () => () => fetch(`${base}/v1/project`, { headers })],
    ['GET /v1/tags (counts)', async () => () => fetch(`${base}/v1/tags`, { headers })],
    [
      'GET /v1/seo/sitemap (50,000 URLs)',
      async () => () => fetch(`${base}/v1/seo/sitemap?baseUrl=https://blog.example.com`, { headers }),
    ],
    ['PATCH an article’s title', () => patch('article-4243', { title: `${title} (edited)` })],
    ['PATCH it back', () => patch('article-4243', { title })],
    [
      'POST a new article',
      async () => () =>
        fetch(`${base}/v1/articles`, {
          method: 'POST',
          headers: writer,
          body: JSON.stringify({
            slug: newSlug,
            title: 'New',
            content: 'A new article.',
            status: 'published',
          }),
        }),
    ],
    [
      'DELETE it',
      async () => () =>
        fetch(`${base}/v1/articles/${newSlug}`, {
          method: 'DELETE',
          headers: { 'x-api-key': writeKey, 'if-match': '*' },
        }),
    ],
  ];
  console.log('\n## Other requests while a heavy one runs (a stream of uncached article reads)\n');
  console.log('| heavy request | status | its ms | the stream’s worst wait, ms |');
  console.log('|---|---:|---:|---:|');
  try {
    for (const [name, make] of heavy) {
      const send = await make();
      await new Promise((resolve) => setTimeout(resolve, 300));
      worst = 0;
      const started = performance.now();
      const response = await send();
      await response.arrayBuffer();
      const took = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 500));
      console.log(`| ${name} | ${response.status} | ${fmt(took)} | ${fmt(worst)} |`);
    }
    worst = 0;
    await new Promise((resolve) => setTimeout(resolve, 20_000));
    console.log(`| none, 20 s idle | | | ${fmt(worst)} |`);
  } finally {
    streaming = false;
    await stream;
  }
  console.log(`\n${load()}`);
}

/** The load average now, printed under each table: the machine is shared, so times are upper bounds. */
const load = () =>
  `load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`;

async function uncachedQueries(label: string, base: string, headers: Record<string, string>): Promise<void> {
  console.log(
    `\n## Uncached list queries, ${label}, ${articleCount} articles (${runs} sequential requests each)\n`,
  );
  console.log('| query | p50 ms | p95 ms | max ms | meta.total |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, template] of queries) {
    const query = await lastPage(base, template, headers);
    const url = `${base}/v1/articles?${query}`;
    const first = (await (await fetch(url, { headers })).json()) as { meta: { total: number } };
    const times = await latencies(runs, () => timed(url, headers), budgetMs);
    console.log(
      `| ${name} | ${fmt(percentile(times, 50))} | ${fmt(percentile(times, 95))} | ${fmt(times[times.length - 1])} | ${first.meta.total} |${times.length < runs ? ` (${times.length} runs)` : ''}`,
    );
  }
  console.log(`\n${load()}`);
}

async function measure(label: string, databaseUrl: string, keyFile: string | null): Promise<void> {
  const key = await prepare(databaseUrl, keyFile);
  const headers = { 'x-api-key': key };
  const app = await forkServer(new URL('./serve-app.ts', import.meta.url).pathname, {
    DATABASE_URL: databaseUrl,
    BENCH_ANSWER_CACHE: 'off',
  });
  const work = mkdtempSync(join(tmpdir(), 'folio-search-raw-'));
  try {
    // The server's start (compilation, the read workers) is not the first query's: list queries
    // that are not in the table, untimed.
    for (const warm of ['sort=title', 'search=lomi', 'tags=topic%205', 'status=draft', 'search=mika']) {
      for (let i = 0; i < 10; i++) await timed(`${app.url}/v1/articles?${warm}`, headers);
    }
    if (sections.has('uncached')) await uncachedQueries(label, app.url, headers);
    if (sections.has('cold')) await coldQueries(app.url, headers, databaseUrl);
    if (sections.has('concurrent')) {
      await concurrentSearchers(app.url, headers);
      const db = openDatabase(databaseUrl);
      try {
        const { id } = await db.kysely
          .selectFrom('projects')
          .select('id')
          .where('slug', 'like', 'search-bench-%')
          .executeTakeFirstOrThrow();
        await concurrentSearchers(app.url, headers, () =>
          db.kysely.transaction().execute((trx) => bumpContentVersion(trx, id)),
        );
      } finally {
        await db.close();
      }
    }
    if (sections.has('repeated')) await repeatedQuery(app.url, headers);
    if (sections.has('stalls')) await stalls(app.url, headers, databaseUrl);
    if (!sections.has('cheap')) return;

    // A cheap request alone, then while one client searches without pause.
    const cheapUrl = `${app.url}/v1/articles/article-4242`;
    const cheapBody = await (await fetch(cheapUrl, { headers })).arrayBuffer();
    writeFileSync(join(work, 'body.json'), Buffer.from(cheapBody));
    const raw = await forkServer(new URL('./serve-raw.ts', import.meta.url).pathname, {
      BENCH_BODY_FILE: join(work, 'body.json'),
    });
    const cheapCount = runs * 5;
    const rawTimes = await latencies(cheapCount, () => timed(raw.url, {}));
    await raw.stop();
    const quiet = await latencies(cheapCount, () => timed(cheapUrl, headers));
    console.log(
      `\n## A cheap request (GET /v1/articles/:slug, uncached) while one client searches, ${label}\n`,
    );
    console.log('| situation | p50 ms | p95 ms | max ms | searches done |');
    console.log('|---|---:|---:|---:|---:|');
    console.log(
      `| raw node:http, same body | ${fmt(percentile(rawTimes, 50))} | ${fmt(percentile(rawTimes, 95))} | ${fmt(rawTimes[rawTimes.length - 1])} | |`,
    );
    console.log(
      `| alone | ${fmt(percentile(quiet, 50))} | ${fmt(percentile(quiet, 95))} | ${fmt(quiet[quiet.length - 1])} | |`,
    );
    for (const [name, query] of [
      [`search=${commonWord}`, `search=${commonWord}`],
      ['search=ka', 'search=ka'],
      ['a 130-character term (counted in the texts)', `search=${longTerm}`],
    ]) {
      let searching = true;
      let searches = 0;
      const searcher = (async () => {
        while (searching) {
          await timed(`${app.url}/v1/articles?${query}`, headers);
          searches++;
        }
      })();
      const busy = await latencies(cheapCount, () => timed(cheapUrl, headers));
      searching = false;
      await searcher;
      console.log(
        `| one client searching ${name} | ${fmt(percentile(busy, 50))} | ${fmt(percentile(busy, 95))} | ${fmt(busy[busy.length - 1])} | ${searches} |`,
      );
    }
    console.log(
      `\nload average during ${label}: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await app.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

console.log(
  `load average at start: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
const work = mkdtempSync(join(tmpdir(), 'folio-search-bench-'));
try {
  const sqliteFile = process.env.BENCH_SEARCH_SQLITE_FILE;
  if (process.env.BENCH_SEARCH_SKIP_SQLITE !== '1')
    await measure('SQLite', sqliteFile ?? join(work, 'bench.db'), sqliteFile ? `${sqliteFile}.key` : null);
  // BENCH_SEARCH_POSTGRES_KEEP: the URL of a database that is seeded once, kept, and reused.
  const keep = process.env.BENCH_SEARCH_POSTGRES_KEEP;
  if (keep) {
    const name = new URL(keep).pathname.slice(1);
    await measure('PostgreSQL', keep, join(tmpdir(), `folio-search-bench-${name}.key`));
  } else if (process.env.BENCH_POSTGRES_URL) {
    await withPostgresDatabase(process.env.BENCH_POSTGRES_URL, 'folio_search_bench', (url) =>
      measure('PostgreSQL', url, null),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
