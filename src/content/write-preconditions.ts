// The conditions of a write: `If-Match` against the version it replaces (a lost update is a 412,
// a write that names no version a 428), and `Idempotency-Key` on POST, whose first answer is kept
// 24 hours and replayed.
import { createHash } from 'node:crypto';
import type { Executor } from '../db/schema.ts';
import { HttpError, ValidationError } from '../errors.ts';

export class PreconditionRequiredError extends HttpError {
  constructor(what: string) {
    super(
      428,
      'Precondition Required',
      `This write needs If-Match: "<version>" with the ${what} it replaces (the ETag of the last write, or the version GET shows)`,
    );
  }
}

export class PreconditionFailedError extends HttpError {
  constructor(what: string, current: string) {
    super(
      412,
      'Precondition Failed',
      `If-Match does not name the current ${what} ("${current}"): it was changed since; read it again and redo the change`,
      { current },
    );
  }
}

/**
 * Checks `If-Match` (a list of strong entity tags) against the current one; `*` matches only where
 * `anyAllowed` (DELETE: whatever the version), elsewhere it is as if no version were given. Weak
 * tags never match (strong comparison).
 */
export function checkIfMatch(
  header: string | undefined,
  current: string,
  what: string,
  anyAllowed = false,
): void {
  const tags = (header ?? '')
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  if (tags.length === 0 || (tags.includes('*') && !anyAllowed)) throw new PreconditionRequiredError(what);
  if (tags.includes('*')) return;
  if (!tags.includes(`"${current}"`)) throw new PreconditionFailedError(what, current);
}

/** How long a POST's first answer is replayed for its Idempotency-Key. */
export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

export interface StoredAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface Idempotency {
  keyId: string;
  key: string;
  requestHash: string;
}

const keyPattern = /^[\x21-\x7e]{1,255}$/;

/** The request's idempotency key, checked: 1 to 255 visible ASCII characters. */
export function idempotencyOf(
  header: string | undefined,
  keyId: string,
  method: string,
  path: string,
  body: unknown,
): Idempotency | undefined {
  if (header === undefined) return undefined;
  if (!keyPattern.test(header))
    throw new ValidationError([
      {
        field: 'Idempotency-Key',
        message: 'must be 1 to 255 visible ASCII characters (a UUID is a good key)',
      },
    ]);
  const requestHash = createHash('sha256')
    .update(`${method} ${path}\n${JSON.stringify(body)}`)
    .digest('base64url');
  return { keyId, key: header, requestHash };
}

/**
 * The answer kept for this key, if any, once expired ones are deleted; the same key with another
 * request is a 422. Run in the write's transaction, after the project's lock.
 */
export async function replayedAnswer(
  trx: Executor,
  idempotency: Idempotency,
  now: Date,
): Promise<StoredAnswer | undefined> {
  await trx
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', new Date(now.getTime() - idempotencyWindowMs).toISOString())
    .execute();
  const row = await trx
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('key_id', '=', idempotency.keyId)
    .where('idempotency_key', '=', idempotency.key)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.request_hash !== idempotency.requestHash) {
    throw new HttpError(
      422,
      'Unprocessable Content',
      'This Idempotency-Key was used with another request (method, path or body) in the last 24 hours: use a new key for a new request',
      { issues: [{ field: 'Idempotency-Key', message: 'already used for another request' }] },
    );
  }
  const { headers, body } = JSON.parse(row.answer) as { headers: Record<string, string>; body: unknown };
  return { statusCode: Number(row.status_code), headers, body };
}

/** Keeps the answer for its key, in the write's transaction. */
export async function keepAnswer(
  trx: Executor,
  idempotency: Idempotency,
  answer: StoredAnswer,
  now: Date,
): Promise<void> {
  await trx
    .insertInto('idempotency_keys')
    .values({
      key_id: idempotency.keyId,
      idempotency_key: idempotency.key,
      request_hash: idempotency.requestHash,
      status_code: answer.statusCode,
      answer: JSON.stringify({ headers: answer.headers, body: answer.body }),
      created_at: now.toISOString(),
    })
    .execute();
}
