// Routes of articles and tags: each declares its schemas, calls one service function, returns.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { ErrorBody, issuesFromValidation, ValidationError } from '../http/errors.ts';
import { getArticle, listArticles, selectIssue } from './articles.ts';
import { Article, ArticleListQuery, ArticleQuery, PageMeta, Tag, TagListQuery, TagQuery } from './schemas.ts';
import { getTag, listTags } from './tags.ts';

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
 * schema) is reported in the same 400 as the other bad parameters: one issue per problem.
 */
function rejectInvalid(request: FastifyRequest): void {
  const error = request.validationError;
  if (!error) return;
  const issues = issuesFromValidation(error.validation, error.validationContext);
  const { select } = (request.query ?? {}) as { select?: unknown };
  if (typeof select === 'string' && !issues.some((issue) => issue.field === 'select')) {
    const issue = selectIssue(select);
    if (issue) issues.push(issue);
  }
  throw new ValidationError(issues);
}

export function contentRoutes(app: FastifyInstance, db: Db): void {
  app.get(
    '/v1/articles',
    {
      config: { cache: true },
      schema: {
        tags: ['Articles'],
        summary: 'List articles',
        description:
          'Paginated, filtered and sorted list. All filters combine with AND. Tag names match case-insensitively after trimming; a name that matches no tag matches no article. A page past the end returns `data: []` with correct `meta`.',
        querystring: ArticleListQuery,
        response: { 200: Type.Object({ data: Type.Array(Article), meta: PageMeta }), ...errorResponses },
      },
      attachValidation: true,
    },
    async (request) => {
      rejectInvalid(request);
      return listArticles(db, request.auth.project, request.query as never);
    },
  );

  app.get(
    '/v1/articles/:slug',
    {
      config: { cache: true },
      schema: {
        tags: ['Articles'],
        summary: 'Get one article by slug',
        description:
          "Any status. 404 with message `Article 'SLUG' not found` when the project has no such slug.",
        params: Type.Object({ slug: Type.String({ maxLength: 1000 }) }),
        querystring: ArticleQuery,
        response: { 200: Type.Object({ data: Article }), ...errorResponses },
      },
      attachValidation: true,
    },
    async (request) => {
      rejectInvalid(request);
      const { slug } = request.params as { slug: string };
      const { select } = request.query as { select?: string };
      return { data: await getArticle(db, request.auth.project, slug, select) };
    },
  );

  app.get(
    '/v1/tags',
    {
      config: { cache: true },
      schema: {
        tags: ['Tags'],
        summary: 'List tags with article counts',
        description:
          '`meta.total` is the number of tags of the project, whatever `limit` is. Ties are broken by name (ascending).',
        querystring: TagListQuery,
        response: {
          200: Type.Object({ data: Type.Array(Tag), meta: Type.Object({ total: Type.Integer() }) }),
          ...errorResponses,
        },
      },
    },
    async (request) => listTags(db, request.auth.project, request.query as never),
  );

  app.get(
    '/v1/tags/:name',
    {
      config: { cache: true },
      schema: {
        tags: ['Tags'],
        summary: 'Get one tag by name',
        description:
          'The name is URL-decoded, trimmed and matched case-insensitively. 404 `Tag not found` otherwise.',
        params: Type.Object({ name: Type.String({ maxLength: 1000 }) }),
        querystring: TagQuery,
        response: { 200: Type.Object({ data: Tag }), ...errorResponses },
      },
    },
    async (request) => {
      const { name } = request.params as { name: string };
      const { published } = request.query as { published?: boolean };
      return { data: await getTag(db, request.auth.project, name, published) };
    },
  );
}
