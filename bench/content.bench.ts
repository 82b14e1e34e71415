// Content API under load: a project of 10,000 articles, four read scenarios, next to a raw
// node:http server sending a precomputed body of the same size as the plain list, in the same run.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArticleInput } from '../src/content/import/records.ts';
import { importContent } from '../src/content/import.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { hashKey } from '../src/projects/keys.ts';
import { createApiKey, createProject } from '../src/projects/service.ts';
import {
  assertAnswered,
  forkServer,
  type LoadResult,
  load,
  loadAverage,
  report,
  type RunningServer,
  wrk,
} from './lib.ts';

const articleCount = Number(process.env.BENCH_ARTICLES ?? 10_000);
// BENCH_ONLY=list,mix,ingest,import,scenarios (default: all) picks the parts to run;
// BENCH_SKIP_SQLITE=1 with BENCH_POSTGRES_URL runs PostgreSQL alone.
const parts = new Set((process.env.BENCH_ONLY ?? 'list,mix,ingest,import,scenarios').split(','));
const browserAgent =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const words =
  'reading analytics sqlite postgres cache latency index markdown feed sitemap tag search privacy scroll funnel'.split(
    ' ',
  );

function generatedArticles(count: number): ArticleInput[] {
  const articles: ArticleInput[] = [];
  for (let i = 0; i < count; i++) {
    const paragraph = Array.from({ length: 120 }, (_, w) => words[(i * 7 + w * 13) % words.length]).join(' ');
    const date = new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();
    articles.push({
      file: `a${i}.md`,
      slug: `article-${i}`,
      title: `Article ${i}: ${words[i % words.length]} in practice`,
      excerpt: `A short summary of article ${i}.`,
      coverImage: `https://images.example.com/${i}.jpg`,
      status: i % 10 === 0 ? 'draft' : 'published',
      publishedAt: i % 10 === 0 ? null : date,
      createdAt: date,
      updatedAt: date,
      author: { name: 'Bench Author', image: null },
      lastUpdatedBy: null,
      tags: [`tag-${i % 20}`, `topic-${i % 7}`],
      seo: null,
      variants: [],
      content: `# Heading ${i}\n\n${paragraph}\n\n${paragraph} unique${i}word\n`,
    });
  }
  return articles;
}

