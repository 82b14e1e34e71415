// What the three feeds (RSS 2.0, Atom 1.0, JSON Feed 1.1) are made of, read once: the project's
// newest published articles with their URL, feed id, dates, authors, tags and the HTML a reader
// may see. Each format only writes this model out, so that the feeds hold the same items in the
// same order, with the same ids and the same members-only rule.
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { ValidationError } from '../errors.ts';
import { findTagNamesByArticle, isRestricted, plainTextOf, teaserContent } from '../content/public.ts';
import { articleUrl, httpUrlProblem, resolveBaseUrl } from './base-url.ts';
import { feedItemId } from './feed-ids.ts';
import { feedHtml } from './feed-html.ts';
import {
  authorsOf,
  metaDescriptionOf,
  parseSeoOverrides,
  type SeoSite,
  seoSite,
  webLink,
} from './metadata.ts';
import { type ContentRow, findNewestPublished } from './queries.ts';
import { rssDefaults, type FeedQueryType } from './schemas.ts';

export interface FeedPerson {
  name: string;
  /** The author's page, absolute; absent when unknown or not a web link. */
  url?: string;
  /** The author's picture, absolute; absent when unknown or not a web link. */
  image?: string;
}

/**
 * What a reader who may not read the article sees of it: its teaser (the part before
 * `<!--members-only-->`) as sanitised HTML and as plain text, or null without a teaser.
 */
export interface FeedTeaser {
  html: string;
  text: string;
}

export interface FeedItem {
  /** The stored feed id, as the RSS writes it (the old feed's guid after a move, else the id). */
  guid: string;
  /** The guid as an IRI, the id of Atom and JSON Feed (see feed-ids.ts). */
  id: string;
  title: string;
  /** The article's URL: the base URL plus its own path, else the project's URL pattern. */
  url: string;
  /** `publishedAt`, else `updatedAt` (an article without a date), as stored (ISO 8601). */
  published: string;
  updated: string;
  /** The meta description (plain text), with the fallbacks of the article SEO endpoint. */
  description: string;
  /** The whole article as sanitised HTML; null for a members-only or paid article. */
  contentHtml: string | null;
  /** Only for a members-only or paid article with a teaser. */
  teaser: FeedTeaser | null;
  authors: FeedPerson[];
  tags: string[];
}

export interface FeedDocument {
  title: string;
  /** The project description, else its name (RSS needs a non-empty channel description). */
  description: string;
  baseUrl: string;
  /** Where the front end publishes the feed (`feedUrl`, normalised), else null. */
  feedUrl: string | null;
  /** The latest `updatedAt` or `publishedAt` of the items, else the project's `updatedAt`. */
  updated: string;
  /** The project's logo, absolute; null without one. */
  logo: string | null;
  items: FeedItem[];
}

/** The feed of a project: its newest published articles, newest first (`limit`, default 20). */
export async function loadFeed(db: Db, project: Project, params: FeedQueryType): Promise<FeedDocument> {
  const query = { ...rssDefaults, ...params };
  const baseUrl = resolveBaseUrl(query.baseUrl, project);
  const feedUrl = query.feedUrl === undefined ? null : feedUrlOf(query.feedUrl);
  const now = new Date().toISOString();
  const rows = await findNewestPublished(db.kysely, project.id, now, query.limit);
  const tagNames = await findTagNamesByArticle(
    db.kysely,
    rows.map((row) => row.id),
  );
  const site = seoSite(baseUrl, project);
  const host = new URL(baseUrl).hostname;
  return {
    title: project.name,
    description: project.description.trim() === '' ? project.name : project.description,
    baseUrl,
    feedUrl,
    updated: lastChange(rows) ?? project.updated_at,
    logo: site.publisher.logo?.url ?? null,
    items: rows.map((row) => feedItem(row, tagNames.get(row.id) ?? [], site, host)),
  };
}

function feedUrlOf(value: string): string {
  const problem = httpUrlProblem(value);
  if (problem !== null) throw new ValidationError([{ field: 'feedUrl', message: problem }]);
  return new URL(value.trim()).href;
}

/**
 * The feed changed last when one of its items did: derived from the items, not the clock, so that
 * the same content always makes the same document (and ETag).
 */
function lastChange(rows: ContentRow[]): string | null {
  let latest: string | null = null;
  for (const row of rows) {
    for (const moment of [row.updated_at, row.published_at]) {
      if (moment !== null && (latest === null || moment > latest)) latest = moment;
    }
  }
  return latest;
}

function feedItem(row: ContentRow, tags: string[], site: SeoSite, host: string): FeedItem {
  const url = articleUrl(site.baseUrl, site.settings, row);
  // The feed id the article was first stored with (its old feed's guid, after a move), so that no
  // reader sees an old item as new; rows from before it was kept have their id.
  const guid = nonBlank(row.guid) ?? row.id;
  const open = !isRestricted(row.visibility);
  return {
    guid,
    id: feedItemId(guid, host),
    title: row.title,
    url,
    published: row.published_at ?? row.updated_at,
    updated: row.updated_at,
    description: metaDescriptionOf(row, parseSeoOverrides(row.seo)),
    contentHtml: open ? feedHtml(row.content, url) : null,
    teaser: open ? null : teaserFor(row.content, url),
    authors: authorsOf(row).map((author) => person(author, site)),
    tags,
  };
}

/** The teaser of a members-only article; never the members' part. */
function teaserFor(content: string, url: string): FeedTeaser | null {
  const teaser = teaserContent(content);
  if (teaser.trim() === '') return null;
  return { html: feedHtml(teaser, url), text: plainTextOf(teaser).trim() };
}

function person(author: ReturnType<typeof authorsOf>[number], site: SeoSite): FeedPerson {
  const result: FeedPerson = { name: author.name };
  const url = webLink(author.url, site.directoryUrl);
  if (url !== undefined) result.url = url;
  const image = webLink(author.image, site.directoryUrl);
  if (image !== undefined) result.image = image;
  return result;
}

/** An ISO 8601 timestamp as RFC 3339 in UTC with milliseconds; an unparseable one unchanged. */
export function rfc3339(isoTimestamp: string): string {
  const date = new Date(isoTimestamp);
  return Number.isNaN(date.getTime()) ? isoTimestamp : date.toISOString();
}

function nonBlank(value: string | null): string | null {
  return value === null || value.trim() === '' ? null : value;
}
