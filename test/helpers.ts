// Test helpers: every suite runs once per configured database (SQLite always, PostgreSQL when
// TEST_POSTGRES_URL is set), each in a database of its own; factories build each test's rows.
import { createHash, randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type CompiledQuery, CompiledQuery as Compiled, type Kysely, Migrator, sql } from 'kysely';
import pg from 'pg';
import { type AppOptions, buildApp } from '../src/app.ts';
import type { ArticleInput, ContentSource, TagInput } from '../src/content/import/records.ts';
import { type ImportOptions, importContent } from '../src/content/import.ts';
import { type Db, type DialectName, openDatabase } from '../src/db/database.ts';
import { arrayLiteral } from '../src/db/dialect-sql.ts';
import { migrateToLatest, migrations } from '../src/db/migrations/index.ts';
import { pageViewIdOf } from '../src/db/page-view-rows.ts';
import type { KeyScope, PageViewRowTable, Project } from '../src/db/schema.ts';
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

/**
 * Applies the migrations named before `first` (a database as an older release left it). Today's
 * code, which the tests use to write its rows, writes projects.order_version (migration 0037): the
 * column is lent to an older schema that has projects, unless `lend` is false; 0037 keeps it.
 */
export async function migrateBefore(db: Db, first: string, { lend = true } = {}): Promise<void> {
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
  if (lend && first > '0001' && first < '0037-order-version')
    await sql`alter table projects add column order_version bigint not null default 0`.execute(db.kysely);
}

/**
 * What the migrated schema depends on: every file of src/db (the migrations, their frozen copies
 * and the handle they run through), and the day (a migration makes the page-view partitions of
 * the months around it). A change to any of them is a new template, never a stale one.
 */
const schemaFingerprint = (() => {
  const dbSource = fileURLToPath(new URL('../src/db/', import.meta.url));
  const hash = createHash('sha256');
  const files = readdirSync(dbSource, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) hash.update(`${relative(dbSource, file)}\0`).update(readFileSync(file));
  return `${new Date().toISOString().slice(0, 10).replaceAll('-', '')}_${hash.digest('hex').slice(0, 16)}`;
})();

/**
 * A SQLite file migrated to the latest schema, made once for every test process (a copy is a
 * migrated database): each test database starts as a copy instead of running every migration.
 */
