// The sitemaps.org sitemap of a project's published articles, newest first, split into documents
// of at most `pageSize` URLs (50,000, the protocol's limit), as XML or in the JSON envelope.
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { articleUrl, resolveBaseUrl, urlSettingsOf } from './base-url.ts';
import { countPublishedArticles, findSitemapEntries } from './queries.ts';
import { type SitemapJsonView, sitemapDefaults, type SitemapQueryType } from './schemas.ts';
import { xmlDeclaration, xmlText } from './xml.ts';

/** The sitemaps.org protocol's limit of URLs per document. */
export const defaultSitemapPageSize = 50_000;

export interface SitemapPage {
  urls: Array<{ loc: string; lastmod: string }>;
  page: number;
  totalPages: number;
}

export async function sitemapPage(
  db: Db,
  project: Project,
  params: SitemapQueryType,
  pageSize: number,
): Promise<SitemapPage> {
  const query = { ...sitemapDefaults, ...params };
  const baseUrl = resolveBaseUrl(query.baseUrl, project);
  const now = new Date().toISOString();
  const counts = await countPublishedArticles(db.kysely, project.id, now);
  const offset = (query.page - 1) * pageSize;
  const entries =
    offset >= counts.total
      ? []
      : await findSitemapEntries(
          db.kysely,
          db.readOffThread,
          project.id,
          now,
          { offset, limit: pageSize },
          counts,
        );
  const settings = urlSettingsOf(project);
  // Every published article has a page, members-only and paid ones too (their teaser is public).
  return {
    urls: entries.map((entry) => ({
      loc: articleUrl(baseUrl, settings, entry),
      lastmod: entry.updated_at,
    })),
    page: query.page,
    totalPages: Math.ceil(counts.total / pageSize),
  };
}

export function sitemapJson(page: SitemapPage): SitemapJsonView {
  return { data: { urls: page.urls }, meta: { page: page.page, totalPages: page.totalPages } };
}

export function sitemapXml(page: SitemapPage): string {
  const parts: string[] = [xmlDeclaration, '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'];
  for (const url of page.urls) {
    // `lastmod` is ISO 8601 with milliseconds and Z, which W3C datetime allows.
    parts.push('<url><loc>', xmlText(url.loc), '</loc><lastmod>', xmlText(url.lastmod), '</lastmod></url>\n');
  }
  parts.push('</urlset>\n');
  return parts.join('');
}
