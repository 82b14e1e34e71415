// Every response carries X-Request-Id; a valid incoming one is reused so that a front end can
// follow a request across services. Each request is logged once, on completion, with that id.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && acceptable.test(incoming) ? incoming : randomUUID();
}

export function registerRequestId(app: FastifyInstance): void {
  // Callback style: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
}

// A key, or what starts like one, also with its underscores percent-encoded.
const keyLike = /folio(?:_|%5f)(sk|pk)(?:_|%5f)[0-9A-Za-z]*/gi;
// A draft preview token (`?preview=fpv_…`): it reads an unpublished article until it expires.
const previewTokenLike = /fpv(?:_|%5f)[0-9A-Za-z_.%-]*/gi;

/**
 * The text with every key-like value (and preview token) replaced, keeping its kind: the log's
 * last line of defence.
 */
export function redactKeys(text: string): string {
  return text
    .replace(keyLike, (_match, kind: string) => `folio_${kind.toLowerCase()}_[redacted]`)
    .replace(previewTokenLike, 'fpv_[redacted]');
}

function looksLikeKeyValue(text: string): boolean {
  return /folio_(sk|pk)_/i.test(text);
}

/**
 * The URL as it may be logged: the value of the `key` query parameter, however its name is spelt
 * (`KEY`, or percent-encoded as `%6Bey`, which the query parser decodes to `key`), and any path
 * segment, parameter name or value that holds a key once decoded (`?key[]=folio_pk_…`,
 * `?token=folio%5Fsk%5F…`, `/v1/folio_sk_…`) are never written.
 */
export function loggableUrl(url: string): string {
  const start = url.indexOf('?');
  const path = (start === -1 ? url : url.slice(0, start))
    .split('/')
    .map((segment) => (looksLikeKeyValue(decoded(segment)) ? '[redacted]' : segment))
    .join('/');
  if (start === -1) return path;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      const value = equals === -1 ? '' : pair.slice(equals + 1);
      const plainName = decoded(name);
      const shownName = looksLikeKeyValue(plainName) ? '[redacted]' : name;
      if (plainName.trim().toLowerCase() === 'key' || looksLikeKeyValue(decoded(value))) {
        return `${shownName}=[redacted]`;
      }
      return equals === -1 ? shownName : `${shownName}=${value}`;
    });
  return `${path}?${pairs.join('&')}`;
}

function decoded(component: string): string {
  try {
    return decodeURIComponent(component.replaceAll('+', ' '));
  } catch {
    return component;
  }
}

/**
 * Logs each request once answered, at level info: below that level (warn, silent) it would build
 * lines none writes, so it is not registered. Returns the logger of those lines, or null.
 */
export function registerRequestLog(
  app: FastifyInstance,
  level: string | false | undefined,
): FastifyBaseLogger | null {
  if (typeof level !== 'string' || !['trace', 'debug', 'info'].includes(level)) return null;
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      requestLine(request.method, request.url, reply.statusCode, reply.elapsedTime),
      'request completed',
    );
  });
  return app.log;
}

/** The fields of a request's log line ('request completed'). */
export function requestLine(method: string, url: string, statusCode: number, elapsedMs: number) {
  return { method, url: loggableUrl(url), statusCode, ms: Math.round(elapsedMs * 10) / 10 };
}
