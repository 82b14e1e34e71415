// One article's SEO metadata (any status, for previews); the project's JSON-LD is in
// structured-data.ts.
import {
  findTagNamesByArticle,
  isRestricted,
  previewedArticleId,
  reportedStatus,
  teaserContent,
} from '../content/public.ts';
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { NotFoundError } from '../errors.ts';
import { resolveBaseUrl } from './base-url.ts';
import { seoMetadata, seoSite } from './metadata.ts';
import { findArticleWithContent } from './queries.ts';

export function seoProject(project: Project) {
  return { name: project.name, slug: project.slug, description: project.description };
}

/**
 * `publishedOnly` is a public key's read: only published articles exist, and a members-only or
 * paid article's content is its teaser, except the article of a valid `preview` token. Its metadata is the same for every key kind (a secret key
 * renders the same public page with it), so that a description never carries the members' part.
 */
export async function getArticleSeo(
  db: Db,
  project: Project,
  slug: string,
  baseUrlParam: string | undefined,
  publishedOnly = false,
  preview?: string,
) {
  const baseUrl = resolveBaseUrl(baseUrlParam, project);
  // A valid preview token reads its own article as a secret key would (any status, in full).
  const previewed = preview === undefined ? null : await previewedArticleId(db, project, preview);
  const stored = await findArticleWithContent(db.kysely, project.id, slug);
  const readsAll = !publishedOnly || (stored !== undefined && stored.id === previewed);
  // For a public key without a preview of it, only published articles exist.
  const hidden =
    !readsAll &&
    stored !== undefined &&
    reportedStatus(stored.status, stored.published_at, new Date().toISOString()) !== 'published';
  if (stored === undefined || hidden) throw new NotFoundError(`Article '${slug}' not found`);
  const row = stored;
  const tagNames = await findTagNamesByArticle(db.kysely, [row.id]);
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    content: !readsAll && isRestricted(row.visibility) ? teaserContent(row.content) : row.content,
    seo: seoMetadata(row, tagNames.get(row.id) ?? [], seoSite(baseUrl, project)),
    project: seoProject(project),
  };
}
