// The analytics dashboard at /dashboard: one HTML page and its two bundled assets. The page holds
// no data; the browser signs in with a secret key (kept in the tab's sessionStorage, never a
// cookie) and reads the analytics API like any client, so the pages need no key and no rate limit.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { type Asset, dashboardAssets } from './assets.ts';

const securityHeaders = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

const AssetQuery = Type.Object({
  v: Type.Optional(Type.String({ maxLength: 64, description: 'the content hash the page links to' })),
});

export function dashboardRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const config = { access: 'none' } as const;
  const schema = { hide: true };

  app.get('/dashboard', { config, schema }, async (_request, reply) => {
    const { script, style } = await dashboardAssets();
    return reply
      .headers(securityHeaders)
      .header('Cache-Control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(page(script.hash, style.hash));
  });
  app.get('/dashboard/', { config, schema }, async (_request, reply) => reply.redirect('/dashboard', 301));

  const assetOptions = { config, schema: { ...schema, querystring: AssetQuery } };
  app.get('/dashboard/app.js', assetOptions, async (request, reply) =>
    sendAsset(reply, (await dashboardAssets()).script, request.query.v, request.headers),
  );
  app.get('/dashboard/app.css', assetOptions, async (request, reply) =>
    sendAsset(reply, (await dashboardAssets()).style, request.query.v, request.headers),
  );
}

/** One asset; `version` is the `v` of its URL, the content hash the page linked to. */
function sendAsset(
  reply: FastifyReply,
  asset: Asset,
  version: string | undefined,
  headers: IncomingHttpHeaders,
): FastifyReply {
  // A URL with the current hash never changes; any other (an old page, no hash) is revalidated.
  reply
    .headers(securityHeaders)
    .header('Cache-Control', version === asset.hash ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('ETag', `"${asset.hash}"`)
    .header('Vary', 'Accept-Encoding')
    .type(asset.contentType);
  if (headers['if-none-match'] === `"${asset.hash}"`) return reply.code(304).send();
  if (/\bgzip\b/.test(String(headers['accept-encoding'] ?? ''))) {
    return reply.header('Content-Encoding', 'gzip').send(asset.gzip);
  }
  return reply.send(asset.body);
}

function page(scriptHash: string, styleHash: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Folio dashboard</title>
<link rel="stylesheet" href="/dashboard/app.css?v=${styleHash}">
<script type="module" src="/dashboard/app.js?v=${scriptHash}"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<div id="app" aria-live="polite"><p class="loading">Loading the dashboard…</p></div>
<noscript>The Folio dashboard needs JavaScript.</noscript>
</body>
</html>
`;
}
