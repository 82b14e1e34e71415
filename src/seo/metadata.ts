// Per-article SEO metadata and schema.org JSON-LD, each value with its fallbacks:
// overrides from the article's `seo` front matter first, then the article's own fields.
import { isWebLink, summarize } from '../content/public.ts';
import type { Project } from '../db/schema.ts';
import { absoluteUrl, articleUrl } from './base-url.ts';
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

/** What every article of one answer shares: the base URL and the publisher. */
export interface SeoSite {
  baseUrl: string;
  /** `baseUrl/`: relative URLs of the site resolve against it. */
  directoryUrl: string;
  publisher: ArticleJsonLdView['publisher'];
}

export function seoSite(baseUrl: string, project: Pick<Project, 'name' | 'logo_url'>): SeoSite {
  const directoryUrl = `${baseUrl}/`;
  const logo = webLink(nonBlank(project.logo_url), directoryUrl);
  // A project without a logo has none in its JSON-LD: an invented URL would point search engines
  // at a file the site may not have.
  const publisher: ArticleJsonLdView['publisher'] = { '@type': 'Organization', name: project.name };
  if (logo) publisher.logo = { '@type': 'ImageObject', url: logo };
  return { baseUrl, directoryUrl, publisher };
}

/** The metadata of one article, its JSON-LD included. */
export function seoMetadata(row: MetadataRow, tagNames: string[], site: SeoSite): SeoMetadataView {
  const resolved = resolveArticle(row, tagNames, site);
  const metadata: SeoMetadataView = {
    metaTitle: resolved.metaTitle,
    metaDescription: resolved.metaDescription,
    ogTitle: resolved.metaTitle,
    ogDescription: resolved.metaDescription,
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
  const url = articleUrl(site.baseUrl, row.slug);
  // A URL that is neither http(s) nor a site path (`javascript:`, `data:`) is left out, as if absent.
  return {
    url,
    canonicalUrl: webLink(overrides.canonicalUrl, site.directoryUrl) ?? url,
    metaTitle: overrides.metaTitle ?? row.title,
    metaDescription: metaDescriptionOf(row, overrides),
    image:
      webLink(overrides.ogImage, site.directoryUrl) ?? webLink(nonBlank(row.cover_image), site.directoryUrl),
    keywords: overrides.keywords.length > 0 ? overrides.keywords : tagNames,
  };
}

export const headlineMaxLength = 110;

function jsonLd(row: MetadataRow, site: SeoSite, resolved: ResolvedArticle): ArticleJsonLdView {
  const author: ArticleJsonLdView['author'] = { '@type': 'Person', name: row.author_name };
  const authorImage = webLink(nonBlank(row.author_image), site.directoryUrl);
  if (authorImage !== undefined) author.image = authorImage;
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
  data.publisher = site.publisher;
  return data;
}

/** `value` made absolute against `against`, or undefined when absent or not a web link. */
function webLink(value: string | null, against: string): string | undefined {
  return value === null || !isWebLink(value) ? undefined : absoluteUrl(value, against);
}

function nonBlank(value: string | null): string | null {
  return value === null || value.trim() === '' ? null : value.trim();
}
