// The RSS 2.0 feed of a project's newest published articles, with the content, dc and atom
// namespaces: full HTML in content:encoded, the authors in dc:creator, one category per tag.
// Feeds are public whatever key reads them: a members-only or paid item has its teaser and no
// content:encoded (contract §13).
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { ValidationError } from '../errors.ts';
import { findTagNamesByArticle } from '../content/public.ts';
import { articleUrl, httpUrlProblem, resolveBaseUrl, urlSettingsOf } from './base-url.ts';
import { feedHtml } from './feed-html.ts';
import { authorsOf, metaDescriptionOf, parseSeoOverrides } from './metadata.ts';
import { type ContentRow, findNewestPublished } from './queries.ts';
import { rssDefaults, type RssQueryType } from './schemas.ts';
import { isPublic, teaserOf } from './visibility.ts';
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
  const settings = urlSettingsOf(project);
  for (const row of rows) {
    parts.push(rssItem(row, articleUrl(baseUrl, settings, row), tagNames.get(row.id) ?? []));
  }
  parts.push('</channel>\n</rss>\n');
  return parts.join('');
}

function rssItem(row: ContentRow, url: string, tagNames: string[]): string {
  const parts = [
    '<item>\n',
    `<title>${xmlText(row.title)}</title>\n`,
    `<link>${xmlText(url)}</link>\n`,
    // The feed id the article was first stored with (its old feed's guid, after a move), so that
    // no reader sees an old item as new; rows from before it was kept have their id.
    `<guid isPermaLink="false">${xmlText(nonBlank(row.guid) ?? row.id)}</guid>\n`,
    `<pubDate>${rfc822(row.published_at ?? row.updated_at)}</pubDate>\n`,
  ];
  const metaDescription = metaDescriptionOf(row, parseSeoOverrides(row.seo));
  if (isPublic(row)) {
    parts.push(
      `<description>${xmlText(metaDescription)}</description>\n`,
      `<content:encoded>${xmlText(feedHtml(row.content, url))}</content:encoded>\n`,
    );
  } else {
    // The teaser as HTML; without one, the meta description, which is public (excerpt or SEO
    // field, else the teaser's empty summary): never the members' part.
    const teaser = teaserOf(row.content);
    const description = teaser.trim() === '' ? metaDescription : feedHtml(teaser, url);
    parts.push(`<description>${xmlText(description)}</description>\n`);
  }
  for (const author of authorsOf(row)) parts.push(`<dc:creator>${xmlText(author.name)}</dc:creator>\n`);
  for (const name of tagNames) parts.push(`<category>${xmlText(name)}</category>\n`);
  parts.push('</item>\n');
  return parts.join('');
}

function nonBlank(value: string | null): string | null {
  return value === null || value.trim() === '' ? null : value;
}
