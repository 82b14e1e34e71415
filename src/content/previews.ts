// Draft previews: a signed, expiring, revocable token that lets a public key read one article in
// whatever status (for a writer's reviewer, from a browser). Creating, listing and revoking them;
// checking a token presented on a read.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { PreviewTable, Project } from '../db/schema.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.ts';
import { articleUrl, usableUrlSettings } from './article-url.ts';
import {
  findArticleSlug,
  findPreview,
  findPreviewArticle,
  findPreviews,
  insertPreview,
  markPreviewRevoked,
  type PreviewListRow,
  storedServerSecret,
} from './preview-queries.ts';
import { isPreviewId, parseExpiresIn, signToken, verifyToken } from './preview-tokens.ts';

const secrets = new WeakMap<Db, Promise<Buffer>>();

/** The preview signing secret of the database, read once per handle (it never changes). */
function previewSecret(db: Db): Promise<Buffer> {
  let secret = secrets.get(db);
  if (secret === undefined) {
    secret = storedServerSecret(
      db.kysely,
      'preview',
      randomBytes(32).toString('base64url'),
      new Date().toISOString(),
    ).then((value) => Buffer.from(value, 'base64url'));
    // A failed read (database down) is asked again by the next request.
    secret.catch(() => secrets.delete(db));
    secrets.set(db, secret);
  }
  return secret;
}

export interface PreviewView {
  id: string;
  articleSlug: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  status: 'active' | 'expired' | 'revoked';
}

function previewView(row: PreviewTable, slug: string, now: string): PreviewView {
  return {
    id: row.id,
    articleSlug: slug,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    status: row.revoked_at !== null ? 'revoked' : row.expires_at <= now ? 'expired' : 'active',
  };
}

async function requireArticle(db: Db, project: Project, slug: string) {
  const article = await findPreviewArticle(db.kysely, project.id, slug);
  if (article === undefined) throw new NotFoundError(`Article '${slug}' not found`);
  return article;
}

/**
 * A new preview of the article and its token (shown only now: it is not stored), with the
 * article's URL carrying it when the project has a site URL. `now` (epoch milliseconds) is the
 * clock: tests make tokens that have already expired.
 */
export async function createPreview(
  db: Db,
  project: Project,
  slug: string,
  body: { expiresIn?: string | number } | undefined,
  now = Date.now(),
): Promise<PreviewView & { token: string; url?: string }> {
  const unknown = Object.keys(body ?? {}).filter((name) => name !== 'expiresIn');
  const seconds = parseExpiresIn(body?.expiresIn);
  const issues = unknown.map((field) => ({
    field,
    message: 'is not a known field; known fields: expiresIn',
  }));
  if (typeof seconds !== 'number') issues.push(seconds);
  if (issues.length > 0) throw new ValidationError(issues);
  const article = await requireArticle(db, project, slug);
  const secret = await previewSecret(db);
  // Whole seconds: the token carries its expiry as epoch seconds.
  const expires = Math.floor(now / 1000) + (seconds as number);
  const row: PreviewTable = {
    id: `pv_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
    project_id: project.id,
    article_id: article.id,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(expires * 1000).toISOString(),
    revoked_at: null,
  };
  await insertPreview(db.kysely, row);
  const token = signToken(secret, { id: row.id, expires });
  const view = { ...previewView(row, article.slug, new Date(now).toISOString()), token };
  if (project.site_url === null) return view;
  const base = project.site_url.replace(/\/+$/, '');
  const url = new URL(articleUrl(base, usableUrlSettings(project), article));
  url.searchParams.set('preview', token);
  return { ...view, url: url.href };
}

/** The project's previews, of one article when `slug` is given (404 when it has no such article). */
export async function listPreviews(db: Db, project: Project, slug?: string): Promise<PreviewView[]> {
  const articleId = slug === undefined ? null : (await requireArticle(db, project, slug)).id;
  const rows = await findPreviews(db.kysely, project.id, articleId);
  const now = new Date().toISOString();
  return rows.map((row: PreviewListRow) => previewView(row, row.slug, now));
}

/**
 * Revokes a preview of the project (of any project when `project` is null: the CLI); revoking
 * one already revoked changes nothing. 404 for an id the project has not.
 */
export async function revokePreview(db: Db, project: Project | null, id: string): Promise<PreviewView> {
  const found = isPreviewId(id) ? await findPreview(db.kysely, id) : undefined;
  if (found === undefined || (project !== null && found.project_id !== project.id))
    throw new NotFoundError(`Preview '${id.slice(0, 100)}' not found`);
  await markPreviewRevoked(db.kysely, id, new Date().toISOString());
  const row = (await findPreview(db.kysely, id))!;
  // An article deleted since keeps its previews, which read nothing: their slug is then ''.
  const slug = (await findArticleSlug(db.kysely, row.article_id)) ?? '';
  return previewView(row, slug, new Date().toISOString());
}

function refused(reason: 'invalid' | 'expired' | 'revoked'): ForbiddenError {
  const messages = {
    invalid: 'preview: not a valid preview token of this project',
    expired: 'preview: the preview token has expired',
    revoked: 'preview: the preview token was revoked',
  };
  return new ForbiddenError(messages[reason], { field: 'preview', reason });
}

/**
 * The id of the article a preview token reads, if the token is valid for the project: signed by
 * this server, not expired, not revoked. Anything else is a 403 naming `preview`, with `reason`
 * `invalid`, `expired` or `revoked`. Revocation is read from the database on every use (one
 * primary-key lookup), so it holds at once on every instance.
 */
export async function previewedArticleId(db: Db, project: Project, token: string): Promise<string> {
  const claims = verifyToken(await previewSecret(db), token);
  if (claims === null) throw refused('invalid');
  const now = Date.now();
  if (claims.expires * 1000 <= now) throw refused('expired');
  const row = await findPreview(db.kysely, claims.id);
  if (row === undefined || row.project_id !== project.id) throw refused('invalid');
  if (row.revoked_at !== null) throw refused('revoked');
  if (Date.parse(row.expires_at) <= now) throw refused('expired');
  return row.article_id;
}
