// Analytics under load, on SQLite and (with BENCH_POSTGRES_URL) PostgreSQL (BENCH_SKIP_SQLITE=1 for
// PostgreSQL alone), each in a database of its own that is removed afterwards:
// 1. a project of BENCH_PAGE_VIEWS (10 million; set it lower for a quick run) page views over a
//    year is generated inside the database by INSERT … SELECT (not through HTTP), with referrers,
//    UTM fields, screens and events; its rollups are built from the raw rows, and stats, funnel and
//    the insights endpoints (time series, breakdowns, article reading, realtime) are measured;
// 2. tracking POST and PUT throughput against that database, next to a raw node:http server
//    answering a body of the same size in the same run. Every tracking answer is sent after its
//    group commit, and the page views counted afterwards must match the 201s received.
import { pageViewIdOf } from '../src/db/page-view-rows.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { rebuildRollups } from '../src/analytics/rollups/queries/rebuild-rollups.ts';
import { utcDay } from '../src/analytics/days.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { createApiKey } from '../src/projects/service.ts';
import { seedAnalytics } from './analytics-data.ts';
import { forkServer, load, type LoadResult, report, withPostgresDatabase } from './lib.ts';

// The insights endpoints, each at its heaviest usual period.
const insightPaths = [
  '/v1/analytics/timeseries?days=2',
  '/v1/analytics/timeseries?days=365',
  '/v1/analytics/timeseries?days=30&slug=article-7',
  '/v1/analytics/breakdown/source?days=365',
  '/v1/analytics/breakdown/utm_campaign?days=365',
  '/v1/analytics/breakdown/country?days=30',
  '/v1/analytics/breakdown/device?days=30',
  '/v1/analytics/breakdown/event?days=365',
  '/v1/analytics/breakdown/source?days=365&format=csv',
  '/v1/analytics/articles/article-0/reading?days=365',
  '/v1/analytics/articles/article-7/reading?days=30',
  '/v1/analytics/realtime',
];
const pageViewCount = Number(process.env.BENCH_PAGE_VIEWS ?? 10_000_000);
const articleCount = Number(process.env.BENCH_ANALYTICS_ARTICLES ?? 1000);
const browser =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

interface Prepared {
  key: string;
  generatedSeconds: number;
  rollupSeconds: number;
}

async function prepare(databaseUrl: string): Promise<Prepared> {
  const db = openDatabase(databaseUrl);
  await migrateToLatest(db);
  const today = utcDay(Date.now());
  let started = performance.now();
  const { projectId, slug } = await seedAnalytics(db, {
    pageViews: pageViewCount,
    articles: articleCount,
    today,
  });
  const generatedSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  await rebuildRollups(db.kysely, projectId, today);
  const rollupSeconds = (performance.now() - started) / 1000;
  if (db.dialect === 'postgres') await sql`vacuum analyze`.execute(db.kysely);
  else await sql`analyze`.execute(db.kysely);
  const { key } = await createApiKey(db, slug, { kind: 'secret', rateLimit: 1_000_000 });
  await db.close();
  return { key, generatedSeconds, rollupSeconds };
}

/** The time of one request, in milliseconds. */
async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  return performance.now() - started;
}

