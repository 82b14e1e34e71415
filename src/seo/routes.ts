// Routes of the SEO feature: each declares its schemas, calls one function of the feature, and
// returns. XML answers are strings with their content type; their errors stay JSON, like every
// error of the API. Request types come from the schemas; the prose is in descriptions.ts.
import type { FastifyInstance, FastifyTypeProvider } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { errorResponses, PreviewToken, previewReadRule } from '../content/public.ts';
import type { Db } from '../db/database.ts';
import { publishedOnly } from '../http/auth.ts';
import { answerPreflights, browserRead } from '../http/cors.ts';
import { getArticleSeo } from './article-seo.ts';
import {
  articleSeoDescription,
  atomDescription,
  jsonFeedDescription,
  rssDescription,
  sitemapDescription,
  structuredDataDescription,
} from './descriptions.ts';
import { atomFeed } from './atom.ts';
import { jsonFeed } from './json-feed.ts';
import { rssFeed } from './rss.ts';
import {
  FeedQuery,
  JsonFeedDocument,
  SeoArticle,
  SeoArticleQuery,
  SitemapJson,
  SitemapQuery,
  StructuredData,
  StructuredDataMeta,
  StructuredDataQuery,
} from './schemas.ts';
import { defaultSitemapPageSize, sitemapJson, sitemapPage, sitemapXml } from './sitemap.ts';
import { scriptSafe, scriptSafeJson } from './script-safe-json.ts';
import { structuredData } from './structured-data.ts';

/**
 * Request types from the TypeBox schemas, as the TypeBox type provider gives them, but replies
 * untyped: these routes send bodies they serialised themselves (script-safe JSON, XML, a stream),
 * which the provider's reply types, taken from the response schemas, would refuse.
 */
interface TypeBoxRequestTypes extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: unknown;
}

export interface SeoRouteOptions {
  /** URLs per sitemap document; tests lower it to check paging with a handful of articles. */
  sitemapPageSize?: number;
}

export function seoRoutes(fastify: FastifyInstance, db: Db, options: SeoRouteOptions = {}): void {
  const pageSize = options.sitemapPageSize ?? defaultSitemapPageSize;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new RangeError(`sitemapPageSize must be a positive integer, got ${pageSize}`);
  }

  articleSeoRoutes(fastify, db);
  feedRoutes(fastify, db, pageSize);
  syndicationRoutes(fastify, db);
  answerPreflights(
    fastify,
    [
      '/v1/seo/article/:slug',
      '/v1/seo/structured-data',
      '/v1/seo/sitemap',
      '/v1/seo/rss',
      '/v1/seo/atom',
      '/v1/seo/feed.json',
    ],
    'GET',
  );
}

/** One article's metadata and the JSON-LD of the published articles. */
function articleSeoRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxRequestTypes>();
  app.get(
    '/v1/seo/article/:slug',
    {
      config: { cache: true, privateWith: 'preview', ...browserRead },
      schema: {
        tags: ['SEO'],
        summary: "One article's SEO metadata and JSON-LD",
        description: `${articleSeoDescription}\n\n${previewReadRule}`,
        params: Type.Object({ slug: Type.String({ maxLength: 1000 }) }),
        // The preview token's schema is content's (schemas.ts stays free of server code: browsers' types use it).
        querystring: Type.Object({ ...SeoArticleQuery.properties, preview: Type.Optional(PreviewToken) }),
        response: { 200: Type.Object({ data: SeoArticle }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      const { baseUrl, preview } = request.query;
      const { project } = request.auth;
      const data = await getArticleSeo(db, project, slug, baseUrl, publishedOnly(request), preview);
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
        description: structuredDataDescription,
        querystring: StructuredDataQuery,
        response: {
          200: Type.Object({ data: StructuredData, meta: Type.Optional(StructuredDataMeta) }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const answer = await structuredData(db, request.auth.project, request.query, {
        url: request.url,
        ifNoneMatch: request.headers['if-none-match'],
      });
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
}

/** The sitemap and the RSS feed. */
function feedRoutes(fastify: FastifyInstance, db: Db, pageSize: number): void {
  const app = fastify.withTypeProvider<TypeBoxRequestTypes>();
  app.get(
    '/v1/seo/sitemap',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['SEO'],
        summary: 'Sitemap of the published articles (sitemaps.org XML, or JSON)',
        description: sitemapDescription(pageSize),
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
      const { query } = request;
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
        description: rssDescription,
        querystring: FeedQuery,
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
      const feed = await rssFeed(db, request.auth.project, request.query);
      return reply.type('application/rss+xml; charset=utf-8').send(feed);
    },
  );
}

/**
 * Atom and JSON Feed: the items of the RSS (same order, ids, parameters and errors) in the two
 * other formats feed readers take.
 */
function syndicationRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxRequestTypes>();
  app.get(
    '/v1/seo/atom',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['SEO'],
        summary: 'Atom 1.0 feed of the newest published articles',
        description: atomDescription,
        querystring: FeedQuery,
        response: {
          200: {
            description: 'The Atom 1.0 document',
            content: {
              'application/atom+xml': { schema: Type.String({ description: 'Atom 1.0 (RFC 4287)' }) },
            },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const feed = await atomFeed(db, request.auth.project, request.query);
      return reply.type('application/atom+xml; charset=utf-8').send(feed);
    },
  );

  app.get(
    '/v1/seo/feed.json',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['SEO'],
        summary: 'JSON Feed 1.1 of the newest published articles',
        description: jsonFeedDescription,
        querystring: FeedQuery,
        response: {
          200: {
            description: 'The JSON Feed 1.1 document',
            content: { 'application/feed+json': { schema: JsonFeedDocument } },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const feed = await jsonFeed(db, request.auth.project, request.query);
      return reply.type('application/feed+json; charset=utf-8').send(feed);
    },
  );
}

/** The request's own path and query with `page` set: the target of a `Link: rel="next"`. */
function withPage(requestUrl: string, page: number): string {
  const url = new URL(requestUrl, 'http://localhost');
  url.searchParams.set('page', String(page));
  return url.pathname + url.search;
}
