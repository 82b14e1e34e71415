import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { redactKeys } from '../../src/http/request-id.ts';
import { createTestProject, describeEachDialect } from '../helpers.ts';

/** A log stream that keeps every JSON line. */
function logCollector() {
  const lines: string[] = [];
  return {
    stream: { write: (line: string) => void lines.push(line) },
    lines,
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

async function waitFor(condition: () => boolean, what: () => string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`never happened: ${what()}`);
}

test('redactKeys: every key-like value, also percent-encoded, keeps only its kind', () => {
  const secret = `folio_sk_${'A1b2'.repeat(10)}`;
  const publicKey = `folio_pk_${'Zz09'.repeat(10)}`;
  const cases: Array<[string, string]> = [
    [secret, 'folio_sk_[redacted]'],
    [`{"url":"/v1/x?key[]=${publicKey}"}`, '{"url":"/v1/x?key[]=folio_pk_[redacted]"}'],
    [`a ${secret} b ${publicKey}`, 'a folio_sk_[redacted] b folio_pk_[redacted]'],
    [`folio%5Fsk%5F${'x'.repeat(40)}`, 'folio_sk_[redacted]'],
    [`FOLIO_SK_${'x'.repeat(40)}`, 'folio_sk_[redacted]'],
    ['folio_xx_abc and folio-sk-abc stay', 'folio_xx_abc and folio-sk-abc stay'],
    ['/v1/articles/d?preview=fpv_cHZfMDEy.A-b_c&select=x', '/v1/articles/d?preview=fpv_[redacted]&select=x'],
    ['?preview=fpv%5FcHZf%2EAb', '?preview=fpv_[redacted]'],
  ];
  for (const [text, expected] of cases) assert.equal(redactKeys(text), expected, text);
});

describeEachDialect('logging', (ctx) => {
  test('a key in a log line written by any code (not only the request line) is redacted', async () => {
    const log = logCollector();
    const app = await buildApp({ db: ctx.db, logLevel: 'info', logStream: log.stream });
    app.get('/v1/echo', { config: { access: 'none' } }, async (request) => {
      request.log.warn({ detail: request.headers['x-note'] }, `note: ${request.headers['x-note']}`);
      return { ok: true };
    });
    try {
      const { key } = await createTestProject(ctx.db);
      const response = await app.inject({ method: 'GET', url: '/v1/echo', headers: { 'x-note': key } });
      assert.equal(response.statusCode, 200);
      const warning = log.entries().find((entry) => entry.level === 40);
      assert.ok(warning, log.lines.join(''));
      assert.equal(warning.msg, 'note: folio_sk_[redacted]');
      assert.equal(warning.detail, 'folio_sk_[redacted]');
      assert.ok(!log.lines.join('').includes(key.slice('folio_sk_'.length)));
    } finally {
      await app.close();
    }
  });

  test('a client hanging up mid-upload is logged as a client abort, not as the database', async () => {
    const log = logCollector();
    const app = await buildApp({ db: ctx.db, logLevel: 'info', logStream: log.stream });
    try {
      const { key } = await createTestProject(ctx.db, { kind: 'public' });
      let bodyStarted!: () => void;
      const parsing = new Promise<void>((resolve) => (bodyStarted = resolve));
      app.addHook('preParsing', async (request) => {
        if (request.id === 'hang-up') bodyStarted();
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as { port: number };
      const socket = connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        [
          'POST /v1/analytics/track HTTP/1.1',
          'Host: localhost',
          `X-API-Key: ${key}`,
          'X-Request-Id: hang-up',
          'Content-Type: application/json',
          'Content-Length: 5000',
          '',
          '{"slug":"an-article","pageUrl":"',
        ].join('\r\n'),
      );
      // The server is reading the body when the client goes away.
      await parsing;
      socket.destroy();
      await waitFor(
        () => log.entries().some((entry) => entry.reqId === 'hang-up' && entry.level === 30),
        () => `the aborted request is not logged: ${log.lines.join('')}`,
      );
      const lines = log.entries().filter((entry) => entry.reqId === 'hang-up');
      assert.deepEqual(
        lines.map(({ msg, method, url }) => ({ msg, method, url })),
        [
          {
            msg: 'client closed the connection before sending the whole request',
            method: 'POST',
            url: '/v1/analytics/track',
          },
        ],
      );
      assert.ok(!lines.some((entry) => /database/.test(String(entry.msg))), log.lines.join(''));
      assert.ok(!lines.some((entry) => (entry.level as number) >= 50), log.lines.join(''));
    } finally {
      await app.close();
    }
  });
});
