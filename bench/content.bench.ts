// Content API under load: a project of 10,000 articles, four read scenarios, next to a raw
// node:http server sending a precomputed body of the same size as the plain list, in the same run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArticleInput } from '../src/content/import/records.ts';
import { importContent } from '../src/content/import.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { createApiKey, createProject } from '../src/projects/service.ts';
import { forkServer, type LoadResult, load, report } from './lib.ts';

const articleCount = Number(process.env.BENCH_ARTICLES ?? 10_000);
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

async function measure(label: string, databaseUrl: string, work: string): Promise<void> {
  const key = await prepare(databaseUrl);
  const headers = { 'x-api-key': key };
  const scenarios = [
    '/v1/articles?limit=10',
    '/v1/articles?tags=tag-3',
    '/v1/articles?search=unique4242word',
    '/v1/articles?search=latency',
    '/v1/articles/article-5000',
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
      await load('warm-up', `${app.url}${path}`, headers, { seconds: 2 });
      results.push(await load(`GET ${path} (${mode})`, `${app.url}${path}`, headers));
    }
    await app.stop();
  }
  report(`Content API, ${label}, ${articleCount} articles (list body ${listBytes} bytes)`, results, baseline);
}

const work = mkdtempSync(join(tmpdir(), 'folio-bench-'));
try {
  await measure('SQLite', join(work, 'bench.db'), work);
  if (process.env.BENCH_POSTGRES_URL) await measure('PostgreSQL', process.env.BENCH_POSTGRES_URL, work);
} finally {
  rmSync(work, { recursive: true, force: true });
}
