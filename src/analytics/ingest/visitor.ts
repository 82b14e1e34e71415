// Visitor ids without cookies: a keyed hash of the day's secret salt, the project, the client IP and
// the User-Agent. The salt changes every UTC day and is deleted two days later, so an id can be
// neither reversed to an IP nor linked to the same person's id of another day.
import { createHmac, randomBytes, randomFillSync } from 'node:crypto';
import { pageViewIdPrefix } from '../page-view-ids.ts';

export function visitorIdFor(salt: string, projectId: string, ip: string, userAgent: string): string {
  return createHmac('sha256', salt)
    .update(`${projectId}\u0000${ip}\u0000${userAgent}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

export function newSalt(): string {
  return randomBytes(32).toString('base64url');
}

// Random bytes drawn from the CSPRNG in blocks: one system call per 256 ids instead of one each.
const entropy = Buffer.alloc(16 * 256);
let entropyOffset = entropy.length;

/** A page-view id: 12 hex digits of the creation time, so new rows append to the index, then 128 random bits. */
export function newPageViewId(now: number = Date.now()): string {
  if (entropyOffset === entropy.length) {
    randomFillSync(entropy);
    entropyOffset = 0;
  }
  const random = entropy.toString('base64url', entropyOffset, entropyOffset + 16);
  entropyOffset += 16;
  return pageViewIdPrefix(now) + random;
}

export const pageViewIdPattern = /^[0-9a-f]{12}[A-Za-z0-9_-]{22}$/;