async function prepare(databaseUrl: string): Promise<string> {
  const db = openDatabase(databaseUrl);
  await migrateToLatest(db);
  const slug = `bench-${Date.now()}`;
  await createProject(db, { name: 'Bench', slug, storageLimit: '10 GB' });
  const started = performance.now();
  await importContent(db, slug, { tags: [], articles: generatedArticles(articleCount) });
  console.log(`imported ${articleCount} articles in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const { key } = await createApiKey(db, slug, { kind: 'secret', rateLimit: 1_000_000 });
  await db.close();
  return key;
}

const appScript = new URL('./serve-app.ts', import.meta.url).pathname;
/** A blog's read mix: 1,000 article pages and 20 list pages, requested at random. */
const pages = [
  ...Array.from({ length: 1000 }, (_, i) => `/v1/articles/article-${i}`),
  ...Array.from({ length: 20 }, (_, i) => `/v1/articles?limit=10&page=${i + 1}`),
];
const rawScript = new URL('./serve-raw.ts', import.meta.url).pathname;

/** A raw node:http server sending `body` to every request. */
async function rawServer(work: string, body: Buffer): Promise<RunningServer> {
  const bodyFile = join(work, `raw-${body.length}.json`);
  writeFileSync(bodyFile, body);
  return forkServer(rawScript, { BENCH_BODY_FILE: bodyFile });
}

/**
 * Rounds of each part: this machine's throughput moves by a third between two runs of the same
 * server (a shared virtual machine), so the app and its baseline (the raw server, or the quiet read
 * mix) alternate for BENCH_ROUNDS rounds (default 3) and the medians are reported with every round.
 */
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

/** The run of median throughput in `column` of the rounds, named `name`. */
function medianRun(rounds: LoadResult[][], column: number, name: string): LoadResult {
  const sorted = rounds.map((row) => row[column]).sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return { ...sorted[Math.floor(sorted.length / 2)], name };
}

/**
 * Issue 7 item 2: the cached list with wrk (1 thread, 50 connections), next to the raw server
 * sending the same bytes, in the same run, plain and with br.
 */
async function measureList(
  label: string,
  databaseUrl: string,
  nextKey: NextKey,
  work: string,
): Promise<void> {
  const headers = { 'x-api-key': nextKey() };
  const path = '/v1/articles?limit=10';
  const app = await forkServer(appScript, { DATABASE_URL: databaseUrl });
  const body = Buffer.from(await (await fetch(`${app.url}${path}`, { headers })).arrayBuffer());
  const raw = await rawServer(work, body);
  await wrk('warm-up', raw.url, {}, { seconds: 2 });
  await wrk('warm-up', `${app.url}${path}`, headers, { seconds: 2 });
  const results: Array<[LoadResult, LoadResult, LoadResult]> = [];
  for (let round = 1; round <= rounds; round++) {
    const baseline = await wrk(`raw node:http, same body (wrk), round ${round}`, raw.url, {});
    const list = await wrk(`GET ${path} (wrk, cached), round ${round}`, `${app.url}${path}`, {
      'x-api-key': nextKey(),
    });
    const zipped = await wrk(
      `GET ${path} (wrk, cached, Accept-Encoding: br), round ${round}`,
      `${app.url}${path}`,
      { 'x-api-key': nextKey(), 'accept-encoding': 'gzip, deflate, br' },
    );
    results.push([baseline, list, zipped]);
  }
  await raw.stop();
  await app.stop();
  const median = (column: number, name: string) => medianRun(results, column, name);
  const baseline = median(0, 'raw node:http, same body (wrk), median of the rounds');
  report(
    `List throughput, ${label}, ${articleCount} articles (body ${body.length} bytes; ${rounds} alternating rounds; load ${await loadAverage()})`,
    [
      ...results.flat(),
      baseline,
      median(1, `GET ${path} (wrk, cached), median of the rounds`),
      median(2, `GET ${path} (wrk, cached, Accept-Encoding: br), median of the rounds`),
    ],
    baseline,
  );
  assertAnswered(results.flat());
}

/**
 * A new API key of the bench's project for each run: a key takes at most a million requests a
 * minute, which one run of the list or the read mix exceeds on a fast machine (the rest would be
 * 429s, fast to answer and no figure).
 */
type NextKey = () => string;

/**
 * Issue 7 item 1: a blog's read mix (1,000 article pages and 20 list pages at random), quiet and
 * while 50 page views/s and 200 updates/s are tracked.
 */
async function measureMix(label: string, databaseUrl: string, nextKey: NextKey): Promise<void> {
  const headers = { 'x-api-key': nextKey() };
  const app = await forkServer(appScript, { DATABASE_URL: databaseUrl });
  const trackHeaders = { ...headers, 'content-type': 'application/json', 'user-agent': browserAgent };
  const randomSlug = () => `article-${Math.floor(Math.random() * articleCount)}`;
  const ids: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const response = await fetch(`${app.url}/v1/analytics/track`, {
      method: 'POST',
      headers: trackHeaders,
      body: JSON.stringify({ slug: randomSlug() }),
    });
    ids.push(((await response.json()) as { id: string }).id);
  }
  await load('warm-up', app.url, { 'x-api-key': nextKey() }, { seconds: 3, paths: pages, random: true });
  // Quiet and busy alternate for the rounds of the list bench: one pair on this machine moved by
  // up to a fifth from one run to the next (the same build), more than the effect measured.
  const results: LoadResult[][] = [];
  for (let round = 1; round <= rounds; round++) {
    const quiet = await load(
      `read mix, quiet, round ${round}`,
      app.url,
      { 'x-api-key': nextKey() },
      { paths: pages, random: true },
    );
    const [busy, posts, puts] = await Promise.all([
      load(
        `read mix, while tracking, round ${round}`,
        app.url,
        { 'x-api-key': nextKey() },
        { paths: pages, random: true },
      ),
      load(
        `  POST /v1/analytics/track at 50/s, round ${round}`,
        `${app.url}/v1/analytics/track`,
        trackHeaders,
        {
          method: 'POST',
          connections: 5,
          rate: 50,
          bodies: () => JSON.stringify({ slug: randomSlug(), fetchGeo: true }),
        },
      ),
      load(`  PUT /v1/analytics/track/:id at 200/s, round ${round}`, app.url, trackHeaders, {
        method: 'PUT',
        connections: 10,
        rate: 200,
        paths: ids.map((id) => `/v1/analytics/track/${id}`),
        random: true,
        bodies: () =>
          JSON.stringify({ timeOnPage: Math.random() * 300, scrollDepth: Math.round(Math.random() * 100) }),
      }),
    ]);
    results.push([quiet, busy, posts, puts]);
  }
  await app.stop();
  const median = (column: number, name: string) => medianRun(results, column, name);
  const quiet = median(0, 'read mix, quiet, median of the rounds');
  report(
    `Read mix while tracking, ${label}, ${articleCount} articles (1,000 article + 20 list pages; ${rounds} alternating rounds; load ${await loadAverage()}; "vs raw" here is vs the quiet mix's median)`,
    [...results.flat(), quiet, median(1, 'read mix, while tracking, median of the rounds')],
    quiet,
  );
  assertAnswered(results.flat());
}

/** Issue 7 item 3: durable page views per second (each POST answered once committed), in
 * BENCH_ROUNDS rounds alternating with the raw server. */
async function measureIngest(
  label: string,
  databaseUrl: string,
  nextKey: NextKey,
  work: string,
): Promise<void> {
  const headers = { 'x-api-key': nextKey(), 'content-type': 'application/json', 'user-agent': browserAgent };
  const app = await forkServer(appScript, { DATABASE_URL: databaseUrl });
  const randomSlug = () => `article-${Math.floor(Math.random() * articleCount)}`;
  const url = `${app.url}/v1/analytics/track`;
  const sample = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ slug: randomSlug() }) });
  const raw = await rawServer(work, Buffer.from(await sample.arrayBuffer()));
  const body = () =>
    JSON.stringify({ slug: randomSlug(), pageUrl: 'https://blog.example.com/x', fetchGeo: true });
  await load('warm-up', url, headers, { method: 'POST', connections: 50, seconds: 2, bodies: body });
  // The raw server and Folio alternate for the rounds, as in the list bench.
  const results: LoadResult[][] = [];
  for (let round = 1; round <= rounds; round++) {
    const options = { method: 'POST', connections: 50, bodies: body } as const;
    results.push([
      await load(`raw node:http, same answer (autocannon), round ${round}`, raw.url, headers, options),
      await load(
        `POST /v1/analytics/track (autocannon, 50 connections), round ${round}`,
        url,
        { ...headers, 'x-api-key': nextKey() },
        options,
      ),
    ]);
  }
  await raw.stop();
  await app.stop();
  const baseline = medianRun(results, 0, 'raw node:http, same answer (autocannon), median of the rounds');
  report(
    `Ingest, ${label}, ${articleCount} articles (${rounds} alternating rounds; load ${await loadAverage()})`,
    [
      ...results.flat(),
      baseline,
      medianRun(results, 1, 'POST /v1/analytics/track (autocannon, 50 connections), median of the rounds'),
    ],
    baseline,
  );
  assertAnswered(results.flat());
}

