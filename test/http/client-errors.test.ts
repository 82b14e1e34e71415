// Requests the HTTP parser refuses before routing (malformed request line or header, headers too
// large, a bad Content-Length) and HTTP/1.1 requests without Host answer the contract's JSON error
// body with a request id and `Connection: close`, on a raw socket against the listening server.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { before, test } from 'node:test';
import { describeClientError } from '../../src/http/client-errors.ts';
import { describeEachDialect } from '../helpers.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** The server closed the socket after answering. */
  closed: boolean;
}

/** Sends `text` on a fresh socket and reads one answer; `closed` says whether the server hung up. */
function raw(port: number, text: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      finish(false);
    }, 3000);
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', reject);
    socket.on('end', () => finish(true));
    function finish(closed: boolean) {
      clearTimeout(timer);
      const [head, ...rest] = received.split('\r\n\r\n');
      const [statusLine, ...lines] = head!.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      const bodyText = rest.join('\r\n\r\n');
      resolve({
        status: Number(statusLine!.split(' ')[1]),
        headers,
        body: bodyText === '' ? null : JSON.parse(bodyText),
        closed,
      });
      socket.destroy();
    }
  });
}

function assertContractError(answer: RawAnswer, status: number, message: RegExp) {
  assert.equal(answer.status, status, JSON.stringify(answer));
  assert.match(answer.headers['content-type']!, /^application\/json/);
  assert.equal(answer.headers.connection?.toLowerCase(), 'close');
  assert.match(answer.headers['x-request-id']!, /^[0-9a-f-]{36}$/);
  assert.equal(answer.body.statusCode, status);
  assert.equal(typeof answer.body.error, 'string');
  assert.match(answer.body.message, message);
  if (status === 400)
    assert.ok(Array.isArray(answer.body.details.issues) && answer.body.details.issues.length > 0);
  assert.equal(answer.closed, true, 'the server closes the connection');
}

describeEachDialect('parser-level errors on the listening server', (ctx) => {
  let port: number;
  before(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as { port: number }).port;
  });

  test('a malformed request line is a 400 JSON error with a request id and Connection: close', async () => {
    for (const text of [
      'GARBAGE\r\n\r\n',
      'GET /health HTTP/9.9\r\nHost: x\r\n\r\n',
      'G@T /health HTTP/1.1\r\nHost: x\r\n\r\n',
    ]) {
      assertContractError(await raw(port, text), 400, /request line is malformed|not valid HTTP/);
    }
  });

  test('headers larger than the limit are a 431 JSON error', async () => {
    const answer = await raw(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assertContractError(answer, 431, /headers are larger than 16 KiB/);
    assert.equal(answer.body.error, 'Request Header Fields Too Large');
  });

  test('a malformed header or Content-Length is a 400 JSON error', async () => {
    assertContractError(
      await raw(port, 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'),
      400,
      /header is malformed/,
    );
    assertContractError(
      await raw(port, 'POST /v1/analytics/track HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'),
      400,
      /Content-Length/,
    );
  });

  test('an HTTP/1.1 request without Host is a 400 naming Host; HTTP/1.0 needs none', async () => {
    const answer = await raw(port, 'GET /health HTTP/1.1\r\n\r\n');
    assertContractError(answer, 400, /Host header/);
    assert.deepEqual(
      answer.body.details.issues.map((issue: { field: string }) => issue.field),
      ['Host'],
    );
    const old = await raw(port, 'GET /health HTTP/1.0\r\n\r\n');
    assert.equal(old.status, 200);
    const fine = await raw(port, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.equal(fine.status, 200);
  });
});

test('describeClientError: every parser error gets a 4xx with a message', () => {
  for (const code of [
    'HPE_INVALID_METHOD',
    'HPE_HEADER_OVERFLOW',
    'ERR_HTTP_REQUEST_TIMEOUT',
    'HPE_SOMETHING_NEW',
    undefined,
  ]) {
    const { status, message } = describeClientError(code);
    assert.ok(status >= 400 && status < 500, String(code));
    assert.ok(message.length > 0);
  }
  assert.equal(describeClientError('ERR_HTTP_REQUEST_TIMEOUT').status, 408);
});
