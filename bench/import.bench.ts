// `folio import` at scale, as a user runs it (the `folio` command in its own process, for its wall
// time and peak RSS): BENCH_IMPORT_ARTICLES (100,000) varied articles with tags, written as a folder of
// Markdown files and as one Folio JSON file, each imported into a new project, then the folder
// imported again into its project (nothing changed). SQLite always; PostgreSQL too with
// BENCH_POSTGRES_URL (BENCH_IMPORT_SKIP_SQLITE=1: PostgreSQL only).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrations/index.ts';
import { createProject } from '../src/projects/service.ts';
import type { ArticleInput, TagInput } from '../src/content/import/records.ts';
import { type CliRun, loadAverage, timedNode, withPostgresDatabase } from './lib.ts';
import { variedArticles } from './varied-articles.ts';

const articleCount = Number(process.env.BENCH_IMPORT_ARTICLES ?? 100_000);
/**
 * The `folio` command as installed (package.json's bin): its entry sets the import's memory
 * settings (malloc arenas, young generation) and serves src/ stripped from a cache.
 */
const folio = new URL('../src/cli/folio.js', import.meta.url).pathname;

/** The article's fields as a source writes them: absent when null or empty, no `file`. */
function sourceFields({ file: _file, content: _content, ...article }: ArticleInput): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(article).filter(
      ([, value]) => value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0),
    ),
  );
}

/** A Folio content folder (tags.yaml, one .md per article) and a Folio JSON file of the same articles. */
function writeSources(
  work: string,
  tags: TagInput[],
  articles: ArticleInput[],
): { folder: string; json: string } {
  const folder = join(work, 'content');
  mkdirSync(folder);
  // No folding, multi-line texts in double quotes: as `folio export` writes them.
  const yaml = (value: unknown) => stringify(value, { lineWidth: 0, blockQuote: false });
  writeFileSync(join(folder, 'tags.yaml'), yaml(tags));
  for (const article of articles) {
    // A dated name (2024-01-05-post) would give another slug: `_` keeps it, as the export does.
    const name = /^\d{4}-\d{2}-\d{2}-/.test(article.slug) ? `_${article.slug}` : article.slug;
    writeFileSync(join(folder, `${name}.md`), `---\n${yaml(sourceFields(article))}---\n\n${article.content}`);
  }
  const json = join(work, 'content.json');
  writeFileSync(
    json,
    JSON.stringify({
      tags,
      articles: articles.map((article) => ({ ...sourceFields(article), content: article.content })),
    }),
  );
  return { folder, json };
}

interface Run {
  name: string;
  run: CliRun;
  summary: { created: number; updated: number; unchanged: number };
}

async function measure(databaseUrl: string, sources: { folder: string; json: string }): Promise<Run[]> {
  const db = openDatabase(databaseUrl);
  try {
    await migrateToLatest(db);
    for (const slug of ['from-folder', 'from-json']) {
      await createProject(db, {
        name: slug,
        slug,
        storageLimit: '100 GB',
        siteUrl: 'https://blog.example.com',
        urlPattern: '/:year/:month/:slug/',
        defaultAuthor: { name: 'Default Author', image: null },
      });
    }
  } finally {
    await db.close();
  }
  const runs: Run[] = [];
  const importInto = async (name: string, slug: string, path: string) => {
    const run = await timedNode([folio, 'import', '--project', slug, path, '--json'], {
      DATABASE_URL: databaseUrl,
    });
    const summary = JSON.parse(run.stdout) as Run['summary'];
    runs.push({ name, run, summary });
    console.log(
      `${name}: ${run.seconds.toFixed(1)} s, ${run.peakRssMb.toFixed(0)} MB (${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged)`,
    );
  };
  await importInto('Markdown folder', 'from-folder', sources.folder);
  await importInto('JSON file', 'from-json', sources.json);
  await importInto('Markdown folder again (unchanged)', 'from-folder', sources.folder);
  return runs;
}

function printReport(label: string, runs: Run[], load: string): void {
  console.log(`\n## Import of ${articleCount} articles, ${label} (load ${load})\n`);
  console.log('| source | wall s | peak RSS MB | created | updated | unchanged |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const { name, run, summary } of runs) {
    console.log(
      `| ${name} | ${run.seconds.toFixed(1)} | ${run.peakRssMb.toFixed(0)} | ${summary.created} | ${summary.updated} | ${summary.unchanged} |`,
    );
  }
}

const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'folio-import-bench-'));
try {
  console.log(`node ${process.version}, ${execFileSync('nproc').toString().trim()} cores`);
  const started = performance.now();
  const { articles, tags } = variedArticles(articleCount);
  const sources = writeSources(work, tags, articles);
  console.log(`wrote ${articleCount} articles in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (process.env.BENCH_IMPORT_SKIP_SQLITE === undefined) {
    const runs = await measure(join(work, 'folio.db'), sources);
    printReport('SQLite', runs, await loadAverage());
  }
  const postgres = process.env.BENCH_POSTGRES_URL;
  if (postgres) {
    await withPostgresDatabase(postgres, 'folio_import_bench', async (url) => {
      const runs = await measure(url, sources);
      printReport('PostgreSQL', runs, await loadAverage());
    });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
