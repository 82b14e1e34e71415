// The RSS 2.0 feed of a project's newest published articles, with the content, dc and atom
// namespaces: full HTML in content:encoded, the authors in dc:creator, one category per tag.
// Feeds are public whatever key reads them: a members-only or paid item has its teaser and no
// content:encoded. The items come from feed-items.ts, shared with Atom and JSON Feed.
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { type FeedItem, loadFeed } from './feed-items.ts';
import type { FeedQueryType } from './schemas.ts';
import { xmlAttribute, xmlDeclaration, xmlText } from './xml.ts';

export const generator = 'Folio';

/** RFC 822 date-time (with a four-digit year, as RFC 1123 and RSS 2.0 expect): `Thu, 01 Jan 2026 00:00:00 GMT`. */
export function rfc822(isoTimestamp: string): string {
  return new Date(isoTimestamp).toUTCString();
}

export async function rssFeed(db: Db, project: Project, params: FeedQueryType): Promise<string> {
  const feed = await loadFeed(db, project, params);
  const parts: string[] = [
    xmlDeclaration,
    '<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">\n',
    '<channel>\n',
    `<title>${xmlText(feed.title)}</title>\n`,
    `<link>${xmlText(feed.baseUrl)}</link>\n`,
    `<description>${xmlText(feed.description)}</description>\n`,
  ];
  if (feed.feedUrl !== null) {
    parts.push(`<atom:link href="${xmlAttribute(feed.feedUrl)}" rel="self" type="application/rss+xml"/>\n`);
  }
  parts.push(
    `<lastBuildDate>${rfc822(feed.updated)}</lastBuildDate>\n`,
    `<generator>${generator}</generator>\n`,
  );
  for (const item of feed.items) parts.push(rssItem(item));
  parts.push('</channel>\n</rss>\n');
  return parts.join('');
}

function rssItem(item: FeedItem): string {
  const parts = [
    '<item>\n',
    `<title>${xmlText(item.title)}</title>\n`,
    `<link>${xmlText(item.url)}</link>\n`,
    `<guid isPermaLink="false">${xmlText(item.guid)}</guid>\n`,
    `<pubDate>${rfc822(item.published)}</pubDate>\n`,
  ];
  if (item.contentHtml !== null) {
    parts.push(
      `<description>${xmlText(item.description)}</description>\n`,
      `<content:encoded>${xmlText(item.contentHtml)}</content:encoded>\n`,
    );
  } else {
    // The teaser as HTML; without one, the meta description, which is public (excerpt or SEO
    // field, else the teaser's empty summary): never the members' part.
    parts.push(`<description>${xmlText(item.teaser?.html ?? item.description)}</description>\n`);
  }
  for (const author of item.authors) parts.push(`<dc:creator>${xmlText(author.name)}</dc:creator>\n`);
  for (const name of item.tags) parts.push(`<category>${xmlText(name)}</category>\n`);
  parts.push('</item>\n');
  return parts.join('');
}
