// Routes of the SEO feature: each declares its schemas, calls one function of the feature, and
// returns. XML answers are strings with their content type; their errors stay JSON (contract §3).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { browserRule, errorResponses, publishedOnlyRule } from '../content/public.ts';
import type { Db } from '../db/database.ts';
import { publishedOnly } from '../http/auth.ts';
import { answerPreflights, browserRead } from '../http/cors.ts';
import { getArticleSeo } from './article-seo.ts';
import { rssFeed } from './rss.ts';
import {
  RssQuery,
  type RssQueryType,
  SeoArticle,
  SeoArticleQuery,
  SitemapJson,
  SitemapQuery,
  type SitemapQueryType,
  StructuredData,
  StructuredDataMeta,
  StructuredDataQuery,
  type StructuredDataQueryType,
} from './schemas.ts';
import { defaultSitemapPageSize, sitemapJson, sitemapPage, sitemapXml } from './sitemap.ts';
import { scriptSafe, scriptSafeJson } from './script-safe-json.ts';
import { structuredData } from './structured-data.ts';

export interface SeoRouteOptions {
  /** URLs per sitemap document; tests lower it to check paging with a handful of articles. */
  sitemapPageSize?: number;
}

const baseUrlRule =
  "Links are built on `baseUrl`, else the project's siteUrl; 400 naming `baseUrl` when neither exists or it is not an absolute http(s) URL without query or fragment. Relative image URLs are made absolute against it. Only http(s) URLs and site paths become links: another scheme (`javascript:`, `data:`) in `seo.canonicalUrl`, `seo.ogImage`, `coverImage`, an author image or the project logo is left out as if absent.";
const scriptSafeRule =
  'The JSON is script-safe: `<`, `>`, `&`, U+2028 and U+2029 are written as `\\u` escapes (the same value once parsed), so that JSON-LD can be pasted into a `<script type="application/ld+json">` element as it is.';
const publishedRule =
  'Holds only articles whose reported status is `published` (not drafts, scheduled or archived articles), newest `publishedAt` first, ties by id descending, articles without a `publishedAt` last.';

const seoPublicKeyRule = `${publishedOnlyRule} ${browserRule}`;

