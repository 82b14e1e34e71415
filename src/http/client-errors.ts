// Requests Node's HTTP parser refuses before any route runs (a malformed request line or header,
// headers past the size limit, a body that never arrives) and HTTP/1.1 requests without `Host`
// get the same JSON error body as every other error, a request id, and `Connection: close`:
// after a parse error the rest of the stream cannot be trusted to start a new request.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { sendError } from './errors.ts';

// Required, not imported: an ESM import of node:http reads every one of its exports, among them the
// lazy WebSocket, which loads Node's fetch (undici and its WebAssembly parser: about 17 MB of RSS
// in a process that never fetches).
const { STATUS_CODES } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** Node's default `maxHeaderSize`, which the server keeps. */
const maxHeaderKiB = 16;

interface ParseError extends Error {
  code?: string;
}

/** The status and message of a parser error, by Node's (llhttp's) error code. */
export function describeClientError(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: `The request headers are larger than ${maxHeaderKiB} KiB` };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'The whole request was not received in time' };
    case 'HPE_INVALID_METHOD':
    case 'HPE_INVALID_URL':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONSTANT':
      return { status: 400, message: 'The request line is malformed: expected METHOD /path HTTP/1.1' };
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return { status: 400, message: 'A request header is malformed' };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return {
        status: 400,
        message: 'The Content-Length header is malformed or contradicts Transfer-Encoding',
      };
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return { status: 400, message: 'The chunked body is malformed' };
    default:
      return { status: 400, message: 'The request is not valid HTTP/1.1' };
  }
}

/** The `clientErrorHandler` of the app: answers on the raw socket, then closes it. */
export function answerClientError(this: FastifyInstance, error: ParseError, socket: Socket): void {
  // A reset socket has nobody to answer; a response already begun cannot be replaced.
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable || started === true) {
    socket.destroy();
    return;
  }
  const { status, message } = describeClientError(error.code);
  this.log.debug({ code: error.code }, `client error: ${message}`);
  const body: Record<string, unknown> = { error: STATUS_CODES[status], message, statusCode: status };
  if (status === 400) body.details = { issues: [{ field: 'request', message }] };
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\n` +
      'Connection: close\r\n\r\n' +
      json,
  );
}

/**
 * HTTP/1.1 requires `Host` (Node's own check, turned off in app.ts, would answer an empty 400).
 * Registered right after the request id, before authentication spends any budget.
 */
export function registerHostCheck(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.httpVersion !== '1.1' || request.headers.host !== undefined) return done();
    reply.header('Connection', 'close');
    sendError(reply, 400, 'An HTTP/1.1 request must carry a Host header', {
      issues: [{ field: 'Host', message: 'is required in HTTP/1.1' }],
    });
  });
}
