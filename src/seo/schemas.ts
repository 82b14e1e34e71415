// The SEO shapes of the API: query parameters and JSON answers, one source for validation,
// serialisation and the OpenAPI document. XML answers are strings, documented by content type.
import { type Static, Type } from 'typebox';
import { StringEnum, Timestamp } from '../http/schema-helpers.ts';

const baseUrlDescription =
  "Absolute http(s) URL the links are built on, without query or fragment; default: the project's siteUrl (400 when neither exists). Normalised as WHATWG URL does (lower-case scheme and host, punycode, percent-encoding), trailing slashes removed; an article's URL is `baseUrl` plus the article's path (its own, else the project's URL pattern, default `/:slug`).";

const BaseUrl = Type.String({ maxLength: 2048, description: baseUrlDescription });

export const SeoArticleQuery = Type.Object({ baseUrl: Type.Optional(BaseUrl) });
export const StructuredDataQuery = Type.Object({
  baseUrl: Type.Optional(BaseUrl),
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: 'with `limit`, or alone (limit 1,000): one page of the articles instead of all of them',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 5000,
      description: 'articles per page (1,000 when only `page` is given)',
    }),
  ),
});
export type StructuredDataQueryType = Static<typeof StructuredDataQuery>;

/**
 * What an absent sitemap or feed parameter means. Ajv fills these in from the schema's `default`s;
 * the type of a validated query still marks them optional (the OpenAPI document must), so the
 * service spreads them under the query too.
 */
export const sitemapDefaults = { page: 1, format: 'xml' } as const;
/** The RSS, Atom and JSON Feed default. */
export const rssDefaults = { limit: 20 } as const;

export const SitemapQuery = Type.Object({
  baseUrl: Type.Optional(BaseUrl),
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: sitemapDefaults.page,
      description: 'which document of 50,000 URLs; a page past the end is an empty document, not an error',
    }),
  ),
  format: Type.Optional(
    StringEnum(['xml', 'json'] as const, {
      default: sitemapDefaults.format,
      description: '`xml`: a sitemaps.org urlset; `json`: the same URLs in the `data` envelope',
    }),
  ),
});
export type SitemapQueryType = Static<typeof SitemapQuery>;

/** The parameters of the three feeds (RSS, Atom, JSON Feed), which hold the same items. */
export const FeedQuery = Type.Object({
  baseUrl: Type.Optional(BaseUrl),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: rssDefaults.limit,
      description: 'number of newest articles',
    }),
  ),
  feedUrl: Type.Optional(
    Type.String({
      maxLength: 2048,
      description:
        'Absolute http(s) URL where the front end publishes this feed: it becomes the feed\'s self link (RSS `atom:link rel="self"` of the channel, Atom `link rel="self"`, JSON Feed `feed_url`), which is left out without it (the API\'s own URL needs a key, so it cannot be the feed\'s address).',
    }),
  ),
});
export type FeedQueryType = Static<typeof FeedQuery>;

export const SeoProject = Type.Object({
  name: Type.String(),
  slug: Type.String(),
  description: Type.String(),
});

const ImageObject = Type.Object({ '@type': Type.Literal('ImageObject'), url: Type.String() });

const Person = Type.Object({
  '@type': Type.Literal('Person'),
  name: Type.String(),
  url: Type.Optional(Type.String({ description: "the author's page (absolute); left out when unknown" })),
  image: Type.Optional(Type.String({ description: 'absolute URL; left out when unknown' })),
});

export const ArticleJsonLd = Type.Object(
  {
    '@context': Type.Literal('https://schema.org'),
    '@type': Type.Literal('Article'),
    headline: Type.String({
      maxLength: 110,
      description: 'the title, cut at a word boundary with `…` past 110 characters',
    }),
    description: Type.Optional(Type.String({ description: 'the meta description; left out when empty' })),
    author: Type.Union([Person, Type.Array(Person, { minItems: 2 })], {
      description:
        "the article's author as a `Person`; an article with several authors (`authors`) has an array of them in the source's order",
    }),
    datePublished: Type.Optional(Timestamp),
    dateModified: Timestamp,
    image: Type.Optional(Type.String({ description: 'the og image (absolute); left out when none' })),
    url: Type.String({
      description: "the article's URL: `baseUrl` plus its own path, else the project's URL pattern filled in",
    }),
    mainEntityOfPage: Type.Object({
      '@type': Type.Literal('WebPage'),
      '@id': Type.String({ description: 'the canonical URL' }),
    }),
    keywords: Type.Optional(Type.Array(Type.String(), { description: 'left out when empty' })),
    isAccessibleForFree: Type.Optional(
      Type.Literal(false, {
        description: 'only for a members-only or paid article (`visibility` other than `public`)',
      }),
    ),
    publisher: Type.Object({
      '@type': Type.Literal('Organization'),
      name: Type.String({ description: 'the project name' }),
      logo: Type.Optional(
        Type.Object(ImageObject.properties, {
          description:
            "the project's logo URL (`folio projects create --logo-url`), made absolute against `baseUrl`; left out when the project has none",
        }),
      ),
    }),
  },
  {
    $id: 'ArticleJsonLd',
    description:
      "A schema.org Article as Google's structured-data guidelines describe it. `datePublished` is left out for an article that has none (a draft); other empty members are left out too.",
  },
);
export type ArticleJsonLdView = Static<typeof ArticleJsonLd>;

