// GET /v1/analytics/script.js: the tracker, for `<script defer src=… data-key="folio_pk_…">`.
// A static asset: no key, no rate limit, cached by browsers and CDNs, gzipped when accepted.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ErrorBody } from '../http/errors.ts';
import { scriptDescription } from './descriptions.ts';
import { trackerScript } from './script.ts';

const ScriptQuery = Type.Object({
  v: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'The version of the script (its ETag without `W/` and quotes). When it is the current one the answer may be cached for a year; any other value gets the current script with the ordinary caching, so a page never breaks.',
    }),
  ),
});

/** Without the current version in the URL: a day in caches, then a revalidation by ETag (a 304). */
const dayCaching = 'public, max-age=86400, stale-while-revalidate=604800';
const versionedCaching = 'public, max-age=31536000, immutable';

export function trackerRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/analytics/script.js',
    {
      // It sends its own gzip of the built script (compression.ts would encode it again per request).
      config: { access: 'none', rateLimited: false, compress: false },
      schema: {
        tags: ['Analytics'],
        summary: 'The browser tracker script',
        security: [],
        description: scriptDescription,
        querystring: ScriptQuery,
        response: {
          200: {
            description: 'The minified tracker',
            // The script's text, or its gzip bytes when the client accepts them.
            content: { 'text/javascript': { schema: Type.Unsafe<string | Buffer>({ type: 'string' }) } },
          },
          304: { description: 'Not modified: If-None-Match holds the current ETag', type: 'null' },
          400: ErrorBody,
        },
      },
      onSend: async (request, reply, payload) => {
        // After the app-wide onSend that marks every GET `private, no-cache`: this one is public.
        if (reply.statusCode === 200 || reply.statusCode === 304) {
          const { v } = request.query;
          const script = await trackerScript();
          reply.header('Cache-Control', v === script.version ? versionedCaching : dayCaching);
        }
        return payload;
      },
    },
    async (request, reply) => {
      const script = await trackerScript();
      const gzip = acceptsGzip(request.headers['accept-encoding']);
      reply
        .type('text/javascript; charset=utf-8')
        .header('ETag', `W/"${script.version}"`)
        .header('Vary', 'Accept-Encoding')
        .header('Access-Control-Allow-Origin', '*')
        .header('Cross-Origin-Resource-Policy', 'cross-origin')
        .header('X-Content-Type-Options', 'nosniff');
      if (gzip) reply.header('Content-Encoding', 'gzip');
      return reply.send(gzip ? script.gzipped : script.code);
    },
  );
}

/** Whether an Accept-Encoding header takes gzip (by name or `*`) with a quality above 0. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.split(';').map((piece) => piece.trim());
    const quality = params.find((param) => param.startsWith('q='));
    const accepted = quality === undefined || Number(quality.slice(2)) > 0;
    if (name === 'gzip' || name === 'x-gzip') return accepted;
    if (name === '*') star = accepted;
  }
  return star;
}