/**
 * Issue 8 item 3: reads while the CLI imports 4,000 Markdown files into the same project in
 * another process (its one transaction holds SQLite's write lock while it writes): the read mix
 * at 1,000 requests a second with the answer cache off, so that every read runs its queries,
 * quiet and during the import (and the moment after it, when its commit is seen).
 */
async function measureImport(
  label: string,
  databaseUrl: string,
  key: string,
  project: string,
  work: string,
): Promise<void> {
  const folder = join(work, 'import-4000');
  mkdirSync(folder, { recursive: true });
  const paragraph = words.join(' ').repeat(12);
  for (let i = 0; i < 4000; i++) {
    writeFileSync(
      join(folder, `imported-${i}.md`),
      `---\ntitle: "Imported ${i}"\nstatus: published\npublishedAt: "2025-06-01T00:00:00.000Z"\ntags: [imported, topic-${i % 7}]\n---\n\n# Imported ${i}\n\n${paragraph}\n\n${paragraph}\n`,
    );
  }
  const headers = { 'x-api-key': key };
  const app = await forkServer(appScript, { DATABASE_URL: databaseUrl, BENCH_ANSWER_CACHE: 'off' });
  const reads = (name: string) =>
    load(name, app.url, headers, { paths: pages, random: true, connections: 10, rate: 1000 });
  await load('warm-up', app.url, headers, { seconds: 2, paths: pages, random: true });
  const quiet = await reads('uncached read mix at 1,000/s, quiet');
  const cli = new URL('../src/cli/main.ts', import.meta.url).pathname;
  const started = performance.now();
  const importing = new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'import', '--project', project, folder], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve((performance.now() - started) / 1000) : reject(new Error(`import exited ${code}`)),
    );
  });
  const during = await reads('uncached read mix at 1,000/s, during the import');
  const loadEnded = (performance.now() - started) / 1000;
  const importSeconds = await importing;
  await app.stop();
  report(
    `Reads during a CLI import of 4,000 files, ${label}, ${articleCount} articles (import took ${importSeconds.toFixed(1)} s; the loaded window was its first ${Math.min(loadEnded, importSeconds).toFixed(1)} s; load ${await loadAverage()})`,
    [quiet, during],
    quiet,
  );
}

