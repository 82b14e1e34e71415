// The client's webhook verification, checked against the Standard Webhooks scheme itself: the
// scheme's published test vector, and signatures made here with node:crypto, not with the client.
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { signWebhook, verifyWebhook, WebhookVerificationError } from '../../packages/client/src/index.ts';

// The example of the Standard Webhooks specification and its libraries' tests.
const vector = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: '1614265330',
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const at = new Date(Number(vector.timestamp) * 1000);

function headersOf(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    'webhook-id': vector.id,
    'webhook-timestamp': vector.timestamp,
    'webhook-signature': vector.signature,
    ...overrides,
  };
}

test('the Standard Webhooks example verifies, and its id comes back for deduplication', async () => {
  const event = await verifyWebhook(vector.secret, headersOf(), vector.body, { now: at });
  assert.equal(event.id, vector.id);
  assert.deepEqual({ ...event, id: undefined }, { test: 2432232314, id: undefined });
  assert.equal(
    `v1,${await signWebhook(vector.secret, `${vector.id}.${vector.timestamp}.${vector.body}`)}`,
    vector.signature,
  );
});

test('a signature made with node:crypto verifies from a Headers object and from mixed-case node headers', async () => {
  const key = randomBytes(32);
  const secret = `whsec_${key.toString('base64')}`;
  const body = JSON.stringify({
    type: 'article.published',
    timestamp: '2026-11-26T00:00:00.000Z',
    data: { slug: 'é' },
  });
  const id = 'msg_1';
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  const headers = new Headers({
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  });
  const event = await verifyWebhook<{ slug: string }>(secret, headers, body);
  assert.equal(event.type, 'article.published');
  assert.equal(event.data.slug, 'é');
  const nodeStyle = {
    'Webhook-Id': id,
    'WEBHOOK-TIMESTAMP': timestamp,
    'webhook-signature': [`v1,${signature}`],
  };
  assert.equal((await verifyWebhook(secret, nodeStyle, body)).id, id);
});

test('any of several signatures may match (a secret being rotated)', async () => {
  const headers = headersOf({ 'webhook-signature': `v1,AAAA v2,whatever ${vector.signature}` });
  assert.equal((await verifyWebhook(vector.secret, headers, vector.body, { now: at })).id, vector.id);
});

test('a changed body, id or timestamp, another secret, or no signature is refused', async () => {
  const refused = async (secret: string, headers: Record<string, string>, body: string, pattern: RegExp) =>
    assert.rejects(verifyWebhook(secret, headers, body, { now: at }), (error: unknown) => {
      assert.ok(error instanceof WebhookVerificationError);
      assert.match(error.message, pattern);
      return true;
    });
  await refused(vector.secret, headersOf(), '{"test": 2432232315}', /no webhook-signature matches/);
  await refused(vector.secret, headersOf({ 'webhook-id': 'msg_other' }), vector.body, /no webhook-signature/);
  await refused(
    vector.secret,
    headersOf({ 'webhook-timestamp': '1614265331' }),
    vector.body,
    /no webhook-signature/,
  );
  await refused(
    `whsec_${randomBytes(24).toString('base64')}`,
    headersOf(),
    vector.body,
    /no webhook-signature/,
  );
  await refused(
    vector.secret,
    headersOf({ 'webhook-signature': 'v2,abc' }),
    vector.body,
    /no webhook-signature/,
  );
  await refused(vector.secret, { 'webhook-id': vector.id }, vector.body, /missing/);
  await refused(vector.secret, headersOf({ 'webhook-timestamp': 'soon' }), vector.body, /not a Unix time/);
  await refused('whsec_not base64!', headersOf(), vector.body, /not whsec_ followed by base64/);
});

test('an old or future timestamp is refused beyond the tolerance, accepted within it', async () => {
  const later = (seconds: number) => new Date(at.getTime() + seconds * 1000);
  await assert.rejects(verifyWebhook(vector.secret, headersOf(), vector.body, { now: later(301) }), /300 s/);
  await assert.rejects(verifyWebhook(vector.secret, headersOf(), vector.body, { now: later(-301) }), /300 s/);
  await verifyWebhook(vector.secret, headersOf(), vector.body, { now: later(299) });
  await verifyWebhook(vector.secret, headersOf(), vector.body, { now: later(3600), toleranceSeconds: 3600 });
});
