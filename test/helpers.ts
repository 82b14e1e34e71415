// Test helpers: every suite runs once per configured database (SQLite always, PostgreSQL when
// TEST_POSTGRES_URL is set), each in a database of its own; factories build each test's rows.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Kysely, Migrator } from 'kysely';
import pg from 'pg';
import { type AppOptions, buildApp } from '../src/app.ts';
import type { ArticleInput, ContentSource, TagInput } from '../src/content/import/records.ts';
import { type ImportOptions, importContent } from '../src/content/import.ts';
import { type Db, type DialectName, openDatabase } from '../src/db/database.ts';
import { migrateToLatest, migrations } from '../src/db/migrations/index.ts';
import type { KeyScope, Project } from '../src/db/schema.ts';
import type { KeyKind } from '../src/projects/keys.ts';
import { createApiKey, createProject } from '../src/projects/service.ts';
import { rollUpQueued } from '../src/analytics/rollups/rollup-queue.ts';

export const postgresUrl = process.env.TEST_POSTGRES_URL || null;
export const redisUrl = process.env.TEST_REDIS_URL || null;

export interface TestDatabase {
  db: Db;
  url: string;
  dialect: DialectName;
  drop(): Promise<void>;
}

export function configuredDialects(): DialectName[] {
  return postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** Applies the migrations named before `first` (a database as an older release left it). */
export async function migrateBefore(db: Db, first: string): Promise<void> {
  const before = new Migrator({
    db: db.kysely as Kysely<any>,
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          Object.entries(migrations)
            .filter(([name]) => name < first)
            .map(([name, make]) => [name, make(db.dialect)]),
        ),
    },
  });
  const { error } = await before.migrateToLatest();
  if (error) throw error;
}