async function measure(label: string, databaseUrl: string, work: string): Promise<void> {
  const key = await prepare(databaseUrl);
  const db = openDatabase(databaseUrl);
  // A key per part: each has its own budget of 1,000,000 requests a minute (the most a key takes).
  const project = (
    await db.kysely
      .selectFrom('projects')
      .innerJoin('api_keys', 'api_keys.project_id', 'projects.id')
      .select('projects.slug')
      .where('api_keys.key_hash', '=', hashKey(key))
      .executeTakeFirstOrThrow()
  ).slug;
  const keyFor = async () => (await createApiKey(db, project, { kind: 'secret', rateLimit: 1_000_000 })).key;
  const keys: string[] = [];
  for (let i = 0; i < 20 + 6 * rounds; i++) keys.push(await keyFor());
  const nextKey: NextKey = () => {
    const next = keys.pop();
    if (next === undefined) throw new Error('the bench ran out of API keys');
    return next;
  };
  await db.close();
  if (parts.has('list')) await measureList(label, databaseUrl, nextKey, work);
  if (parts.has('mix')) await measureMix(label, databaseUrl, nextKey);
  if (parts.has('ingest')) await measureIngest(label, databaseUrl, nextKey, work);
  if (parts.has('import')) await measureImport(label, databaseUrl, nextKey(), project, work);
  if (parts.has('scenarios')) await measureScenarios(label, databaseUrl, nextKey, work);
}

async function measureScenarios(
  label: string,
  databaseUrl: string,
  nextKey: NextKey,
  work: string,
): Promise<void> {
  const headers = { 'x-api-key': nextKey() };
  const scenarios = [
    '/v1/articles?limit=10',
    '/v1/articles?tags=tag-3',
    `/v1/articles?search=unique${Math.floor(articleCount * 0.4242)}word`, // unique4242word of the 10,000
    '/v1/articles?search=latency',
    `/v1/articles/article-${Math.floor(articleCount / 2)}`, // article-5000 of the 10,000
  ];
  const results: LoadResult[] = [];
  let baseline: LoadResult | undefined;
  let listBytes = 0;
  // Cached: repeated reads served from the answer cache (the steady state of a blog's front end).
  // Uncached: the cache disabled, so every request runs its queries (a cold or changing project).
  for (const mode of ['cached', 'uncached'] as const) {
    const app = await forkServer(new URL('./serve-app.ts', import.meta.url).pathname, {
      DATABASE_URL: databaseUrl,
      BENCH_ANSWER_CACHE: mode === 'cached' ? 'on' : 'off',
    });
    if (baseline === undefined) {
      const listBody = await (await fetch(`${app.url}${scenarios[0]}`, { headers })).arrayBuffer();
      listBytes = listBody.byteLength;
      const bodyFile = join(work, 'body.json');
      writeFileSync(bodyFile, Buffer.from(listBody));
      const raw = await forkServer(new URL('./serve-raw.ts', import.meta.url).pathname, {
        BENCH_BODY_FILE: bodyFile,
      });
      await load('warm-up', raw.url, {}, { seconds: 2 });
      baseline = await load('raw node:http, same body', raw.url, {});
      await raw.stop();
      results.push(baseline);
    }
    for (const path of scenarios) {
      const headers = { 'x-api-key': nextKey() };
      await load('warm-up', `${app.url}${path}`, headers, { seconds: 2 });
      results.push(await load(`GET ${path} (${mode})`, `${app.url}${path}`, headers));
    }
    await app.stop();
  }
  report(`Content API, ${label}, ${articleCount} articles (list body ${listBytes} bytes)`, results, baseline);
  assertAnswered(results);
}

const work = mkdtempSync(join(tmpdir(), 'folio-bench-'));
try {
  // BENCH_SKIP_SQLITE=1 measures PostgreSQL alone.
  if (process.env.BENCH_SKIP_SQLITE !== '1') await measure('SQLite', join(work, 'bench.db'), work);
  if (process.env.BENCH_POSTGRES_URL) await measure('PostgreSQL', process.env.BENCH_POSTGRES_URL, work);
} finally {
  rmSync(work, { recursive: true, force: true });
}