export const SeoMetadata = Type.Object(
  {
    metaTitle: Type.String({ description: '`seo.metaTitle`, else the title' }),
    metaDescription: Type.String({
      description:
        "`seo.metaDescription`, else the excerpt, else the plain text cut to 160 characters at a word boundary with `…` (empty for an article without text); a members-only or paid article's plain text is its teaser's alone",
    }),
    ogTitle: Type.String({ description: 'the meta title' }),
    ogDescription: Type.String({ description: 'the meta description' }),
    ogUrl: Type.String({ description: "the canonical URL: `seo.canonicalUrl`, else the article's URL" }),
    ogImage: Type.Optional(
      Type.String({
        description:
          "`seo.ogImage`, else the cover image, made absolute against the article's URL (`/…` against the site root); left out when neither exists",
      }),
    ),
    ogType: Type.Literal('article'),
    twitterCard: StringEnum(['summary', 'summary_large_image'] as const, {
      description: '`summary_large_image` when there is an og image',
    }),
    canonicalUrl: Type.String({
      description: "`seo.canonicalUrl` (made absolute against `baseUrl`), else the article's URL",
    }),
    keywords: Type.Array(Type.String(), {
      description: '`seo.keywords` when it holds any, else the tag names ordered by name',
    }),
    structuredData: ArticleJsonLd,
  },
  { $id: 'SeoMetadata' },
);
export type SeoMetadataView = Static<typeof SeoMetadata>;

export const SeoArticle = Type.Object({
  id: Type.String(),
  title: Type.String(),
  slug: Type.String(),
  content: Type.String({
    description:
      'Markdown; for a public key, a members-only or paid article has only its teaser (the part before `<!--members-only-->`, empty without one)',
  }),
  seo: SeoMetadata,
  project: SeoProject,
});

export const StructuredData = Type.Object({
  project: SeoProject,
  articles: Type.Array(Type.Object({ slug: Type.String(), structuredData: ArticleJsonLd }), {
    description: 'every published article, newest first',
  }),
  generatedAt: Type.String({
    format: 'date-time',
    description:
      'when this answer was generated; answers are cached until the project changes, so it can be older than the request',
  }),
});

export const StructuredDataMeta = Type.Object(
  {
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer({ description: 'published articles' }),
    totalPages: Type.Integer({ description: 'ceil(total / limit); 0 when there are none' }),
  },
  { description: 'only when `page` or `limit` is given' },
);

export const SitemapJson = Type.Object({
  data: Type.Object({
    urls: Type.Array(Type.Object({ loc: Type.String(), lastmod: Timestamp })),
  }),
  meta: Type.Object({
    page: Type.Integer(),
    totalPages: Type.Integer({ description: 'ceil(published articles / 50,000); 0 when there are none' }),
  }),
});
export type SitemapJsonView = Static<typeof SitemapJson>;

const JsonFeedAuthor = Type.Object({
  name: Type.String(),
  url: Type.Optional(Type.String({ description: "the author's page (absolute); left out when unknown" })),
  avatar: Type.Optional(
    Type.String({ description: "the author's picture (absolute); left out when unknown" }),
  ),
});

const JsonFeedItem = Type.Object({
  id: Type.String({
    description:
      "the RSS `guid` as an IRI: kept when it is an absolute IRI (a URL), `urn:uuid:…` for a UUID, else `tag:HOST,2026:…` (HOST: the base URL's host)",
  }),
  url: Type.String({ description: "the article's URL" }),
  title: Type.String(),
  content_html: Type.Optional(
    Type.String({
      description: 'the sanitised HTML of the article; left out for a members-only or paid article',
    }),
  ),
  content_text: Type.Optional(
    Type.String({
      description:
        'only for a members-only or paid article, since JSON Feed needs content_html or content_text: the same text as `summary`',
    }),
  ),
  summary: Type.String({
    description:
      'plain text: the meta description; for a members-only or paid article its teaser (the part before `<!--members-only-->`) as plain text, else its meta description',
  }),
  date_published: Type.String({
    format: 'date-time',
    description: '`publishedAt` (`updatedAt` without one), RFC 3339',
  }),
  date_modified: Type.String({ format: 'date-time', description: '`updatedAt`, RFC 3339' }),
  authors: Type.Array(JsonFeedAuthor, { description: "the article's authors in the source's order" }),
  tags: Type.Optional(Type.Array(Type.String(), { description: 'tag names; left out when none' })),
});

export const JsonFeedDocument = Type.Object(
  {
    version: Type.Literal('https://jsonfeed.org/version/1.1'),
    title: Type.String({ description: 'the project name' }),
    home_page_url: Type.String({ description: 'the base URL' }),
    feed_url: Type.Optional(Type.String({ description: '`feedUrl`; left out without it' })),
    description: Type.String({ description: 'the project description, else its name' }),
    icon: Type.Optional(
      Type.String({ description: "the project's logo URL (absolute); left out without one" }),
    ),
    items: Type.Array(JsonFeedItem, { description: 'the newest published articles, newest first' }),
  },
  { description: 'A JSON Feed 1.1 document' },
);
export type JsonFeedView = Static<typeof JsonFeedDocument>;
