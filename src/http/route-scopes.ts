// Every route a key may call needs a scope of a secret key, given by its URL and method unless the
// route names one (`config.scope`), so that a new route cannot be left open to every secret key.
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { KeyScope } from '../db/schema.ts';
import { ErrorBody } from './errors.ts';

/** What each scope lets a secret key do, as the OpenAPI descriptions and the CLI say it. */
export const scopeMeanings: Record<KeyScope, string> = {
  read: 'content and SEO reads',
  analytics: 'statistics, funnel, insights, CSV and tracking',
  write: 'content writes, revisions, webhooks and previews',
};

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * A path with one of these segments is a `write` whatever the method (`/v1/webhooks/:id`,
 * `/v1/articles/:slug/previews`): listing webhooks shows their URLs, previews and revisions show
 * what is not published.
 */
const writeSegments = new Set(['webhooks', 'previews', 'revisions']);

/**
 * The scope a route needs by its URL and method: `/v1/analytics/…` (statistics, funnel, insights,
 * CSV, tracking) → `analytics`; webhooks, previews and revisions, and any other method than
 * GET/HEAD → `write`; any other read → `read`.
 */
export function scopeOfRoute(methods: string | readonly string[], url: string): KeyScope {
  if (url === '/v1/analytics' || url.startsWith('/v1/analytics/')) return 'analytics';
  if (url.split('/').some((segment) => writeSegments.has(segment))) return 'write';
  const all = typeof methods === 'string' ? [methods] : methods;
  return all.every((method) => readMethods.has(method.toUpperCase())) ? 'read' : 'write';
}

/** The sentence each scoped endpoint's OpenAPI description ends with. */
export function scopeRule(scope: KeyScope): string {
  return `**Scope:** a secret key needs the \`${scope}\` scope (${scopeMeanings[scope]}); one without it gets 403, its message and \`details.scope\` naming the scope. Public keys have no scopes.`;
}

/**
 * Gives every route that takes a key (`access` other than `none`) and names no scope the one of
 * `scopeOfRoute`, and says it in its OpenAPI description with a 403 answer. Registered before any
 * route, so that it sees them all, including those of plugins.
 */
export function giveRoutesTheirScopes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if ((route.config?.access ?? 'secret') === 'none') return;
    const scope = route.config?.scope ?? scopeOfRoute(route.method, route.url);
    route.config = { ...route.config, scope };
    if (route.schema !== undefined && route.schema.hide !== true) describeScope(route, scope);
  });
}

/** A new schema object: route schemas share their parts (error answers), which must not change. */
function describeScope(route: RouteOptions, scope: KeyScope): void {
  const schema = route.schema!;
  const description = typeof schema.description === 'string' ? `${schema.description}\n\n` : '';
  const response = (schema.response ?? {}) as Record<string, unknown>;
  route.schema = {
    ...schema,
    description: `${description}${scopeRule(scope)}`,
    response: '403' in response ? response : { ...response, 403: ErrorBody },
  };
}
