// Per-article SEO metadata and schema.org JSON-LD, each value with its fallbacks:
// overrides from the article's `seo` front matter first, then the article's own fields.
// Links use the article's own URL, and its images resolve against it.
import { isRestricted, isWebLink, summarize } from '../content/public.ts';
import type { Project } from '../db/schema.ts';
import { absoluteUrl, articleUrl, type UrlSettings, urlSettingsOf } from './base-url.ts';
import type { MetadataRow } from './queries.ts';
import type { ArticleJsonLdView, SeoMetadataView } from './schemas.ts';

export interface SeoOverrides {
  metaTitle: string | null;
  metaDescription: string | null;
  ogImage: string | null;
  canonicalUrl: string | null;
  keywords: string[];
}

const noOverrides: SeoOverrides = {
  metaTitle: null,
  metaDescription: null,
  ogImage: null,
  canonicalUrl: null,
  keywords: [],
};

/**
 * The stored `seo` JSON read defensively: blank texts and keywords count as absent, and anything
 * malformed as no override at all, so that no stored value can turn an answer into a 500.
 */
export function parseSeoOverrides(stored: string | null): SeoOverrides {
  if (stored === null || stored === '') return noOverrides;
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return noOverrides;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return noOverrides;
  const record = value as Record<string, unknown>;
  const text = (name: string): string | null => {
    const field = record[name];
    return typeof field === 'string' && field.trim() !== '' ? field.trim() : null;
  };
  const keywords = Array.isArray(record.keywords)
    ? record.keywords
        .filter((keyword): keyword is string => typeof keyword === 'string')
        .map((keyword) => keyword.trim())
        .filter((keyword) => keyword !== '')
    : [];
  return {
    metaTitle: text('metaTitle'),
    metaDescription: text('metaDescription'),
    ogImage: text('ogImage'),
    canonicalUrl: text('canonicalUrl'),
    keywords,
  };
}

/** What every article of one answer shares: the base URL, the URL settings and the publisher. */
export interface SeoSite {
  baseUrl: string;
  /** `baseUrl/`: the site's own relative URLs (logo, author pictures) resolve against it. */
  directoryUrl: string;
  /** The project's URL pattern and time zone, which give an article without a path its URL. */
  settings: UrlSettings;
  publisher: ArticleJsonLdView['publisher'];
}

export function seoSite(
  baseUrl: string,
  project: Pick<Project, 'name' | 'logo_url' | 'url_pattern' | 'time_zone'>,
): SeoSite {
  const directoryUrl = `${baseUrl}/`;
  const logo = webLink(nonBlank(project.logo_url), directoryUrl);
  // A project without a logo has none in its JSON-LD: an invented URL would point search engines
  // at a file the site may not have.
  const publisher: ArticleJsonLdView['publisher'] = { '@type': 'Organization', name: project.name };
  if (logo) publisher.logo = { '@type': 'ImageObject', url: logo };
  return { baseUrl, directoryUrl, settings: urlSettingsOf(project), publisher };
}

/** The metadata of one article, its JSON-LD included. */
export function seoMetadata(row: MetadataRow, tagNames: string[], site: SeoSite): SeoMetadataView {
  const resolved = resolveArticle(row, tagNames, site);
  const metadata: SeoMetadataView = {
    metaTitle: resolved.metaTitle,
    metaDescription: resolved.metaDescription,
    ogTitle: resolved.metaTitle,
    ogDescription: resolved.metaDescription,
    // Open Graph's og:url is the object's canonical URL: the article's own URL unless overridden.
    ogUrl: resolved.canonicalUrl,
    ogType: 'article',
    twitterCard: resolved.image === undefined ? 'summary' : 'summary_large_image',
    canonicalUrl: resolved.canonicalUrl,
    keywords: resolved.keywords,
    structuredData: jsonLd(row, site, resolved),
  };
  if (resolved.image !== undefined) metadata.ogImage = resolved.image;
  return metadata;
}

/** The JSON-LD of one article: what `seoMetadata(…).structuredData` holds. */
export function articleJsonLd(row: MetadataRow, tagNames: string[], site: SeoSite): ArticleJsonLdView {
  return jsonLd(row, site, resolveArticle(row, tagNames, site));
}

/** `seo.metaDescription`, else the excerpt, else the stored summary (plain text cut to 160). */
export function metaDescriptionOf(
  row: Pick<MetadataRow, 'excerpt' | 'summary'>,
  overrides: SeoOverrides,
): string {
  return overrides.metaDescription ?? nonBlank(row.excerpt) ?? row.summary;
}

