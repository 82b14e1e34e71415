// SEO documents of a project with 50,000 published articles: how long one uncached render of each
// takes (sitemap XML and JSON, RSS, structured data), in process through app.inject (every hook,
// query, rendering, serialisation and ETag), then over HTTP against the real server
// (bench/serve-app.ts, transfer included), then the cached answers under load. SQLite always;
// PostgreSQL too when BENCH_POSTGRES_URL is set (in a database of its own, dropped afterwards).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { rebuildArticleSets } from '../src/content/article-set-queries.ts';
import { searchTextOf } from '../src/content/search-text.ts';
import { summarize, textStats } from '../src/content/text-stats.ts';
import { type Db, openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import type { ArticleInsertRow } from '../src/db/schema.ts';
import { AnswerCache } from '../src/http/answer-cache.ts';
import { bumpContentVersion } from '../src/projects/queries.ts';
import { createApiKey, createProject } from '../src/projects/service.ts';
import { forkServer, insertTopics, load, report, withPostgresDatabase } from './lib.ts';

const publishedCount = Number(process.env.BENCH_ARTICLES ?? 50_000);
const draftCount = Math.round(publishedCount / 10);
const renders = Number(process.env.BENCH_RENDERS ?? 7);
const words =
  'reading analytics sqlite postgres cache latency index markdown feed sitemap tag search privacy scroll funnel'.split(
    ' ',
  );

/** A few hundred words of Markdown with what a feed has to clean and resolve: links, images, code, raw HTML. */
function body(variant: number): string {
  const sentence = (n: number) =>
    Array.from({ length: 14 }, (_, w) => words[(variant * 7 + n * 5 + w * 13) % words.length]).join(' ');
  const paragraph = (n: number) =>
    `${sentence(n)}. ${sentence(n + 1)}, see [the guide](/guides/${n}) & more. ${sentence(n + 2)}.`;
  return [
    `# Part ${variant}`,
    paragraph(1),
    `![Diagram ${variant}](images/diagram-${variant}.png)`,
    paragraph(2),
    '## Details',
    `- ${sentence(3)}\n- ${sentence(4)}\n- [external](https://example.org/${variant}?a=1&b=2)`,
    '```ts\nconst answer = 1 < 2 && "quoted";\n```',
    `<p onclick="track()" style="color:red">Raw <em>HTML</em> ${sentence(5)}</p>`,
    paragraph(6),
    `> ${sentence(7)} 中文 😀`,
    paragraph(8),
  ].join('\n\n');
}

type ArticleRow = ArticleInsertRow;

/** Inserts the articles in batches (the import's per-row path would take minutes for 50,000). */
async function seed(db: Db, projectId: string): Promise<void> {
  const bodies = Array.from({ length: 40 }, (_, variant) => {
    const content = body(variant);
    const stats = textStats(content);
    return { content, stats, summary: summarize(stats.plainText, 160), plainText: stats.plainText };
  });
  const now = new Date().toISOString();
  const tagIds = Array.from({ length: 30 }, () => randomUUID());
  await db.kysely.transaction().execute(async (trx) => {
    await insertTopics(trx, projectId, tagIds, now);
    const total = publishedCount + draftCount;
    for (let first = 0; first < total; first += 400) {
      const rows: ArticleRow[] = [];
      const links: Array<{ article_id: string; tag_id: string }> = [];
      for (let i = first; i < Math.min(total, first + 400); i++) {
        const { content, stats, summary, plainText } = bodies[i % bodies.length];
        const draft = i >= publishedCount;
        const moment = new Date(Date.UTC(2020, 0, 1) + i * 600_000).toISOString();
        const id = randomUUID();
        const title = `Article ${i}: ${words[i % words.length]} & <friends> in 中文 😀`;
        const excerpt = i % 2 === 0 ? `A short summary of article ${i}.` : null;
        rows.push({
          id,
          project_id: projectId,
          slug: `article-${i}`,
          title,
          title_key: `article ${i}`,
          excerpt,
          cover_image: i % 2 === 0 ? `/covers/${i}.jpg` : null,
          content,
          status: draft ? 'draft' : 'published',
          published_at: draft ? null : moment,
          created_at: moment,
          updated_at: moment,
          word_count: stats.wordCount,
          character_count: stats.characterCount,
          read_time_minutes: stats.readTimeMinutes,
          summary,
          search_text: searchTextOf(title, excerpt, plainText),
          author_name: 'Bench Author',
          author_image: '/people/bench.png',
          last_updated_by_name: null,
          last_updated_by_image: null,
          seo:
            i % 5 === 0
              ? JSON.stringify({
                  metaTitle: `SEO ${i}`,
                  metaDescription: null,
                  ogImage: null,
                  canonicalUrl: null,
                  keywords: ['k'],
                })
              : null,
          storage_bytes: content.length,
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
        });
        links.push(
          { article_id: id, tag_id: tagIds[i % 30] },
          { article_id: id, tag_id: tagIds[(i * 7 + 3) % 30] },
        );
      }
      await trx.insertInto('articles').values(rows).execute();
      await trx
        .insertInto('article_tags')
        .values(links.filter((link, k) => k % 2 === 0 || link.tag_id !== links[k - 1].tag_id))
        .execute();
    }
    await rebuildArticleSets(trx, projectId);
    await bumpContentVersion(trx, projectId);
  });
}

async function prepare(databaseUrl: string): Promise<string> {
  const db = openDatabase(databaseUrl);
  await migrateToLatest(db);
  const slug = `seo-bench-${Date.now()}`;
  const project = await createProject(db, {
    name: 'SEO Bench',
    slug,
    description: 'A blog of fifty thousand articles',
    siteUrl: 'https://blog.example.com',
    storageLimit: '10 GB',
  });
  const started = performance.now();
  await seed(db, project.id);
  console.log(
    `seeded ${publishedCount} published and ${draftCount} draft articles in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  // As a database in service would be: planner statistics current, no autovacuum still running.
  await sql.raw(db.dialect === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE').execute(db.kysely);
  const { key } = await createApiKey(db, slug, { kind: 'secret', rateLimit: 1_000_000 });
  await db.close();
  return key;
}

interface RenderTiming {
  name: string;
  min: number;
  median: number;
  max: number;
  bytes: number;
}

const scenarios: Array<[name: string, path: string]> = [
  [`sitemap XML (${publishedCount.toLocaleString('en-US')} URLs)`, '/v1/seo/sitemap'],
  [`sitemap JSON (${publishedCount.toLocaleString('en-US')} URLs)`, '/v1/seo/sitemap?format=json'],
  ['RSS, 20 items (default)', '/v1/seo/rss'],
  ['RSS, 100 items', '/v1/seo/rss?limit=100'],
  [`structured data (${publishedCount.toLocaleString('en-US')} articles)`, '/v1/seo/structured-data'],
  ['article metadata', '/v1/seo/article/article-4242'],
];

/**
 * Sequential renders of `path` by an app whose answer cache keeps nothing (an unknown query
 * parameter, which once made each answer-cache key new, is a 400 now). `get`
 * returns the status and the body's size.
 */
async function timeRenders(
  name: string,
  path: string,
  get: (url: string) => Promise<{ status: number; bytes: number }>,
): Promise<RenderTiming> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < renders; i++) {
    const started = performance.now();
    const answer = await get(path);
    times.push(performance.now() - started);
    if (answer.status !== 200) throw new Error(`${name}: status ${answer.status}`);
    bytes = answer.bytes;
  }
  times.sort((a, b) => a - b);
  return {
    name,
    min: times[0],
    median: times[Math.floor(times.length / 2)],
    max: times[times.length - 1],
    bytes,
  };
}

function printTimings(title: string, timings: RenderTiming[]): void {
  console.log(`\n## ${title}\n`);
  console.log('| document | min ms | median ms | max ms | bytes |');
  console.log('|---|---:|---:|---:|---:|');
  for (const t of timings) {
    console.log(
      `| ${t.name} | ${t.min.toFixed(0)} | ${t.median.toFixed(0)} | ${t.max.toFixed(0)} | ${t.bytes} |`,
    );
  }
}

async function measure(label: string, databaseUrl: string): Promise<void> {
  const key = await prepare(databaseUrl);
  const headers = { 'x-api-key': key };

  // In process, through app.inject: every hook, the query, rendering, serialisation and the ETag,
  // without a socket. This is the render time.
  const db = openDatabase(databaseUrl);
  const inProcess = await buildApp({ db, answerCache: new AnswerCache(0) });
  const injected: RenderTiming[] = [];
  for (const [name, path] of scenarios) {
    injected.push(
      await timeRenders(name, path, async (url) => {
        const response = await inProcess.inject({ url, headers });
        return { status: response.statusCode, bytes: response.rawPayload.byteLength };
      }),
    );
  }
  await inProcess.close();
  await db.close();
  printTimings(
    `SEO render times, ${label}, ${publishedCount} published articles (${renders} uncached renders each, in process)`,
    injected,
  );

  // Over HTTP against the real server in its own process: the same plus sending the body.
  const serveApp = new URL('./serve-app.ts', import.meta.url).pathname;
  const uncached = await forkServer(serveApp, { DATABASE_URL: databaseUrl, BENCH_ANSWER_CACHE: 'off' });
  const fetched: RenderTiming[] = [];
  try {
    for (const [name, path] of scenarios) {
      fetched.push(
        await timeRenders(name, path, async (url) => {
          const response = await fetch(`${uncached.url}${url}`, { headers });
          return { status: response.status, bytes: (await response.arrayBuffer()).byteLength };
        }),
      );
    }
  } finally {
    await uncached.stop();
  }
  printTimings(`SEO answers, ${label}, time to the last byte over HTTP (uncached)`, fetched);
  const app = await forkServer(serveApp, { DATABASE_URL: databaseUrl });
  try {
    const seconds = Number(process.env.BENCH_SECONDS ?? 5);
    report(`Cached SEO answers under load, ${label}`, [
      await load('GET /v1/seo/rss (cached)', `${app.url}/v1/seo/rss`, headers, { seconds }),
      await load('GET /v1/seo/sitemap (cached, 50,000 URLs)', `${app.url}/v1/seo/sitemap`, headers, {
        seconds,
        connections: 4,
      }),
    ]);
  } finally {
    await app.stop();
  }
}

const work = mkdtempSync(join(tmpdir(), 'folio-seo-bench-'));
try {
  await measure('SQLite', join(work, 'bench.db'));
  if (process.env.BENCH_POSTGRES_URL) {
    await withPostgresDatabase(process.env.BENCH_POSTGRES_URL, 'folio_seo_bench', (url) =>
      measure('PostgreSQL', url),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
