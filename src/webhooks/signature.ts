// Signing of webhook deliveries, the Standard Webhooks scheme: the signed content is
// `id.timestamp.body`, its HMAC-SHA256 under the endpoint's key (the base64 after `whsec_`) is sent
// base64-encoded as `webhook-signature: v1,<signature>`. Self-contained (node:crypto only), so that
// a receiver, or the client package, can copy the verification as it is.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const secretPrefix = 'whsec_';

/** A new endpoint secret: `whsec_` and the base64 of 32 random bytes. */
export function generateSecret(): string {
  return `${secretPrefix}${randomBytes(32).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
}

/** The `webhook-signature` value (`v1,<base64>`) of one delivery attempt. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The headers of one delivery attempt: its id (the event's, the same on every retry), time and signature. */
export function signedHeaders(
  secret: string,
  id: string,
  timestamp: number,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(secret, id, timestamp, body),
  };
}

export interface VerifyOptions {
  /** Seconds a timestamp may be from now, either way (default 300), against replays. */
  toleranceSeconds?: number;
  /** The receiver's clock (default: now). */
  now?: Date;
}

/**
 * Whether a delivery is authentic: its signature (any of the space-separated `v1,` ones, so that a
 * sender rotating its secret may send two) matches the body under `secret`, and its timestamp is
 * within the tolerance. `headers` as received (names in lower case, as Node gives them). Dedupe on
 * `webhook-id`: a retry carries the same one.
 */
export function verify(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  options: VerifyOptions = {},
): boolean {
  const id = single(headers['webhook-id']);
  const timestampText = single(headers['webhook-timestamp']);
  const signatures = single(headers['webhook-signature']);
  if (id === undefined || timestampText === undefined || signatures === undefined) return false;
  if (!/^\d+$/.test(timestampText)) return false;
  const timestamp = Number(timestampText);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(sign(secret, id, timestamp, body).slice('v1,'.length), 'base64');
  return signatures.split(' ').some((candidate) => {
    if (!candidate.startsWith('v1,')) return false;
    const given = Buffer.from(candidate.slice('v1,'.length), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
