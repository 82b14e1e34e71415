// Draft preview tokens: `fpv_<base64url(id.expires)>.<base64url(HMAC-SHA256)>`, signed with the
// server's preview secret. A token says which preview it is and until when (epoch seconds); the
// preview's row says whether it was revoked, for which project and which article.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FieldIssue } from '../errors.ts';

import { maxTokenLength } from './preview-schemas.ts';

export const tokenPrefix = 'fpv_';

const previewIdPattern = /^pv_[0-9a-f]{16}$/;
const base64url = /^[A-Za-z0-9_-]+$/;

export interface TokenClaims {
  id: string;
  /** Epoch seconds after which the token reads nothing. */
  expires: number;
}

export function isPreviewId(value: string): boolean {
  return previewIdPattern.test(value);
}

function signature(secret: Buffer, payload: string): Buffer {
  // The label keeps a signature of one kind of token from ever passing for another's.
  return createHmac('sha256', secret).update(`folio-preview.${payload}`).digest();
}

export function signToken(secret: Buffer, claims: TokenClaims): string {
  const payload = `${claims.id}.${claims.expires}`;
  return `${tokenPrefix}${Buffer.from(payload).toString('base64url')}.${signature(secret, payload).toString('base64url')}`;
}

/** Base64url text decoded, only if it is the canonical spelling of its bytes (one token, one text). */
function decodeCanonical(text: string): Buffer | null {
  if (!base64url.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

/**
 * The claims of a token this server signed, or null for any other text (however malformed): the
 * signature is compared in constant time before anything of the payload is believed.
 */
export function verifyToken(secret: Buffer, token: string): TokenClaims | null {
  if (token.length > maxTokenLength || !token.startsWith(tokenPrefix)) return null;
  const parts = token.slice(tokenPrefix.length).split('.');
  if (parts.length !== 2) return null;
  const payloadBytes = decodeCanonical(parts[0]);
  const given = decodeCanonical(parts[1]);
  if (payloadBytes === null || given === null) return null;
  const payload = payloadBytes.toString('latin1');
  const expected = signature(secret, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const match = /^(pv_[0-9a-f]{16})\.([0-9]{1,12})$/.exec(payload);
  if (match === null) return null;
  return { id: match[1], expires: Number(match[2]) };
}

export const defaultExpiresInSeconds = 7 * 86_400;
export const minExpiresInSeconds = 60;
export const maxExpiresInSeconds = 90 * 86_400;

const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/**
 * `expiresIn` as seconds: a whole number of seconds (number or digits), or digits and a unit
 * (`90m`, `12h`, `7d`, `2w`); from a minute to 90 days. Anything else is an issue naming the field.
 */
export function parseExpiresIn(value: unknown, field = 'expiresIn'): number | FieldIssue {
  if (value === undefined || value === null) return defaultExpiresInSeconds;
  const range = 'from 60 seconds (1m) to 90 days (90d)';
  let seconds: number | null = null;
  if (typeof value === 'number') seconds = Number.isSafeInteger(value) ? value : null;
  else if (typeof value === 'string') {
    const match = /^([0-9]{1,9})([smhdw]?)$/.exec(value.trim());
    if (match) seconds = Number(match[1]) * units[match[2] || 's'];
  }
  if (seconds === null)
    return {
      field,
      message: `must be seconds (a whole number) or a duration such as 30m, 12h, 7d or 2w, ${range}`,
    };
  if (seconds < minExpiresInSeconds || seconds > maxExpiresInSeconds)
    return { field, message: `must be ${range}` };
  return seconds;
}