async function sqliteTemplate(): Promise<string> {
  const template = join(tmpdir(), `folio-test-template-${schemaFingerprint}.db`);
  if (existsSync(template)) return template;
  const dir = mkdtempSync(join(tmpdir(), 'folio-template-'));
  try {
    const file = join(dir, 'folio.db');
    const db = openDatabase(file);
    try {
      await migrateToLatest(db);
    } finally {
      await db.close();
    }
    // Closed cleanly, the file holds everything: no write-ahead log is left beside it.
    if (existsSync(`${file}-wal`)) throw new Error(`a write-ahead log was left beside ${file}`);
    // Made whole under another name and renamed: a process never copies a template half-written.
    renameSync(file, template);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return template;
}

/**
 * A PostgreSQL database migrated to the latest schema and marked as a template (no connections
 * allowed), made once for every test process under an advisory lock; each test database is
 * created from it instead of running every migration. One left half-made (a process killed while
 * migrating it) is not marked, so the next process drops it and makes it again.
 */
async function postgresTemplate(admin: pg.Client): Promise<string> {
  const name = `folio_template_${schemaFingerprint}`;
  const isTemplate = async () =>
    (await admin.query('SELECT datistemplate FROM pg_database WHERE datname = $1', [name])).rows[0]
      ?.datistemplate as boolean | undefined;
  if ((await isTemplate()) === true) return name;
  await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
  try {
    const state = await isTemplate();
    if (state === true) return name;
    if (state === false) await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(postgresUrl!);
    url.pathname = `/${name}`;
    const db = openDatabase(url.toString(), { poolSize: 1 });
    try {
      await migrateToLatest(db);
    } finally {
      await db.close();
    }
    await admin.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    await dropOldTemplates(admin);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
  }
}

/** Templates of days before yesterday: no test process of today clones them. */
async function dropOldTemplates(admin: pg.Client): Promise<void> {
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname ~ '^folio_template_[0-9]{8}_[0-9a-f]{16}$'`,
  );
  for (const { datname } of rows) {
    if (datname.slice('folio_template_'.length, 'folio_template_'.length + 8) >= yesterday) continue;
    await admin.query(`ALTER DATABASE ${datname} WITH IS_TEMPLATE false`);
    await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  }
}

/**
 * A new database of the dialect: migrated (a copy of a migrated template) unless `migrate` is
 * false, which leaves it empty for a test that migrates it itself.
 */
export async function createTestDatabase(
  dialect: DialectName,
  { migrate = true }: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'folio-test-'));
    const url = join(dir, 'folio.db');
    if (migrate) copyFileSync(await sqliteTemplate(), url);
    const db = openDatabase(url);
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
  try {
    const template = migrate ? await postgresTemplate(admin) : null;
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresUrl!);
  url.pathname = `/${name}`;
  const db = openDatabase(url.toString(), { poolSize: 5 });
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

/**
 * The plan the database makes for a compiled query, as text. PostgreSQL reads a test's small tables
 * whole whatever their indexes: told not to, its plan shows which index applies.
 */
export async function queryPlan(
  db: Db,
  query: CompiledQuery,
  /** PostgreSQL plan methods also ruled out, besides seq scans (`sort`, `bitmapscan`, …). */
  avoid: readonly string[] = [],
): Promise<string> {
  return db.kysely.transaction().execute(async (trx) => {
    if (db.dialect === 'postgres') {
      for (const method of ['seqscan', ...avoid])
        await sql`set local ${sql.raw(`enable_${method}`)} = off`.execute(trx);
    }
    const explain = db.dialect === 'postgres' ? 'explain' : 'explain query plan';
    const { rows } = await trx.executeQuery<Record<string, string>>(
      Compiled.raw(`${explain} ${query.sql}`, [...query.parameters]),
    );
    return rows.map((row) => row['QUERY PLAN'] ?? row.detail).join('\n');
  });
}

/**
 * PostgreSQL: the plan of `query` run as a named prepared statement once PostgreSQL plans it
 * generically (from the sixth run on, unless a custom plan is cheaper by its estimates), as
 * preparedOnPostgres's statements are run: the parameters unknown, so a range of them is given a
 * default selectivity. Seq scans stay allowed, so that the plan is the one the data would get.
 */
export async function genericPlan(db: Db, query: CompiledQuery): Promise<string> {
  const rows = await explainGeneric(db, query, 'explain');
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

/** A node of a plan PostgreSQL gives as JSON (EXPLAIN (FORMAT JSON)), with the members read here. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  'Plan Rows': number;
  Plans?: PlanNode[];
}

/** PostgreSQL: genericPlan's plan as a tree (EXPLAIN (FORMAT JSON)). */
export async function genericPlanTree(db: Db, query: CompiledQuery): Promise<PlanNode> {
  const [row] = await explainGeneric(db, query, 'explain (format json)');
  return (row['QUERY PLAN'] as unknown as Array<{ Plan: PlanNode }>)[0].Plan;
}

async function explainGeneric(db: Db, query: CompiledQuery, explain: string) {
  return db.kysely.connection().execute(async (connection) => {
    await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
    try {
      await connection.executeQuery(Compiled.raw(`prepare folio_generic_plan as ${query.sql}`));
      const values = query.parameters.map(untypedLiteral).join(', ');
      const { rows } = await connection.executeQuery<Record<string, string>>(
        Compiled.raw(`${explain} execute folio_generic_plan${values === '' ? '' : `(${values})`}`),
      );
      return rows;
    } finally {
      // This statement alone: the connection may hold the pool's named statements.
      await sql`deallocate folio_generic_plan`.execute(connection).catch(() => {});
      await sql`reset plan_cache_mode`.execute(connection);
    }
  });
}

/** A parameter's value as an SQL literal of no type (an array in PostgreSQL's array syntax). */
function untypedLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Uint8Array) return `'\\x${Buffer.from(value).toString('hex')}'`;
  const text = Array.isArray(value) ? arrayLiteral(value) : String(value);
  return `'${text.replaceAll("'", "''")}'`;
}

/** Each article's ordinal (its place in the article sets), by slug. */
export async function articleOrdinals(db: Db, projectId: string): Promise<Record<string, number>> {
  const rows = await db.kysely
    .selectFrom('articles')
    .select(['slug', 'ordinal'])
    .where('project_id', '=', projectId)
    .execute();
  return Object.fromEntries(rows.map((row) => [row.slug, Number(row.ordinal)]));
}

/** The app listening on a port of its own: its base URL. */
export async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

/** A GET over HTTP with exactly these headers (fetch would add Accept-Encoding and decode the body). */
export function httpGet(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  rawPayload: Buffer;
}> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          statusCode: response.statusCode ?? 0,
          headers: response.headers,
          rawPayload: Buffer.concat(chunks),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** Polls until `check` holds (fails after `ms`); for state written in the background. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The ids of every page view stored, of any project: in page_view_rows (migration 0040) and in
 * page_views (an older release's, not moved yet).
 */
export async function storedPageViewIds(db: Db | Kysely<any>): Promise<string[]> {
  const executor = ('kysely' in db ? db.kysely : db) as Kysely<any>;
  const { rows } = await sql<
    Pick<PageViewRowTable, 'day' | 'created_ms' | 'rid' | 'id_text'>
  >`select cast(day as text) as day, created_ms, rid, id_text from page_view_rows`.execute(executor);
  const legacy = await sql<{ id: string }>`select id from page_views`.execute(executor);
  return [...rows.map((row) => pageViewIdOf(row)), ...legacy.rows.map((row) => row.id)];
}
