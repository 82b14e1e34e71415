// The Atom 1.0 feed (RFC 4287) of a project's newest published articles: the items of the RSS
// (feed-items.ts) in the same order, each with the RSS guid as its id written as an IRI.
// A members-only or paid entry has a summary (its teaser, else its meta description) and no
// content, as its RSS item has no content:encoded.
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { type FeedItem, type FeedPerson, loadFeed, rfc3339 } from './feed-items.ts';
import { generator } from './rss.ts';
import type { FeedQueryType } from './schemas.ts';
import { xmlAttribute, xmlDeclaration, xmlText } from './xml.ts';

export async function atomFeed(db: Db, project: Project, params: FeedQueryType): Promise<string> {
  const feed = await loadFeed(db, project, params);
  const parts: string[] = [
    xmlDeclaration,
    '<feed xmlns="http://www.w3.org/2005/Atom">\n',
    // The site is what the feed is about, and it stays when the feed moves: its id is the base URL.
    `<id>${xmlText(feed.baseUrl)}</id>\n`,
    `<title type="text">${xmlText(feed.title)}</title>\n`,
    `<subtitle type="text">${xmlText(feed.description)}</subtitle>\n`,
    `<link rel="alternate" type="text/html" href="${xmlAttribute(feed.baseUrl)}"/>\n`,
  ];
  if (feed.feedUrl !== null) {
    parts.push(`<link rel="self" type="application/atom+xml" href="${xmlAttribute(feed.feedUrl)}"/>\n`);
  }
  parts.push(`<updated>${rfc3339(feed.updated)}</updated>\n`, `<generator>${generator}</generator>\n`);
  if (feed.logo !== null) {
    // One picture is all a project has: readers take the icon for their lists, the logo for headers.
    parts.push(`<icon>${xmlText(feed.logo)}</icon>\n`, `<logo>${xmlText(feed.logo)}</logo>\n`);
  }
  for (const item of feed.items) parts.push(atomEntry(item));
  parts.push('</feed>\n');
  return parts.join('');
}

function atomEntry(item: FeedItem): string {
  const parts = [
    '<entry>\n',
    `<id>${xmlText(item.id)}</id>\n`,
    `<title type="text">${xmlText(item.title)}</title>\n`,
    `<link rel="alternate" type="text/html" href="${xmlAttribute(item.url)}"/>\n`,
    `<published>${rfc3339(item.published)}</published>\n`,
    `<updated>${rfc3339(item.updated)}</updated>\n`,
  ];
  for (const author of item.authors) parts.push(atomAuthor(author));
  for (const name of item.tags) parts.push(`<category term="${xmlAttribute(name)}"/>\n`);
  if (item.contentHtml !== null) {
    parts.push(
      `<summary type="text">${xmlText(item.description)}</summary>\n`,
      `<content type="html">${xmlText(item.contentHtml)}</content>\n`,
    );
  } else if (item.teaser !== null) {
    parts.push(`<summary type="html">${xmlText(item.teaser.html)}</summary>\n`);
  } else {
    parts.push(`<summary type="text">${xmlText(item.description)}</summary>\n`);
  }
  parts.push('</entry>\n');
  return parts.join('');
}

function atomAuthor(author: FeedPerson): string {
  const uri = author.url === undefined ? '' : `<uri>${xmlText(author.url)}</uri>`;
  return `<author><name>${xmlText(author.name)}</name>${uri}</author>\n`;
}
