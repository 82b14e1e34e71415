// Verifying a Folio webhook as its receiver gets it: Folio signs like the Standard Webhooks scheme
// (HMAC-SHA256 of "id.timestamp.body" under the endpoint's `whsec_…` secret, sent as
// `webhook-signature: v1,<base64>`), so that a receiver knows the request came from Folio, was not
// changed, and is not an old one replayed; `webhook-id` lets it drop a retried delivery it already
// handled. Web Crypto only: Node ≥ 20, browsers, edge runtimes.

/** A webhook's body as Folio sends it. */
export interface WebhookEvent<D = Record<string, unknown>> {
  type: string;
  /** When the event happened (ISO 8601). */
  timestamp: string;
  data: D;
}

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The time to check against (tests); default now. */
  now?: Date;
}

/** The request failed verification: answer it 400 (or 401) and do not act on it. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a delivery's signature and age, and returns its parsed body with its id (to dedupe
 * retries). `body` must be the raw text received, byte for byte (not JSON parsed and written back).
 * Throws WebhookVerificationError when anything is wrong.
 */
export async function verifyWebhook<D = Record<string, unknown>>(
  secret: string,
  headers: HeaderSource,
  body: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent<D> & { id: string }> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d{1,15}$/.test(timestamp))
    throw new WebhookVerificationError('webhook-timestamp is not a Unix time');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now`);
  const expected = await sign(secret, `${id}.${timestamp}.${body}`);
  const matches = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .some((entry) => sameText(entry.slice(3), expected));
  if (!matches) throw new WebhookVerificationError('no webhook-signature matches the secret');
  let parsed: WebhookEvent<D>;
  try {
    parsed = JSON.parse(body) as WebhookEvent<D>;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  return { ...parsed, id };
}

/** The base64 HMAC-SHA256 of `content` under a `whsec_…` secret, as `webhook-signature` carries it after `v1,`. */
export async function signWebhook(secret: string, content: string): Promise<string> {
  return sign(secret, content);
}

async function sign(secret: string, content: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    secretBytes(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const signature = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(content));
  return toBase64(new Uint8Array(signature));
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  let binary: string;
  try {
    binary = atob(encoded);
  } catch {
    throw new WebhookVerificationError('the secret is not whsec_ followed by base64');
  }
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Compares in time that depends on the lengths only, not on where the texts differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}