async function measure(label: string, databaseUrl: string, work: string): Promise<void> {
  console.log(`\n${label}: generating ${pageViewCount} page views of ${articleCount} articles…`);
  const prepared = await prepare(databaseUrl);
  console.log(
    `  ${pageViewCount} page views in ${prepared.generatedSeconds.toFixed(1)} s, rollups built in ${prepared.rollupSeconds.toFixed(1)} s`,
  );
  const secret = { 'x-api-key': prepared.key };
  const app = await forkServer(new URL('./serve-app.ts', import.meta.url).pathname, {
    DATABASE_URL: databaseUrl,
  });

  // The first stats request of a period sums the closed days of every article (then remembered).
  const cold30 = await timed(`${app.url}/v1/analytics/stats?days=30`, secret);
  const cold365 = await timed(`${app.url}/v1/analytics/stats?days=365`, secret);
  console.log(
    `  first request of a process: stats?days=30 ${cold30.toFixed(1)} ms, stats?days=365 ${cold365.toFixed(1)} ms`,
  );
  const sample = (await (
    await fetch(`${app.url}/v1/analytics/stats?days=30`, { headers: secret })
  ).json()) as {
    data: { summary: unknown; topArticles: unknown[]; topCountries: unknown[] };
  };
  console.log(
    `  stats?days=30: ${JSON.stringify(sample.data.summary)}, top articles ${JSON.stringify(sample.data.topArticles.slice(0, 2))}…, ${sample.data.topCountries.length} countries`,
  );
  const reads: LoadResult[] = [];
  for (const connections of [1, 8]) {
    for (const path of [
      '/v1/analytics/stats?days=30',
      '/v1/analytics/funnel?days=30',
      '/v1/analytics/funnel?days=30&slug=article-7',
      '/v1/analytics/stats?days=365',
    ]) {
      reads.push(
        await load(`GET ${path} (${connections} conn.)`, `${app.url}${path}`, secret, { connections }),
      );
    }
  }
  report(`Analytics reads, ${label}, ${pageViewCount} page views`, reads);
  const insights: LoadResult[] = [];
  for (const path of insightPaths) {
    insights.push(
      await load(`GET ${path}`, `${app.url}${path}`, secret, {
        connections: 1,
        seconds: Number(process.env.BENCH_INSIGHT_SECONDS ?? 4),
      }),
    );
  }
  report(`Insights reads (one connection), ${label}, ${pageViewCount} page views`, insights);

  const track = { ...secret, 'content-type': 'application/json', 'user-agent': browser };
  const postBody = JSON.stringify({
    slug: 'article-3',
    pageUrl: 'https://blog.example.com/article-3',
    pageTitle: 'Article 3',
    referrer: 'https://news.example.com/',
    screenWidth: 1440,
    screenHeight: 900,
    timeOnPage: 0,
    scrollDepth: 0,
    fetchGeo: true,
  });
  const answer = await fetch(`${app.url}/v1/analytics/track`, {
    method: 'POST',
    headers: track,
    body: postBody,
  });
  const bodyFile = join(work, 'answer.json');
  writeFileSync(bodyFile, Buffer.from(await answer.arrayBuffer()));
  const raw = await forkServer(new URL('./serve-raw.ts', import.meta.url).pathname, {
    BENCH_BODY_FILE: bodyFile,
  });
  const baseline = await load('raw node:http, same answer', raw.url, {}, { method: 'POST', body: postBody });
  await raw.stop();

  const before = await countPageViews(databaseUrl);
  const post = await load('POST /v1/analytics/track', `${app.url}/v1/analytics/track`, track, {
    method: 'POST',
    body: postBody,
  });
  const after = await countPageViews(databaseUrl);
  const ids = await recentPageViewIds(databaseUrl, after - before);
  const put = await load('PUT /v1/analytics/track/:id', app.url, track, {
    method: 'PUT',
    body: JSON.stringify({ timeOnPage: 42, scrollDepth: 80, exitPosition: 75 }),
    paths: ids.map((id) => `/v1/analytics/track/${id}`),
  });
  await app.stop();
  report(`Tracking, ${label} (${pageViewCount} page views already stored)`, [baseline, post, put], baseline);
  console.log(
    `\n  POST run: ${post.answered} answered 201, ${after - before} page views stored (requests cut off by the end of the run may be stored unanswered)`,
  );
  if (after - before < post.answered) throw new Error('an answered page view is missing');
}

async function countPageViews(databaseUrl: string): Promise<number> {
  const db = openDatabase(databaseUrl);
  const row = await db.kysely
    .selectFrom('page_view_rows')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  await db.close();
  return Number(row.count);
}

async function recentPageViewIds(databaseUrl: string, limit: number): Promise<string[]> {
  const db = openDatabase(databaseUrl);
  // The ids of the page views just POSTed: created after the generated ones.
  const rows = await db.kysely
    .selectFrom('page_view_rows')
    .select(['day', 'created_ms', 'rid', 'id_text'])
    .orderBy('day', 'desc')
    .orderBy('created_ms', 'desc')
    .limit(limit)
    .execute();
  await db.close();
  return rows.map((row) => pageViewIdOf({ ...row, day: String(row.day) }));
}

const work = mkdtempSync(join(tmpdir(), 'folio-bench-'));
try {
  if (process.env.BENCH_SKIP_SQLITE !== '1') await measure('SQLite', join(work, 'bench.db'), work);
  if (process.env.BENCH_POSTGRES_URL) {
    await withPostgresDatabase(process.env.BENCH_POSTGRES_URL, 'folio_bench', (url) =>
      measure('PostgreSQL', url, work),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
