// Routes of articles and tags: each declares its schemas, calls one service function, returns.
// Request types come from the schemas (the TypeBox type provider); the prose is in descriptions.ts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { ValidationError } from '../errors.ts';
import { publishedOnly } from '../http/auth.ts';
import { answerPreflights, browserRead, browserRule } from '../http/cors.ts';
import { ErrorBody, issuesFromValidation } from '../http/errors.ts';
import type { SearchSettings } from './article-page.ts';
import { getArticle, listArticles, selectIssue } from './articles.ts';
import {
  getArticleDescription,
  getTagDescription,
  listArticlesDescription,
  listRedirectsDescription,
  listTagsDescription,
} from './descriptions.ts';
import { previewReadRule } from './preview-descriptions.ts';
import { listRedirects } from './redirects.ts';
import {
  Article,
  ArticleListQuery,
  ArticleQuery,
  PageMeta,
  Redirect,
  Tag,
  TagListQuery,
  TagQuery,
} from './schemas.ts';
import { getTag, listTags } from './tags.ts';
import { writeRoutes } from './write-routes.ts';

/** The error answers of a read: a bad parameter, no key, a wrong key kind, nothing there, too many, no database. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
  503: ErrorBody,
};

/**
 * The article routes validate with `attachValidation`, so that a bad `select` (checked beyond the
 * schema) is reported in the same 400 as the other bad parameters: one issue per problem. The
 * query is read before validation passed, so it is `unknown` here.
 */
function rejectInvalid(request: FastifyRequest): void {
  const error = request.validationError;
  if (!error) return;
  const issues = issuesFromValidation(error.validation, error.validationContext);
  const query: unknown = request.query;
  const select = typeof query === 'object' && query !== null && 'select' in query ? query.select : undefined;
  if (typeof select === 'string' && !issues.some((issue) => issue.field === 'select')) {
    const issue = selectIssue(select);
    if (issue) issues.push(issue);
  }
  throw new ValidationError(issues);
}

/** For a public key only published articles exist: said in the description of every GET it may call. */
export const publishedOnlyRule =
  'Secret keys see every article. **Public keys** (`folio_pk_`) may call this GET too, from a browser: for them only published articles exist (reported status `published`; drafts, scheduled and archived articles are 404 and counted nowhere).';
const publicKeyRule = `${publishedOnlyRule} For a public key, \`status=\` other than \`published\`, or \`published=false\`, is a 400. ${browserRule}`;

export function contentRoutes(fastify: FastifyInstance, db: Db, search?: SearchSettings): void {
  articleRoutes(fastify, db, search);
  tagRoutes(fastify, db);
  redirectRoutes(fastify, db);
  writeRoutes(fastify, db);
  answerPreflights(
    fastify,
    ['/v1/articles', '/v1/articles/:slug', '/v1/tags', '/v1/tags/:name', '/v1/redirects'],
    'GET',
  );
}

function redirectRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/redirects',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['Articles'],
        summary: "Redirects from the published articles' former paths",
        description: `${listRedirectsDescription}\n\n${browserRule}`,
        querystring: Type.Object({}),
        response: { 200: Type.Object({ data: Type.Array(Redirect) }), ...errorResponses },
      },
    },
    async (request) => listRedirects(db, request.auth.project),
  );
}

function articleRoutes(fastify: FastifyInstance, db: Db, search: SearchSettings | undefined): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/articles',
    {
      config: { cache: true, viewCounts: 'project', ...browserRead },
      schema: {
        tags: ['Articles'],
        summary: 'List articles',
        description: `${listArticlesDescription}\n\n${publicKeyRule}`,
        querystring: ArticleListQuery,
        response: { 200: Type.Object({ data: Type.Array(Article), meta: PageMeta }), ...errorResponses },
      },
      attachValidation: true,
    },
    async (request) => {
      rejectInvalid(request);
      const answer = await listArticles(
        db,
        request.auth.project,
        request.query,
        publishedOnly(request),
        search,
      );
      // A page shows the view counts of its own articles: cached, it is refreshed for their page
      // views only, unless views order the list (then any article's may change the page).
      const slugs = answer.data.map((article) => article.slug);
      if (request.query.sort !== 'viewCount' && slugs.every((slug) => typeof slug === 'string')) {
        request.answerViewedSlugs = slugs;
      }
      return answer;
    },
  );

  app.get(
    '/v1/articles/:slug',
    {
      config: { cache: true, viewCounts: 'article', privateWith: 'preview', ...browserRead },
      schema: {
        tags: ['Articles'],
        summary: 'Get one article by slug',
        description: `${getArticleDescription}\n\n${publicKeyRule}\n\n${previewReadRule}`,
        params: Type.Object({ slug: Type.String({ maxLength: 1000 }) }),
        querystring: ArticleQuery,
        response: { 200: Type.Object({ data: Article }), ...errorResponses },
      },
      attachValidation: true,
    },
    async (request) => {
      rejectInvalid(request);
      const { slug } = request.params;
      const { select, preview } = request.query;
      const { project } = request.auth;
      return { data: await getArticle(db, project, slug, select, publishedOnly(request), preview) };
    },
  );
}

function tagRoutes(fastify: FastifyInstance, db: Db): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/tags',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['Tags'],
        summary: 'List tags with article counts',
        description: `${listTagsDescription}\n\n${publicKeyRule}`,
        querystring: TagListQuery,
        response: {
          200: Type.Object({ data: Type.Array(Tag), meta: Type.Object({ total: Type.Integer() }) }),
          ...errorResponses,
        },
      },
    },
    async (request) => listTags(db, request.auth.project, request.query, publishedOnly(request)),
  );

  app.get(
    '/v1/tags/:name',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['Tags'],
        summary: 'Get one tag by name or slug',
        description: `${getTagDescription}\n\n${publicKeyRule}`,
        params: Type.Object({ name: Type.String({ maxLength: 1000 }) }),
        querystring: TagQuery,
        response: { 200: Type.Object({ data: Tag }), ...errorResponses },
      },
    },
    async (request) => {
      const { name } = request.params;
      const { published } = request.query;
      return { data: await getTag(db, request.auth.project, name, published, publishedOnly(request)) };
    },
  );
}
