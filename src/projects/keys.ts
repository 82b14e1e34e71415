// API keys: generated from a CSPRNG, shown once, stored only as a SHA-256 hash.
import { hash, randomBytes } from 'node:crypto';
import type { KeyScope } from '../db/schema.ts';

export type KeyKind = 'secret' | 'public';

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const keyLength = 40;
const keyPattern = /^folio_(sk|pk)_[0-9A-Za-z]{32,}$/;

export function generateKey(kind: KeyKind): string {
  let body = '';
  while (body.length < keyLength) {
    for (const byte of randomBytes(keyLength * 2)) {
      // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && body.length < keyLength) body += base62[byte % 62];
    }
  }
  return `${kind === 'secret' ? 'folio_sk_' : 'folio_pk_'}${body}`;
}

export function hashKey(key: string): string {
  // The one-shot hash: it runs on every request, and needs no Hash object.
  return hash('sha256', key, 'hex');
}

/** The part of a key that can be shown in lists: its kind marker and first four characters. */
export function keyPrefix(key: string): string {
  return key.slice(0, 'folio_sk_'.length + 4);
}

export function looksLikeKey(key: string): boolean {
  return key.length <= 200 && keyPattern.test(key);
}

export const keyScopes: readonly KeyScope[] = ['read', 'analytics', 'write'];

/** A secret key's scopes as stored (a JSON array); anything unknown in it is ignored. */
export function parseScopes(stored: string): KeyScope[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return [];
  }
  return Array.isArray(parsed) ? keyScopes.filter((scope) => parsed.includes(scope)) : [];
}
