import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { generateSecret, sign, signedHeaders, verify } from '../../src/webhooks/signature.ts';
import { retryDelayMs } from '../../src/webhooks/retries.ts';

// The example of the Standard Webhooks specification.
const example = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

test('sign: the Standard Webhooks example signature', () => {
  assert.equal(sign(example.secret, example.id, example.timestamp, example.body), example.signature);
});

test('verify: the example verifies at its time, not 6 minutes later, not with another body or id', () => {
  const headers = {
    'webhook-id': example.id,
    'webhook-timestamp': String(example.timestamp),
    'webhook-signature': example.signature,
  };
  const at = new Date(example.timestamp * 1000);
  assert.ok(verify(example.secret, headers, example.body, { now: at }));
  assert.ok(!verify(example.secret, headers, example.body, { now: new Date(at.getTime() + 360_000) }));
  assert.ok(!verify(example.secret, headers, `${example.body} `, { now: at }));
  assert.ok(!verify(example.secret, { ...headers, 'webhook-id': 'msg_other' }, example.body, { now: at }));
  assert.ok(
    !verify(example.secret, { ...headers, 'webhook-signature': undefined }, example.body, { now: at }),
  );
  // Several signatures (a rotation): one matching is enough.
  const rotated = { ...headers, 'webhook-signature': `v1,AAAA ${example.signature}` };
  assert.ok(verify(example.secret, rotated, example.body, { now: at }));
});

test('verify: whatever the secret, id and body, what is signed verifies and a changed byte does not', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1 }), fc.string(), (id, body) => {
      const secret = generateSecret();
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = signedHeaders(secret, id, timestamp, body);
      assert.ok(verify(secret, headers, body));
      assert.ok(!verify(secret, headers, `${body}x`));
      assert.ok(!verify(generateSecret(), headers, body));
    }),
    { numRuns: 100 },
  );
});

test('retries: each delay is spread by up to a fifth, and past the last one the delivery gives up', () => {
  const delays = [5_000, 300_000];
  assert.equal(
    retryDelayMs(1, delays, () => 0),
    4_000,
  );
  assert.equal(
    retryDelayMs(1, delays, () => 1),
    6_000,
  );
  assert.equal(
    retryDelayMs(2, delays, () => 0.5),
    300_000,
  );
  assert.equal(retryDelayMs(3, delays), null);
});
