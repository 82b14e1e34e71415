// Export round trip at scale: `folio export` of the demo project and of a generated project of
// BENCH_EXPORT_ARTICLES (10,000) varied articles, then `folio import --strict` of each folder into a
// new project, and every field of every article and tag compared, through the API (every selectable
// field, as the round-trip test does) and through the stored rows. Reports the export's and the
// import's time and peak RSS (each CLI in its own process), the folder's size and the differences,
// which must be none. SQLite always; PostgreSQL too with BENCH_POSTGRES_URL.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parse } from 'yaml';
import { buildApp } from '../src/app.ts';
import { importContent } from '../src/content/import.ts';
import { selectableFields } from '../src/content/schemas.ts';
import { type Db, openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { createDemoProjectIfEmpty } from '../src/demo.ts';
import { createApiKey, createProject, type NewProject } from '../src/projects/service.ts';
import { type CliRun, loadAverage, timedCli, withPostgresDatabase } from './lib.ts';
import { variedArticles } from './varied-articles.ts';

const articleCount = Number(process.env.BENCH_EXPORT_ARTICLES ?? 10_000);

function folderBytes(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
    files++;
  }
  return { bytes, files };
}

const everyField = encodeURIComponent(
  JSON.stringify(Object.fromEntries(selectableFields.map((f) => [f, true]))),
);

/** Every article as the API shows it (every selectable field), by slug, without ids and counts. */
async function apiArticles(app: FastifyInstance, key: string): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  for (let page = 1; ; page++) {
    const response = await app.inject({
      url: `/v1/articles?limit=100&page=${page}&sort=title&select=${everyField}`,
      headers: { 'x-api-key': key },
    });
    if (response.statusCode !== 200) throw new Error(response.body);
    const body = response.json();
    for (const { id: _id, viewCount: _views, project: _project, tags, variants, ...article } of body.data) {
      found.set(article.slug, {
        ...article,
        tags: tags.map(({ id: _tagId, ...tag }: { id: string }) => tag),
        variants: variants.map(({ id: _variantId, ...variant }: { id: string }) => variant),
      });
    }
    if (page >= body.meta.totalPages) break;
  }
  return found;
}

/**
 * Columns a new project numbers afresh (ids, the project, the full-text row, the set ordinal), and
 * content_hash: a hash of the source as read (its key order, its tags' order), not a stored field;
 * the re-import into the source project below shows what it changes.
 */
const notCompared = new Set(['id', 'project_id', 'search_rowid', 'ordinal', 'content_hash']);

/** Every stored column of every article, with its tags' names and its variants, by slug. */
async function storedArticles(db: Db, projectId: string): Promise<Map<string, Record<string, unknown>>> {
  const rows = await db.kysely
    .selectFrom('articles')
    .selectAll()
    .where('project_id', '=', projectId)
    .execute();
  const tagRows = await db.kysely
    .selectFrom('article_tags')
    .innerJoin('tags', 'tags.id', 'article_tags.tag_id')
    .innerJoin('articles', 'articles.id', 'article_tags.article_id')
    .select(['articles.slug', 'tags.name'])
    .where('articles.project_id', '=', projectId)
    .orderBy('tags.name')
    .execute();
  const variantRows = await db.kysely
    .selectFrom('article_variants')
    .innerJoin('articles', 'articles.id', 'article_variants.article_id')
    .select(['articles.slug', 'article_variants.key', 'article_variants.title', 'article_variants.excerpt'])
    .select('article_variants.content')
    .where('articles.project_id', '=', projectId)
    .orderBy('article_variants.key')
    .execute();
  const found = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    const kept = Object.fromEntries(
      Object.entries(row)
        .filter(([column]) => !notCompared.has(column))
        // PostgreSQL's bigint columns arrive as strings.
        .map(([column, value]) => [column, typeof value === 'bigint' ? Number(value) : value]),
    );
    found.set(row.slug, { ...kept, tags: [] as string[], variants: [] as unknown[] });
  }
  for (const { slug, name } of tagRows) (found.get(slug)!.tags as string[]).push(name);
  for (const { slug, ...variant } of variantRows) (found.get(slug)!.variants as unknown[]).push(variant);
  return found;
}

