// Projects and their API keys: creation with validation, listing, revocation, and the project
// information the API reports.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { ApiKeyTable, KeyScope, Project } from '../db/schema.ts';
import { type FieldIssue, NotFoundError, ValidationError } from '../errors.ts';
import { generateKey, hashKey, type KeyKind, keyPrefix, keyScopes, parseScopes } from './keys.ts';
import * as queries from './queries.ts';
import { formatBytes, parseSize } from './size.ts';
import { DEFAULT_TIME_ZONE, DEFAULT_URL_PATTERN, isTimeZone, urlPatternProblem } from './url-settings.ts';

export const defaultStorageLimit = '500 MB';
const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The author given to articles that name none. */
export interface DefaultAuthor {
  name: string;
  image: string | null;
}

/** A project's site settings; absent: unchanged (or the default), null: cleared. */
export interface ProjectSettings {
  siteUrl?: string | null;
  logoUrl?: string | null;
  /** Article paths: tokens :slug, :year, :month, :day, :section; null: the default `/:slug`. */
  urlPattern?: string | null;
  /** IANA name in which the pattern's dates are read; null: the default `UTC`. */
  timeZone?: string | null;
  defaultAuthor?: DefaultAuthor | null;
}

export interface NewProject extends ProjectSettings {
  name: string;
  slug: string;
  description?: string;
  storageLimit?: string;
}

export interface ProjectChanges extends ProjectSettings {
  name?: string;
  description?: string;
  /** How many revisions each article keeps (0 to 1000); the oldest beyond are deleted at its next change. */
  revisionsKept?: number;
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export async function createProject(db: Db, input: NewProject): Promise<Project> {
  const issues: FieldIssue[] = [];
  const name = input.name?.trim() ?? '';
  if (name === '' || name.length > 200)
    issues.push({ field: 'name', message: 'must be 1 to 200 characters' });
  if (!slugPattern.test(input.slug ?? '') || input.slug.length > 100) {
    issues.push({
      field: 'slug',
      message: 'must be lower-case letters, digits and single hyphens, at most 100',
    });
  }
  issues.push(...settingsIssues(input));
  const storageLimit = parseSize(input.storageLimit ?? defaultStorageLimit);
  if (storageLimit === null || storageLimit <= 0) {
    issues.push({
      field: 'storageLimit',
      message: "must be a size such as '500 MB' (units B, KB, MB, GB, TB)",
    });
  }
  if (issues.length === 0 && (await queries.findProjectBySlug(db.kysely, input.slug))) {
    issues.push({ field: 'slug', message: `a project with slug '${input.slug}' already exists` });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const now = new Date().toISOString();
  const project: Project = {
    id: randomUUID(),
    name,
    slug: input.slug,
    description: input.description?.trim() ?? '',
    site_url: input.siteUrl ?? null,
    logo_url: input.logoUrl ?? null,
    url_pattern: input.urlPattern ?? DEFAULT_URL_PATTERN,
    time_zone: input.timeZone ?? DEFAULT_TIME_ZONE,
    default_author: input.defaultAuthor ? JSON.stringify(input.defaultAuthor) : null,
    storage_limit_bytes: storageLimit!,
    revisions_kept: 50,
    content_version: 0,
    order_version: 0,
    created_at: now,
    updated_at: now,
  };
  await queries.insertProject(db.kysely, project);
  return project;
}

/** The problems of the settings given (absent and null ones are fine), one issue per field. */
export function settingsIssues(input: ProjectSettings): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const [field, value] of [
    ['siteUrl', input.siteUrl],
    ['logoUrl', input.logoUrl],
  ] as const) {
    if (value != null && !isHttpUrl(value))
      issues.push({ field, message: 'must be an absolute http(s) URL' });
  }
  const patternProblem = input.urlPattern == null ? null : urlPatternProblem(input.urlPattern);
  if (patternProblem !== null)
    issues.push({
      field: 'urlPattern',
      message: `${patternProblem} (e.g. /posts/:slug/ or /:year/:month/:slug/)`,
    });
  if (input.timeZone != null && !isTimeZone(input.timeZone))
    issues.push({ field: 'timeZone', message: 'must be an IANA time zone such as Europe/Lisbon or UTC' });
  const author = input.defaultAuthor;
  if (author != null) {
    if (author.name.trim() === '' || author.name.length > 200)
      issues.push({ field: 'defaultAuthor', message: 'name must be 1 to 200 characters' });
    // An author picture may be a path of the site (`/images/rosa.jpg`), as the importers keep them.
    if (author.image !== null && !isHttpUrl(author.image) && !author.image.startsWith('/'))
      issues.push({
        field: 'defaultAuthor',
        message: 'image must be an absolute http(s) URL or a path starting with /',
      });
  }
  return issues;
}

