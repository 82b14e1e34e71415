import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, defaultWebhookConfig, loadConfig } from '../../src/config.ts';

test('webhook settings: defaults, durations, the allow-list, and bad values named', () => {
  assert.deepEqual(loadConfig({}).webhooks, defaultWebhookConfig);
  const set = loadConfig({
    WEBHOOK_TIMEOUT_MS: '2500',
    WEBHOOK_POLL_MS: '200',
    WEBHOOK_RETRY_DELAYS: '500ms, 5s,2m,1h',
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1,10.0.0.0/8,fd00::/8',
  }).webhooks;
  assert.equal(set.timeoutMs, 2500);
  assert.equal(set.pollMs, 200);
  assert.deepEqual(set.retryDelaysMs, [500, 5_000, 120_000, 3_600_000]);
  assert.deepEqual(set.allowPrivate, ['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
  assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).webhooks.allowPrivate, true);
  assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhooks.allowPrivate, false);
  for (const [name, value] of [
    ['WEBHOOK_ALLOW_PRIVATE', 'localhost'],
    ['WEBHOOK_ALLOW_PRIVATE', '10.0.0.0/33'],
    ['WEBHOOK_RETRY_DELAYS', '5,10'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_POLL_MS', 'soon'],
  ] as const) {
    assert.throws(
      () => loadConfig({ [name]: value }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, new RegExp(name));
        return true;
      },
    );
  }
});
