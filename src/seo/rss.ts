// The RSS 2.0 feed of a project's newest published articles, with the content, dc and atom
// namespaces: full HTML in content:encoded, the author in dc:creator, one category per tag.
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { ValidationError } from '../errors.ts';
import { findTagNamesByArticle } from '../content/public.ts';
import { articleUrl, httpUrlProblem, resolveBaseUrl } from './base-url.ts';
import { feedHtml } from './feed-html.ts';
import { metaDescriptionOf, parseSeoOverrides } from './metadata.ts';
import { findNewestPublished } from './queries.ts';
import { rssDefaults, type RssQueryType } from './schemas.ts';
import { xmlAttribute, xmlDeclaration, xmlText } from './xml.ts';

export const generator = 'Folio';

/** RFC 822 date-time (with a four-digit year, as RFC 1123 and RSS 2.0 expect): `Thu, 01 Jan 2026 00:00:00 GMT`. */
export function rfc822(isoTimestamp: string): string {
  return new Date(isoTimestamp).toUTCString();
}

export async function rssFeed(db: Db, project: Project, params: RssQueryType): Promise<string> {
  const query = { ...rssDefaults, ...params };
  const baseUrl = resolveBaseUrl(query.baseUrl, project);
  if (query.feedUrl !== undefined) {
    const problem = httpUrlProblem(query.feedUrl);
    if (problem !== null) {
      throw new ValidationError([{ field: 'feedUrl', message: problem }]);
    }
  }
  const now = new Date().toISOString();
  const rows = await findNewestPublished(db.kysely, project.id, now, query.limit);
  const tagNames = await findTagNamesByArticle(
    db.kysely,
    rows.map((row) => row.id),
  );

  // The channel changed last when one of its items did: derived from the items, not the clock, so
  // that the same content always makes the same document (and ETag).
  let lastChange: string | null = null;
  for (const row of rows) {
    for (const moment of [row.updated_at, row.published_at]) {
      if (moment !== null && (lastChange === null || moment > lastChange)) lastChange = moment;
    }
  }
  const description = project.description.trim() === '' ? project.name : project.description;
  const parts: string[] = [
    xmlDeclaration,
    '<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">\n',
    '<channel>\n',
    `<title>${xmlText(project.name)}</title>\n`,
    `<link>${xmlText(baseUrl)}</link>\n`,
    `<description>${xmlText(description)}</description>\n`,
  ];
  if (query.feedUrl !== undefined) {
    parts.push(
      `<atom:link href="${xmlAttribute(new URL(query.feedUrl.trim()).href)}" rel="self" type="application/rss+xml"/>\n`,
    );
  }
  parts.push(
    `<lastBuildDate>${rfc822(lastChange ?? project.updated_at)}</lastBuildDate>\n`,
    `<generator>${generator}</generator>\n`,
  );
  for (const row of rows) {
    const url = articleUrl(baseUrl, row.slug);
    parts.push(
      '<item>\n',
      `<title>${xmlText(row.title)}</title>\n`,
      `<link>${xmlText(url)}</link>\n`,
      `<guid isPermaLink="false">${xmlText(row.id)}</guid>\n`,
      `<pubDate>${rfc822(row.published_at ?? row.updated_at)}</pubDate>\n`,
      `<description>${xmlText(metaDescriptionOf(row, parseSeoOverrides(row.seo)))}</description>\n`,
      `<content:encoded>${xmlText(feedHtml(row.content, url))}</content:encoded>\n`,
      `<dc:creator>${xmlText(row.author_name)}</dc:creator>\n`,
    );
    for (const name of tagNames.get(row.id) ?? []) parts.push(`<category>${xmlText(name)}</category>\n`);
    parts.push('</item>\n');
  }
  parts.push('</channel>\n</rss>\n');
  return parts.join('');
}
