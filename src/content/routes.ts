// Routes of articles and tags: each declares its schemas, calls one service function, returns.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { publishedOnly } from '../http/auth.ts';
import { answerPreflights, browserRead, browserRule } from '../http/cors.ts';
import { ErrorBody, issuesFromValidation } from '../http/errors.ts';
import { ValidationError } from '../errors.ts';
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

/** Contract §12, in the description of every GET that public keys may call. */
export const publishedOnlyRule =
  'Secret keys see every article. **Public keys** (`folio_pk_`) may call this GET too, from a browser: for them only published articles exist (reported status `published`; drafts, scheduled and archived articles are 404 and counted nowhere).';
const publicKeyRule = `${publishedOnlyRule} For a public key, \`status=\` other than \`published\`, or \`published=false\`, is a 400. ${browserRule}`;

export function contentRoutes(app: FastifyInstance, db: Db): void {
  app.get(
    '/v1/articles',
    {
      config: { cache: true, viewCounts: 'project', ...browserRead },
      schema: {
        tags: ['Articles'],
        summary: 'List articles',
        description: `Paginated, filtered and sorted list. All filters combine with AND. Tag names match case-insensitively after trimming; a name that matches no tag matches no article. A page past the end returns \`data: []\` with correct \`meta\`. \`meta.total\` is always exact: it is counted from bitmaps of the project's articles per stored status, tag, word and piece of text of up to three characters, which every import keeps in the same transaction as the articles, so a count never reads the matching articles (see \`search\` for the rare terms that are matched in the texts); a scheduled article counts as \`published\` from its \`publishedAt\` on. Unknown query parameters are a 400 naming them. Answers are cached until the project’s content changes (seen on the next request, from any instance or the CLI); \`viewCount\` may lag tracked page views by up to 3 seconds (they are summed within 0.5 s, and cached answers refresh their counts at most every 2 s). Answers of 1 KB or more are compressed (br or gzip) when \`Accept-Encoding\` allows.\n\n${publicKeyRule}`,
        querystring: ArticleListQuery,
        response: { 200: Type.Object({ data: Type.Array(Article), meta: PageMeta }), ...errorResponses },
      },
      attachValidation: true,
    },
    async (request) => {
      rejectInvalid(request);
      const query = request.query as { sort?: string };
      const answer = await listArticles(db, request.auth.project, query as never, publishedOnly(request));
      // A page shows the view counts of its own articles: cached, it is refreshed for their page
      // views only, unless views order the list (then any article's may change the page).
      const slugs = answer.data.map((article) => (article as { slug?: unknown }).slug);
      if (query.sort !== 'viewCount' && slugs.every((slug) => typeof slug === 'string')) {
        request.answerViewedSlugs = slugs as string[];
      }
      return answer;
    },
  );

  app.get(
    '/v1/articles/:slug',
    {
      config: { cache: true, viewCounts: 'article', ...browserRead },
      schema: {
        tags: ['Articles'],
        summary: 'Get one article by slug',
        description: `Any status for a secret key; published only for a public key. 404 with message \`Article 'SLUG' not found\` when the project has no such slug (or, for a public key, no such published article). Answers are cached until the project’s content changes (seen on the next request, from any instance or the CLI); \`viewCount\` may lag tracked page views by up to 3 seconds (they are summed within 0.5 s, and cached answers refresh their counts at most every 2 s). Answers of 1 KB or more are compressed (br or gzip) when \`Accept-Encoding\` allows.\n\n${publicKeyRule}`,
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
      return { data: await getArticle(db, request.auth.project, slug, select, publishedOnly(request)) };
    },
  );

  app.get(
    '/v1/tags',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['Tags'],
        summary: 'List tags with article counts',
        description: `\`meta.total\` is the number of tags of the project, whatever \`limit\` is. Ties are broken by name (ascending). For a public key \`articleCount\` counts published articles only (as with \`published=true\`); tags themselves are listed whatever they carry, as Ghost's Content API does.\n\n${publicKeyRule}`,
        querystring: TagListQuery,
        response: {
          200: Type.Object({ data: Type.Array(Tag), meta: Type.Object({ total: Type.Integer() }) }),
          ...errorResponses,
        },
      },
    },
    async (request) => listTags(db, request.auth.project, request.query as never, publishedOnly(request)),
  );

  app.get(
    '/v1/tags/:name',
    {
      config: { cache: true, ...browserRead },
      schema: {
        tags: ['Tags'],
        summary: 'Get one tag by name',
        description: `The name is URL-decoded, trimmed and matched case-insensitively. 404 \`Tag not found\` otherwise. For a public key \`articleCount\` counts published articles only.\n\n${publicKeyRule}`,
        params: Type.Object({ name: Type.String({ maxLength: 1000 }) }),
        querystring: TagQuery,
        response: { 200: Type.Object({ data: Tag }), ...errorResponses },
      },
    },
    async (request) => {
      const { name } = request.params as { name: string };
      const { published } = request.query as { published?: boolean };
      return { data: await getTag(db, request.auth.project, name, published, publishedOnly(request)) };
    },
  );

  answerPreflights(app, ['/v1/articles', '/v1/articles/:slug', '/v1/tags', '/v1/tags/:name'], 'GET');
}