/** The project's default author, or null. */
export function defaultAuthorOf(project: Pick<Project, 'default_author'>): DefaultAuthor | null {
  return project.default_author === null ? null : (JSON.parse(project.default_author) as DefaultAuthor);
}

/**
 * Changes the given fields of a project (absent ones stay; null clears a setting or restores its
 * default) and marks its answers changed: article URLs and authors depend on these settings.
 */
export async function updateProject(db: Db, slug: string, changes: ProjectChanges): Promise<Project> {
  const issues = settingsIssues(changes);
  const name = changes.name?.trim();
  if (name !== undefined && (name === '' || name.length > 200))
    issues.push({ field: 'name', message: 'must be 1 to 200 characters' });
  const kept = changes.revisionsKept;
  if (kept !== undefined && !(Number.isInteger(kept) && kept >= 0 && kept <= 1000))
    issues.push({ field: 'revisionsKept', message: 'must be a whole number from 0 to 1000' });
  if (issues.length > 0) throw new ValidationError(issues);
  const project = await requireProject(db, slug);
  const row: Partial<Project> = {};
  if (name !== undefined) row.name = name;
  if (changes.description !== undefined) row.description = changes.description.trim();
  if (changes.siteUrl !== undefined) row.site_url = changes.siteUrl;
  if (changes.logoUrl !== undefined) row.logo_url = changes.logoUrl;
  if (changes.urlPattern !== undefined) row.url_pattern = changes.urlPattern ?? DEFAULT_URL_PATTERN;
  if (changes.timeZone !== undefined) row.time_zone = changes.timeZone ?? DEFAULT_TIME_ZONE;
  if (changes.defaultAuthor !== undefined)
    row.default_author = changes.defaultAuthor === null ? null : JSON.stringify(changes.defaultAuthor);
  if (kept !== undefined) row.revisions_kept = kept;
  if (Object.keys(row).length === 0) return project;
  await queries.updateProjectRow(db.kysely, project.id, { ...row, updated_at: new Date().toISOString() });
  return (await queries.findProjectBySlug(db.kysely, slug))!;
}

/** What deleting a project removes. */
export interface ProjectContents {
  articles: number;
  tags: number;
  keys: number;
  pageViews: number;
}

export async function projectContents(db: Db, slug: string): Promise<ProjectContents> {
  const project = await requireProject(db, slug);
  return queries.countProjectContents(db.kysely, project.id);
}

/** Deletes a project and everything of it (articles, tags, keys, page views, rollups); returns what was there. */
export async function deleteProject(db: Db, slug: string): Promise<ProjectContents> {
  return db.kysely.transaction().execute(async (trx) => {
    const project = await queries.findProjectBySlug(trx, slug);
    if (!project) throw new NotFoundError(`Project '${slug}' not found`);
    const contents = await queries.countProjectContents(trx, project.id);
    await queries.deleteProjectRows(trx, project.id);
    return contents;
  });
}

export async function requireProject(db: Db, slug: string): Promise<Project> {
  const project = await queries.findProjectBySlug(db.kysely, slug);
  if (!project) throw new NotFoundError(`Project '${slug}' not found`);
  return project;
}

export interface NewKey {
  kind?: KeyKind;
  name?: string;
  rateLimit?: number | null;
  origins?: string[];
  /** A secret key's scopes; default `read` and `analytics`. */
  scopes?: string[];
  /** A key for tests: headless browsers count, its views are marked and counted nowhere by default. */
  test?: boolean;
}

export interface CreatedKey {
  key: string;
  row: ApiKeyTable;
}

