// The matched route's pattern and config, read once per request. Fastify's `request.routeOptions`
// is a getter that builds a new object of thirteen members (and asks the router for its version
// constraint) at every read; the hooks of one cached GET read it nine times. A request handed to the
// not-found handler by its route (`reply.callNotFound()`, as @fastify/static does for a missing
// file under /docs) changes route: the handler calls forgetRoute, so that the hooks after it read
// the not-found route, as `routeOptions` would.
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';

export interface RouteOf {
  /** The route's pattern (`/v1/articles/:slug`), undefined for a request no route matched. */
  url: string | undefined;
  config: FastifyContextConfig;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Kept by routeOf: read it through routeOf. */
    routeOfRequest: RouteOf | null;
  }
}

export function registerRouteOf(app: FastifyInstance): void {
  app.decorateRequest('routeOfRequest', null);
}

/**
 * The request's route, the same object at every call for the request (also in an app built
 * without registerRouteOf, as some tests build theirs: the member is then added here).
 */
export function routeOf(request: FastifyRequest): RouteOf {
  return (request.routeOfRequest ??= readRoute(request));
}

function readRoute(request: FastifyRequest): RouteOf {
  const { url, config } = request.routeOptions;
  return { url, config: config ?? {} };
}

/** The request's route changed (the not-found handler took it over): routeOf reads it again. */
export function forgetRoute(request: FastifyRequest): void {
  request.routeOfRequest = null;
}
