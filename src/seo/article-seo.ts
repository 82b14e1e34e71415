// One article's SEO metadata (any status, for previews); the project's JSON-LD is in
// structured-data.ts.
import { reportedStatus } from '../content/article-status.ts';
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { NotFoundError } from '../errors.ts';
import { resolveBaseUrl } from './base-url.ts';
import { seoMetadata, seoSite } from './metadata.ts';
import { findArticleWithContent, findTagNamesOfArticles, type TagNameRow } from './queries.ts';

export function seoProject(project: Project) {
  return { name: project.name, slug: project.slug, description: project.description };
}

export async function getArticleSeo(
  db: Db,
  project: Project,
  slug: string,
  baseUrlParam: string | undefined,
  publishedOnly = false,
) {
  const baseUrl = resolveBaseUrl(baseUrlParam, project);
  const row = await findArticleWithContent(db.kysely, project.id, slug);
  // Previews of unpublished articles need a secret key: for a public key only published ones exist.
  const hidden =
    publishedOnly &&
    row !== undefined &&
    reportedStatus(row.status, row.published_at, new Date().toISOString()) !== 'published';
  if (row === undefined || hidden) throw new NotFoundError(`Article '${slug}' not found`);
  const tags = await findTagNamesOfArticles(db.kysely, [row.id]);
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    content: row.content,
    seo: seoMetadata(
      row,
      tags.map((tag) => tag.name),
      seoSite(baseUrl, project),
    ),
    project: seoProject(project),
  };
}

/** Article id → its tag names, in the order of the rows. */
export function tagNamesByArticle(rows: TagNameRow[]): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const row of rows) {
    const list = names.get(row.article_id);
    if (list === undefined) names.set(row.article_id, [row.name]);
    else list.push(row.name);
  }
  return names;
}