export async function createApiKey(db: Db, projectSlug: string, input: NewKey): Promise<CreatedKey> {
  const issues: FieldIssue[] = [];
  const kind = input.kind ?? 'secret';
  if (kind !== 'secret' && kind !== 'public')
    issues.push({ field: 'kind', message: 'must be secret or public' });
  if (
    input.rateLimit != null &&
    (!Number.isInteger(input.rateLimit) || input.rateLimit < 1 || input.rateLimit > 1_000_000)
  ) {
    issues.push({
      field: 'rateLimit',
      message: 'must be an integer from 1 to 1000000 (requests per minute)',
    });
  }
  const origins = (input.origins ?? []).map((origin) => normalizeOrigin(origin));
  origins.forEach((origin, index) => {
    if (origin === null) {
      issues.push({
        field: 'origin',
        message: `'${input.origins![index]}' is not an http(s) origin such as https://blog.example.com`,
      });
    }
  });
  const scopes = input.scopes ?? ['read', 'analytics'];
  for (const scope of scopes) {
    if (!keyScopes.includes(scope as KeyScope))
      issues.push({ field: 'scope', message: `'${scope}' is not a scope: use ${keyScopes.join(', ')}` });
  }
  if (input.scopes !== undefined && scopes.length === 0)
    issues.push({ field: 'scope', message: `give at least one of ${keyScopes.join(', ')}` });
  if (input.scopes !== undefined && kind !== 'secret')
    issues.push({ field: 'scope', message: 'scopes apply to secret keys only' });
  if (origins.length > 0 && kind !== 'public') {
    issues.push({ field: 'origin', message: 'allowed origins apply to public keys only' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  const project = await requireProject(db, projectSlug);
  const key = generateKey(kind);
  const row: ApiKeyTable = {
    id: `key_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    project_id: project.id,
    kind,
    name: input.name?.trim() || `${kind} key`,
    prefix: keyPrefix(key),
    key_hash: hashKey(key),
    rate_limit: input.rateLimit ?? null,
    allowed_origins: origins.length > 0 ? JSON.stringify(origins) : null,
    scopes: JSON.stringify(keyScopes.filter((scope) => scopes.includes(scope))),
    test: input.test === true ? 1 : 0,
    created_at: new Date().toISOString(),
    last_used_at: null,
    revoked_at: null,
  };
  await queries.insertApiKey(db.kysely, row);
  return { key, row };
}

/** `https://Blog.example.com/` → `https://blog.example.com`; null when not an http(s) origin. */
export function normalizeOrigin(value: string): string | null {
  if (!isHttpUrl(value)) return null;
  const url = new URL(value);
  if (url.pathname !== '/' || url.search || url.hash || url.username) return null;
  return url.origin;
}

export async function revokeApiKey(db: Db, id: string): Promise<ApiKeyTable> {
  const key = await queries.findApiKeyById(db.kysely, id);
  if (!key) throw new NotFoundError(`API key '${id}' not found`);
  if (key.revoked_at === null) await queries.revokeApiKey(db.kysely, id, new Date().toISOString());
  return (await queries.findApiKeyById(db.kysely, id))!;
}

export function keyView(row: ApiKeyTable) {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    prefix: row.prefix,
    rateLimit: row.rate_limit,
    origins: row.allowed_origins ? (JSON.parse(row.allowed_origins) as string[]) : [],
    /** A secret key's scopes; null for a public key, which has none. */
    scopes: row.kind === 'secret' ? parseScopes(row.scopes) : null,
    test: row.test === 1,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export function projectView(row: Project) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    siteUrl: row.site_url,
    logoUrl: row.logo_url,
    urlPattern: row.url_pattern,
    timeZone: row.time_zone,
    defaultAuthor: defaultAuthorOf(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface ProjectCounts {
  totalArticles: number;
  publishedArticles: number;
  totalViews: number;
  /** The views of the articles published now: all a public key may see. */
  publishedViews: number;
  storageUsedBytes: number;
}

/**
 * A project's article counts at `now`. Content's to count (what is published is its rule): app.ts
 * passes the function in. It reads through the handle, off the event loop where it can (a
 * project of 100,000 articles takes SQLite 0.5 to 1.7 s to count).
 */
export type CountArticles = (db: Db, projectId: string, now: string) => Promise<ProjectCounts>;

/**
 * For a public key only published articles exist: its statistics count them alone, and storage
 * figures, which measure drafts too and concern only the project's owners, are left out.
 */
export async function projectInfo(
  db: Db,
  project: Project,
  countArticles: CountArticles,
  publishedOnly = false,
) {
  const counts = await countArticles(db, project.id, new Date().toISOString());
  if (publishedOnly) {
    return {
      project: projectView(project),
      stats: {
        totalArticles: counts.publishedArticles,
        publishedArticles: counts.publishedArticles,
        totalViews: counts.publishedViews,
      },
    };
  }
  return {
    project: projectView(project),
    stats: {
      totalArticles: counts.totalArticles,
      publishedArticles: counts.publishedArticles,
      totalViews: counts.totalViews,
      storageUsed: formatBytes(counts.storageUsedBytes),
      storageLimit: formatBytes(Number(project.storage_limit_bytes)),
    },
  };
}