async function storedTags(db: Db, projectId: string): Promise<Map<string, Record<string, unknown>>> {
  const rows = await db.kysely
    .selectFrom('tags')
    .select(['name', 'name_key', 'slug', 'color', 'icon'])
    .where('project_id', '=', projectId)
    .execute();
  return new Map(rows.map((row) => [row.name, row]));
}

async function apiTags(app: FastifyInstance, key: string): Promise<Map<string, Record<string, unknown>>> {
  const response = await app.inject({ url: '/v1/tags', headers: { 'x-api-key': key } });
  if (response.statusCode !== 200) throw new Error(response.body);
  const found = new Map<string, Record<string, unknown>>();
  for (const { id: _id, createdAt: _c, updatedAt: _u, ...tag } of response.json().data)
    found.set(tag.name as string, tag);
  return found;
}

/** The fields that differ between two maps of records (a missing record counts as one difference). */
function differences(
  what: string,
  before: Map<string, Record<string, unknown>>,
  after: Map<string, Record<string, unknown>>,
): string[] {
  const found: string[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(key);
    const b = after.get(key);
    if (a === undefined || b === undefined) {
      found.push(`${what} [${key}]: ${a === undefined ? 'only after' : 'missing after'} the round trip`);
      continue;
    }
    for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const left = JSON.stringify(a[field]);
      const right = JSON.stringify(b[field]);
      if (left !== right)
        found.push(`${what} [${key}].${field}: ${left?.slice(0, 120)} → ${right?.slice(0, 120)}`);
    }
  }
  return found;
}

interface RoundTrip {
  name: string;
  articles: number;
  tags: number;
  exported: CliRun;
  imported: CliRun;
  bytes: number;
  files: number;
  differences: string[];
  /** Articles the re-import of the folder into its own project rewrote (version + 1). */
  rewritten: number;
}

async function roundTrip(
  db: Db,
  app: FastifyInstance,
  databaseUrl: string,
  work: string,
  source: { slug: string; key: string },
  name: string,
): Promise<RoundTrip> {
  const dir = join(work, `export-${source.slug}`);
  const exported = await timedCli(databaseUrl, ['export', '--project', source.slug, dir, '--json']);
  const summary = JSON.parse(exported.stdout) as { articles: number; tags: number; lossy: string[] };
  const { bytes, files } = folderBytes(dir);
  // The new project takes the settings of project.yaml, as `folio projects create` would be told.
  const targetSlug = `${source.slug}-copy`;
  const { slug: _slug, ...settings } = parse(readFileSync(join(dir, 'project.yaml'), 'utf8')) as NewProject;
  await createProject(db, { ...settings, slug: targetSlug });
  const { key: targetKey } = await createApiKey(db, targetSlug, { kind: 'secret', rateLimit: 1_000_000 });
  const imported = await timedCli(databaseUrl, [
    'import',
    '--project',
    targetSlug,
    dir,
    '--json',
    '--strict',
  ]);
  const projects = await db.kysely
    .selectFrom('projects')
    .select(['id', 'slug'])
    .where('slug', 'in', [source.slug, targetSlug])
    .execute();
  const idOf = (slug: string) => projects.find((project) => project.slug === slug)!.id;
  const sourceRows = await storedArticles(db, idOf(source.slug));
  const [sourceApi, targetApi] = [await apiArticles(app, source.key), await apiArticles(app, targetKey)];
  const found = [
    // The API's pages, read by title, hold every stored article once (ties in title are ordered).
    ...[sourceApi.size, targetApi.size]
      .filter((size) => size !== sourceRows.size)
      .map((size) => `api article [every]: ${size} read through the API, ${sourceRows.size} stored`),
    ...differences('api article', sourceApi, targetApi),
    ...differences('stored article', sourceRows, await storedArticles(db, idOf(targetSlug))),
    ...differences('api tag', await apiTags(app, source.key), await apiTags(app, targetKey)),
    ...differences(
      'stored tag',
      await storedTags(db, idOf(source.slug)),
      await storedTags(db, idOf(targetSlug)),
    ),
    ...summary.lossy.map((slug) => `article [${slug}]: carriage returns written as plain line ends`),
  ];
  // The folder imported back into the project it came from: what it rewrites with nothing changed.
  const again = await timedCli(databaseUrl, ['import', '--project', source.slug, dir, '--json', '--strict']);
  const reimport = JSON.parse(again.stdout) as { updated: number; unchanged: number; created: number };
  // A rewrite bumps the version (the article's ETag); any other stored field must stay as it was.
  const withoutVersion = (rows: Map<string, Record<string, unknown>>) =>
    new Map([...rows].map(([slug, { version: _version, ...row }]) => [slug, row]));
  found.push(
    ...differences(
      'stored article after re-import',
      withoutVersion(sourceRows),
      withoutVersion(await storedArticles(db, idOf(source.slug))),
    ),
  );
  rmSync(dir, { recursive: true, force: true });
  return {
    name,
    articles: summary.articles,
    tags: summary.tags,
    exported,
    imported,
    bytes,
    files,
    differences: found,
    rewritten: reimport.updated + reimport.created,
  };
}

