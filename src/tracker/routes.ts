// GET /v1/analytics/script.js: the tracker, for `<script defer src=… data-key="folio_pk_…">`.
// A static asset: no key, no rate limit, cached by browsers and CDNs, gzipped when accepted.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ErrorBody } from '../http/errors.ts';
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

export function trackerRoutes(app: FastifyInstance): void {
  app.get(
    '/v1/analytics/script.js',
    {
      // It sends its own gzip of the built script (compression.ts would encode it again per request).
      config: { access: 'none', rateLimited: false, compress: false },
      schema: {
        tags: ['Analytics'],
        summary: 'The browser tracker script',
        security: [],
        description: [
          'Embed with `<script defer src="https://API/v1/analytics/script.js" data-key="folio_pk_…"></script>`: it sends a page view per page (and per SPA navigation through the history API), then the visible time on the page, the deepest scroll (a page that fits the viewport is 100%) and custom events (`folio.track(type, element?)`) with `navigator.sendBeacon` when the page is hidden or left. The API origin is taken from the script URL. The slug is `data-slug` on the page that loaded the script, else the last path segment (decoded, without `.html`); a path without one is not tracked. `data-geo="false"` leaves the country out. A bot answer (202) or an error stops it quietly; a 404 (the page is not an article) skips only that page.',
          'No key is needed and requests are not counted against any rate limit: the script is served from memory. `Cache-Control: public, max-age=86400` with a weak ETag (the version) for revalidation; with `?v=VERSION` of the current version, a year and `immutable`. Gzipped when the client accepts it; `Access-Control-Allow-Origin: *` so that `crossorigin` and subresource integrity work.',
        ].join('\n\n'),
        querystring: ScriptQuery,
        response: {
          200: {
            description: 'The minified tracker',
            content: { 'text/javascript': { schema: Type.String() } },
          },
          304: { description: 'Not modified: If-None-Match holds the current ETag', type: 'null' },
          400: ErrorBody,
        },
      },
      onSend: async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        // After the app-wide onSend that marks every GET `private, no-cache`: this one is public.
        if (reply.statusCode === 200 || reply.statusCode === 304) {
          const { v } = request.query as { v?: string };
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