export function seoRoutes(app: FastifyInstance, db: Db, options: SeoRouteOptions = {}): void {
  const pageSize = options.sitemapPageSize ?? defaultSitemapPageSize;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new RangeError(`sitemapPageSize must be a positive integer, got ${pageSize}`);
  }

  app.get(
    '/v1/seo/article/:slug',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['SEO'],
        summary: "One article's SEO metadata and JSON-LD",
        description: `Any status for a secret key, so that previews work; published only for a public key (previews need a secret key). 404 \`Article 'SLUG' not found\` for an unknown slug (or, for a public key, an article that is not published). ${baseUrlRule} Fallbacks: metaTitle → title; metaDescription → excerpt → plain text cut to 160 characters at a word boundary with \`…\`; og values → meta values; ogImage → cover image (left out when neither exists); canonicalUrl → \`baseUrl/slug\` (a relative \`seo.canonicalUrl\` is made absolute too); keywords → tag names ordered by name (an empty \`seo.keywords\` list counts as absent). ${scriptSafeRule}\n\n${seoPublicKeyRule}`,
        params: Type.Object({ slug: Type.String({ maxLength: 1000 }) }),
        querystring: SeoArticleQuery,
        response: { 200: Type.Object({ data: SeoArticle }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { slug } = request.params as { slug: string };
      const { baseUrl } = request.query as { baseUrl?: string };
      const data = await getArticleSeo(db, request.auth.project, slug, baseUrl, publishedOnly(request));
      // Serialised by the response schema, then made safe to paste into a <script> element.
      return reply
        .type('application/json; charset=utf-8')
        .send(scriptSafe(reply.serialize({ data }) as string));
    },
  );

  app.get(
    '/v1/seo/structured-data',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['SEO'],
        summary: 'schema.org Article JSON-LD of the published articles',
        description: `${publishedRule} ${baseUrlRule} Without \`page\` and \`limit\`: every published article, streamed as it is read (a blog of 50,000 articles is about 40 MB), with a weak ETag made of the project's content version, its number of published articles and the URL, known before the body; a matching \`If-None-Match\` answers 304 without reading the articles. The stream is not a snapshot: an article changed while it is sent may be missed or appear as changed; an article left alone appears exactly once. With \`page\` and/or \`limit\` (default 1,000, at most 5,000): that page of the same order, with \`meta: { page, limit, total, totalPages }\` and, when a page follows, a \`Link: <…&page=N>; rel="next"\` header (relative to this endpoint, other parameters kept), as the sitemap does; a page past the end has \`articles: []\` and the right \`meta\`. \`generatedAt\` is when the answer was generated: paged answers are cached until the project's content changes (or a scheduled article goes live), so it may be earlier than the request. ${scriptSafeRule}\n\n${seoPublicKeyRule}`,
        querystring: StructuredDataQuery,
        response: {
          200: Type.Object({ data: StructuredData, meta: Type.Optional(StructuredDataMeta) }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const answer = await structuredData(
        db,
        request.auth.project,
        request.query as StructuredDataQueryType,
        {
          url: request.url,
          ifNoneMatch: request.headers['if-none-match'],
        },
      );
      if (answer.kind === 'page') {
        reply.type('application/json; charset=utf-8');
        const { meta } = answer.body;
        if (meta.page < meta.totalPages)
          reply.header('Link', `<${withPage(request.url, meta.page + 1)}>; rel="next"`);
        return reply.send(scriptSafeJson(answer.body));
      }
      reply.header('ETag', answer.etag);
      if (answer.notModified) return reply.code(304).send('');
      return reply.type('application/json; charset=utf-8').send(answer.stream);
    },
  );

  app.get(
    '/v1/seo/sitemap',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['SEO'],
        summary: 'Sitemap of the published articles (sitemaps.org XML, or JSON)',
        description: `\`application/xml\`: a sitemaps.org \`urlset\`, one \`url\` per published article with \`loc\` (\`baseUrl/slug\`) and \`lastmod\` (\`updatedAt\`, W3C datetime). ${publishedRule} At most ${pageSize.toLocaleString('en-US')} URLs per document: \`page\` selects the next ones, and a \`Link: <…&page=N>; rel="next"\` header (relative to this endpoint, other parameters kept) announces them. A page past the end is an empty document (\`urlset\` without \`url\`, or \`urls: []\`) with the right \`totalPages\`, as for article lists; a project without published articles has an empty page 1. \`format=json\` returns \`{ data: { urls }, meta: { page, totalPages } }\`. ${baseUrlRule} Errors are JSON.\n\n${seoPublicKeyRule}`,
        querystring: SitemapQuery,
        response: {
          200: {
            description: 'The sitemap document',
            content: {
              'application/xml': { schema: Type.String({ description: 'sitemaps.org urlset' }) },
              'application/json': { schema: SitemapJson },
            },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const query = request.query as SitemapQueryType;
      const page = await sitemapPage(db, request.auth.project, query, pageSize);
      if (page.page < page.totalPages)
        reply.header('Link', `<${withPage(request.url, page.page + 1)}>; rel="next"`);
      if (query.format === 'json') return sitemapJson(page);
      return reply.type('application/xml; charset=utf-8').send(sitemapXml(page));
    },
  );

  app.get(
    '/v1/seo/rss',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['SEO'],
        summary: 'RSS 2.0 feed of the newest published articles',
        description: `\`application/rss+xml\`, RSS 2.0 with the \`content\`, \`dc\` and \`atom\` namespaces. ${publishedRule} Channel: project name as \`title\`, \`baseUrl\` as \`link\`, the project description (its name when it has none), \`lastBuildDate\` (RFC 822: the latest \`updatedAt\` or \`publishedAt\` of the items, else the project's \`updatedAt\`; never the clock, so that the same content always gives the same document and ETag), \`generator\`, and \`atom:link rel="self"\` when \`feedUrl\` is given. Items: \`title\`, \`link\`, \`guid\` (the article id, \`isPermaLink="false"\`), \`pubDate\` (RFC 822, GMT; \`updatedAt\` for an article without \`publishedAt\`), \`description\` (the meta description, with the fallbacks of the article SEO endpoint), \`content:encoded\` (the Markdown rendered to HTML and sanitised to an allow-list: no scripts, styles, event handlers or \`javascript:\`/\`data:\` URLs; relative links and images made absolute against the article's URL), \`dc:creator\`, one \`category\` per tag. Characters XML 1.0 cannot carry (control characters, lone surrogates) are dropped. ${baseUrlRule} Errors are JSON.\n\n${seoPublicKeyRule}`,
        querystring: RssQuery,
        response: {
          200: {
            description: 'The RSS 2.0 document',
            content: { 'application/rss+xml': { schema: Type.String({ description: 'RSS 2.0' }) } },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const feed = await rssFeed(db, request.auth.project, request.query as RssQueryType);
      return reply.type('application/rss+xml; charset=utf-8').send(feed);
    },
  );

  answerPreflights(
    app,
    ['/v1/seo/article/:slug', '/v1/seo/structured-data', '/v1/seo/sitemap', '/v1/seo/rss'],
    'GET',
  );
}

/** The request's own path and query with `page` set: the target of a `Link: rel="next"`. */
function withPage(requestUrl: string, page: number): string {
  const url = new URL(requestUrl, 'http://localhost');
  url.searchParams.set('page', String(page));
  return url.pathname + url.search;
}