interface ResolvedArticle {
  url: string;
  canonicalUrl: string;
  metaTitle: string;
  metaDescription: string;
  /** The og image, absolute. */
  image: string | undefined;
  keywords: string[];
}

function resolveArticle(row: MetadataRow, tagNames: string[], site: SeoSite): ResolvedArticle {
  const overrides = parseSeoOverrides(row.seo);
  const url = articleUrl(site.baseUrl, site.settings, row);
  // A URL that is neither http(s) nor a site path (`javascript:`, `data:`) is left out, as if absent.
  // Images resolve against the article's own URL, as its content's do (page bundles); a relative
  // canonical URL is a URL of the site, so it resolves against the base URL as before.
  return {
    url,
    canonicalUrl: webLink(overrides.canonicalUrl, site.directoryUrl) ?? url,
    metaTitle: overrides.metaTitle ?? row.title,
    metaDescription: metaDescriptionOf(row, overrides),
    image: webLink(overrides.ogImage, url) ?? webLink(nonBlank(row.cover_image), url),
    keywords: overrides.keywords.length > 0 ? overrides.keywords : tagNames,
  };
}

export const headlineMaxLength = 110;

function jsonLd(row: MetadataRow, site: SeoSite, resolved: ResolvedArticle): ArticleJsonLdView {
  const people = authorsOf(row).map((person) => personJsonLd(person, site));
  // One author stays one Person, as before; co-authors are an array in the source's order, as
  // Google's documentation writes several authors.
  const author: ArticleJsonLdView['author'] = people.length === 1 ? people[0] : people;
  // Members in the order of Google's documentation (JSON.stringify keeps it); empty ones left out.
  const data = {
    '@context': 'https://schema.org',
    '@type': 'Article',
    headline: summarize(row.title, headlineMaxLength),
  } as ArticleJsonLdView;
  if (resolved.metaDescription !== '') data.description = resolved.metaDescription;
  data.author = author;
  if (row.published_at !== null) data.datePublished = row.published_at;
  data.dateModified = row.updated_at;
  if (resolved.image !== undefined) data.image = resolved.image;
  data.url = resolved.url;
  data.mainEntityOfPage = { '@type': 'WebPage', '@id': resolved.canonicalUrl };
  if (resolved.keywords.length > 0) data.keywords = resolved.keywords;
  // Members-only and paid articles: how Google tells paywalled content from cloaking.
  if (isRestricted(row.visibility)) data.isAccessibleForFree = false;
  data.publisher = site.publisher;
  return data;
}

type Person = Exclude<ArticleJsonLdView['author'], unknown[]>;

interface AuthorFields {
  name: string;
  image: string | null;
  url: string | null;
}

/**
 * Every author of the article in the source's order (its stored `authors`), else its one author
 * (`author_name`, `author_image`): rows stored before authors were kept, and imports of one author,
 * hold an empty list. Malformed entries are skipped, as a malformed list is, never a 500.
 */
export function authorsOf(
  row: Pick<MetadataRow, 'authors' | 'author_name' | 'author_image'>,
): AuthorFields[] {
  let stored: unknown;
  try {
    stored = JSON.parse(row.authors);
  } catch {
    stored = [];
  }
  const authors: AuthorFields[] = [];
  for (const entry of Array.isArray(stored) ? stored : []) {
    if (entry === null || typeof entry !== 'object') continue;
    const record = entry as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? nonBlank(value) : null);
    const name = text(record.name);
    if (name !== null) authors.push({ name, image: text(record.image), url: text(record.url) });
  }
  return authors.length > 0 ? authors : [{ name: row.author_name, image: row.author_image, url: null }];
}

function personJsonLd(person: AuthorFields, site: SeoSite): Person {
  const json: Person = { '@type': 'Person', name: person.name };
  const url = webLink(person.url, site.directoryUrl);
  if (url !== undefined) json.url = url;
  const image = webLink(nonBlank(person.image), site.directoryUrl);
  if (image !== undefined) json.image = image;
  return json;
}

/** `value` made absolute against `against`, or undefined when absent or not a web link. */
export function webLink(value: string | null, against: string): string | undefined {
  return value === null || !isWebLink(value) ? undefined : absoluteUrl(value, against);
}

function nonBlank(value: string | null): string | null {
  return value === null || value.trim() === '' ? null : value.trim();
}
