// One delivery attempt: a POST to the address the policy checked (the URL's host still names the
// server, for its Host header and TLS), no redirects followed, cut at the timeout whatever the
// receiver does (slow headers, a body that trickles).
import https from 'node:https';
import { createRequire } from 'node:module';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './addresses.ts';

// Required, not imported: an ESM import of node:http reads every one of its exports, among them the
// lazy WebSocket, which loads Node's fetch (undici and its WebAssembly parser: about 17 MB of RSS).
const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');

export interface AttemptResult {
  /** The receiver's status; null when none came (refused, timed out, cut). */
  statusCode: number | null;
  /** Why it failed, for the delivery log; null when it succeeded. */
  error: string | null;
  durationMs: number;
}

/** How much of a receiver's answer is read (and thrown away) before the attempt counts as done. */
const maxAnswerBytes = 64 * 1024;

export function postEvent(
  url: URL,
  address: ResolvedAddress,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // Every name resolves to the checked address: no second lookup between the check and the connection.
  const pinned = ((_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) callback(null, [address]);
    else callback(null, address.address, address.family);
  }) as LookupFunction;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ statusCode, error, durationMs: elapsed() });
    };
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      lookup: pinned,
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Folio-Webhooks/1',
        ...headers,
      },
    });
    const timer = setTimeout(() => {
      finish(null, `timed out after ${options.timeoutMs} ms`);
      request.destroy();
    }, options.timeoutMs);
    const onAbort = () => {
      finish(null, 'stopped: the instance shut down');
      request.destroy();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    request.on('response', (response) => {
      const statusCode = response.statusCode ?? 0;
      let read = 0;
      const done = () =>
        finish(
          statusCode,
          statusCode >= 200 && statusCode < 300 ? null : `the receiver answered ${statusCode}`,
        );
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > maxAnswerBytes) {
          done();
          response.destroy();
        }
      });
      response.on('end', done);
      response.on('error', done);
      response.on('close', done);
    });
    request.on('error', (error: NodeJS.ErrnoException) => finish(null, error.code ?? error.message));
    request.end(body);
  });
}