/** A new, empty database of the dialect, migrated unless `migrate` is false. */
export async function createTestDatabase(
  dialect: DialectName,
  { migrate = true }: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'folio-test-'));
    const url = join(dir, 'folio.db');
    const db = openDatabase(url);
    if (migrate) await migrateToLatest(db);
    return {
      db,
      url,
      dialect,
      drop: async () => {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `folio_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl! });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresUrl!);
  url.pathname = `/${name}`;
  const db = openDatabase(url.toString(), { poolSize: 5 });
  if (migrate) await migrateToLatest(db);
  return {
    db,
    url: url.toString(),
    dialect,
    drop: async () => {
      await db.close();
      const client = new pg.Client({ connectionString: postgresUrl! });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export interface DialectContext {
  dialect: DialectName;
  /** Set once the suite's `before` has run. */
  db: Db;
  url: string;
  app: FastifyInstance;
}

/** Runs the suite once per configured database, with a fresh database and app for each. */
export function describeEachDialect(
  name: string,
  suite: (context: DialectContext) => void,
  appOptions: Omit<AppOptions, 'db'> = {},
): void {
  for (const dialect of configuredDialects()) {
    describe(`${name} [${dialect}]`, () => {
      const context = { dialect } as DialectContext;
      let database: TestDatabase;
      before(async () => {
        database = await createTestDatabase(dialect);
        context.db = database.db;
        context.url = database.url;
        context.app = await buildApp({ db: database.db, ...appOptions });
      });
      suite(context);
      // Registered after the suite's own: hooks run in the order they were added, so that apps a
      // suite builds on the database are closed before it goes (a webhook dispatcher of one could
      // otherwise be left waiting forever on a database closed under it).
      after(async () => {
        await context.app?.close();
        await database?.drop();
      });
    });
  }
}

let counter = 0;
export function uniqueSlug(prefix = 'p'): string {
  counter++;
  return `${prefix}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}`;
}

export interface TestProject {
  project: Project;
  key: string;
  keyId: string;
  headers: { 'x-api-key': string };
}

export async function createTestProject(
  db: Db,
  options: {
    name?: string;
    siteUrl?: string | null;
    logoUrl?: string | null;
    storageLimit?: string;
    kind?: KeyKind;
    rateLimit?: number;
    origins?: string[];
    /** A secret key's scopes; default read and analytics. */
    scopes?: KeyScope[];
    test?: boolean;
  } = {},
): Promise<TestProject> {
  const slug = uniqueSlug();
  const project = await createProject(db, {
    name: options.name ?? `Project ${slug}`,
    slug,
    description: 'A test project',
    siteUrl: options.siteUrl ?? null,
    logoUrl: options.logoUrl ?? null,
    storageLimit: options.storageLimit,
  });
  const { key, row } = await createApiKey(db, slug, {
    kind: options.kind ?? 'secret',
    rateLimit: options.rateLimit ?? 100_000,
    origins: options.origins,
    scopes: options.scopes,
    test: options.test,
  });
  return { project, key, keyId: row.id, headers: { 'x-api-key': key } };
}

export async function createTestKey(
  db: Db,
  project: Project,
  options: {
    kind?: KeyKind;
    rateLimit?: number | null;
    origins?: string[];
    scopes?: KeyScope[];
    test?: boolean;
  } = {},
): Promise<{ key: string; keyId: string; headers: { 'x-api-key': string } }> {
  const { key, row } = await createApiKey(db, project.slug, {
    kind: options.kind ?? 'secret',
    rateLimit: options.rateLimit === undefined ? 100_000 : options.rateLimit,
    origins: options.origins,
    scopes: options.scopes,
    test: options.test,
  });
  return { key, keyId: row.id, headers: { 'x-api-key': key } };
}

/** An article input with sensible defaults; tests override what they assert on. */
export function articleInput(overrides: Partial<ArticleInput> & { slug: string }): ArticleInput {
  return {
    file: `${overrides.slug}.md`,
    title: `Title of ${overrides.slug}`,
    excerpt: null,
    coverImage: null,
    status: 'published',
    publishedAt: '2026-01-01T00:00:00.000Z',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    author: { name: 'Ada', image: null },
    lastUpdatedBy: null,
    tags: [],
    seo: null,
    variants: [],
    content: `Body of ${overrides.slug}.`,
    ...overrides,
  };
}

export async function importArticles(
  db: Db,
  project: Project,
  articles: ArticleInput[],
  tags: TagInput[] = [],
  options: ImportOptions = {},
) {
  const source: ContentSource = { tags, articles };
  return importContent(db, project.slug, source, options);
}

export async function getJson(
  app: FastifyInstance,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const response = await app.inject({ method: 'GET', url, headers });
  return {
    status: response.statusCode,
    body: response.body ? JSON.parse(response.body) : null,
    headers: response.headers,
  };
}

const contentFolders: string[] = [];

/** A temporary content folder holding `files` (paths with `/`); removeContentFolders deletes them. */
export async function makeContentFolder(files: Record<string, string>): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'folio-content-'));
  contentFolders.push(root);
  for (const [name, text] of Object.entries(files)) {
    const path = join(root, ...name.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  return root;
}

export async function removeContentFolders(): Promise<void> {
  for (const dir of contentFolders.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Sets an article's view count, as that many page views would have; it must exist. */
export async function setViewCount(db: Db, projectId: string, slug: string, count: number): Promise<void> {
  const article = await db.kysely
    .selectFrom('articles')
    .select('id')
    .where('project_id', '=', projectId)
    .where('slug', '=', slug)
    .executeTakeFirstOrThrow();
  await db.kysely
    .insertInto('article_views')
    .values({ article_id: article.id, project_id: projectId, view_count: count })
    .onConflict((conflict) => conflict.column('article_id').doUpdateSet({ view_count: count }))
    .execute();
}

/**
 * An article's view count as stored (0 before its first page view) once the page views queued so
 * far are rolled up; it must exist.
 */
export async function viewCountOf(db: Db, projectId: string, slug: string): Promise<number> {
  await rollUpQueued(db);
  const row = await db.kysely
    .selectFrom('articles')
    .leftJoin('article_views', 'article_views.article_id', 'articles.id')
    .select('article_views.view_count')
    .where('articles.project_id', '=', projectId)
    .where('articles.slug', '=', slug)
    .executeTakeFirstOrThrow();
  return Number(row.view_count ?? 0);
}