async function measure(label: string, databaseUrl: string, work: string): Promise<RoundTrip[]> {
  const db = openDatabase(databaseUrl);
  try {
    await migrateToLatest(db);
    await createDemoProjectIfEmpty(db, 'http://localhost:3000', { withKey: false, databaseUrl });
    const { key: demoKey } = await createApiKey(db, 'demo', { kind: 'secret', rateLimit: 1_000_000 });
    const slug = 'big';
    await createProject(db, {
      name: 'Big blog',
      slug,
      storageLimit: '10 GB',
      siteUrl: 'https://blog.example.com',
      urlPattern: '/:year/:month/:slug/',
      timeZone: 'Europe/Paris',
      defaultAuthor: { name: 'Default Author', image: null },
    });
    const { key } = await createApiKey(db, slug, { kind: 'secret', rateLimit: 1_000_000 });
    const started = performance.now();
    await importContent(db, slug, variedArticles(articleCount));
    console.log(
      `${label}: seeded ${articleCount} articles in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const app = await buildApp({ db });
    try {
      const runs = [
        await roundTrip(db, app, databaseUrl, work, { slug: 'demo', key: demoKey }, 'demo'),
        await roundTrip(db, app, databaseUrl, work, { slug, key }, `${articleCount} articles`),
      ];
      return runs;
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}

function printReport(label: string, runs: RoundTrip[], load: string): void {
  console.log(`\n## Export round trip, ${label} (load ${load})\n`);
  console.log(
    '| project | articles | tags | export s | export peak RSS MB | folder MB (files) | import s | import peak RSS MB | differences | rewritten by a re-import into the source |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const run of runs) {
    console.log(
      `| ${run.name} | ${run.articles} | ${run.tags} | ${run.exported.seconds.toFixed(1)} | ${run.exported.peakRssMb.toFixed(0)} | ${(run.bytes / 1024 ** 2).toFixed(1)} (${run.files}) | ${run.imported.seconds.toFixed(1)} | ${run.imported.peakRssMb.toFixed(0)} | ${run.differences.length} | ${run.rewritten} |`,
    );
  }
  for (const run of runs) {
    // By kind and field (`api article …url`), then the first few in full.
    const byField = new Map<string, number>();
    for (const line of run.differences) {
      const field = /^(.+?) \[.*?\](\.\w+)?: /.exec(line);
      const name = field ? `${field[1]}${field[2] ?? ''}` : line;
      byField.set(name, (byField.get(name) ?? 0) + 1);
    }
    for (const [field, count] of byField) console.log(`- ${run.name}: ${field} ×${count}`);
    for (const line of run.differences.slice(0, 10)) console.log(`  - ${line}`);
  }
}

const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'folio-export-bench-'));
let failed = false;
try {
  console.log(`node ${process.version}, ${execFileSync('nproc').toString().trim()} cores`);
  const sqliteRuns = await measure('SQLite', join(work, 'folio.db'), work);
  printReport('SQLite', sqliteRuns, await loadAverage());
  failed ||= sqliteRuns.some((run) => run.differences.length > 0);
  const postgres = process.env.BENCH_POSTGRES_URL;
  if (postgres) {
    await withPostgresDatabase(postgres, 'folio_export_bench', async (url) => {
      const runs = await measure('PostgreSQL', url, work);
      printReport('PostgreSQL', runs, await loadAverage());
      failed ||= runs.some((run) => run.differences.length > 0);
    });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed) {
  console.error('The round trip changed articles or tags (listed above).');
  process.exitCode = 1;
}
