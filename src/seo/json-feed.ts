// The JSON Feed 1.1 (https://jsonfeed.org/version/1.1) of a project's newest published articles:
// the items of the RSS (feed-items.ts) in the same order, each with the RSS guid as its id written
// as an IRI. JSON Feed allows HTML only in `content_html`, so `summary` is plain text.
import type { Db } from '../db/database.ts';
import type { Project } from '../db/schema.ts';
import { type FeedItem, type FeedPerson, loadFeed, rfc3339 } from './feed-items.ts';
import type { FeedQueryType, JsonFeedView } from './schemas.ts';
import { scriptSafeJson } from './script-safe-json.ts';

type JsonFeedItem = JsonFeedView['items'][number];
type JsonFeedAuthor = JsonFeedItem['authors'][number];

/** The feed as JSON text, members in the order of the specification. */
export async function jsonFeed(db: Db, project: Project, params: FeedQueryType): Promise<string> {
  const feed = await loadFeed(db, project, params);
  const document: JsonFeedView = {
    version: 'https://jsonfeed.org/version/1.1',
    title: feed.title,
    home_page_url: feed.baseUrl,
    ...(feed.feedUrl === null ? {} : { feed_url: feed.feedUrl }),
    description: feed.description,
    // JSON Feed has one picture for a feed in a timeline: the project's logo.
    ...(feed.logo === null ? {} : { icon: feed.logo }),
    items: feed.items.map(jsonFeedItem),
  };
  // Script-safe like the JSON-LD (the same value once parsed): a front end may inline the feed.
  return scriptSafeJson(document);
}

function jsonFeedItem(item: FeedItem): JsonFeedItem {
  return {
    id: item.id,
    url: item.url,
    title: item.title,
    ...content(item),
    date_published: rfc3339(item.published),
    date_modified: rfc3339(item.updated),
    authors: item.authors.map(jsonFeedAuthor),
    ...(item.tags.length > 0 ? { tags: item.tags } : {}),
  };
}

/**
 * The whole article as content_html with the meta description as summary; for a members-only or
 * paid article no content_html. JSON Feed requires content_html or content_text on every item, so
 * there the public part stands as content_text and summary alike: the teaser as plain text, else
 * the meta description, never the members' part.
 */
function content(item: FeedItem): Pick<JsonFeedItem, 'content_html' | 'content_text' | 'summary'> {
  if (item.contentHtml !== null) return { content_html: item.contentHtml, summary: item.description };
  // A teaser of pictures alone has no text: the meta description stands instead.
  const teaser = item.teaser?.text ?? '';
  const summary = teaser === '' ? item.description : teaser;
  return { content_text: summary, summary };
}

function jsonFeedAuthor(author: FeedPerson): JsonFeedAuthor {
  const json: JsonFeedAuthor = { name: author.name };
  if (author.url !== undefined) json.url = author.url;
  if (author.image !== undefined) json.avatar = author.image;
  return json;
}
