// Classifies a database driver's error (SQLite or PostgreSQL) as one the client should retry later,
// with the message it is told. Used by the error handler and by the health check.

function errorCodes(error: unknown): { code: unknown; primary: number | null } {
  const code = (error as { code?: unknown })?.code;
  const errcode = (error as { errcode?: unknown })?.errcode;
  // SQLite's primary result code is the low byte of the extended one.
  return { code, primary: typeof errcode === 'number' ? errcode & 0xff : null };
}

const noAnswerInTimeMessage = 'The database did not answer in time; try again shortly';

/**
 * The message for a database that accepts reads but refuses writes (disk full, read-only, SQLite's
 * write lock held by another process for longer than a write waits), or null: reads may still be
 * served.
 */
export function writeRefusalMessage(error: unknown): string | null {
  const { code, primary } = errorCodes(error);
  if (primary === 13 || code === '53100') return 'The database is out of disk space; try again later';
  if (primary === 8 || code === '25006') return 'The database is read-only; writes are refused for now';
  // SQLITE_BUSY: in WAL mode readers never wait for the writer, so only writes are refused.
  if (primary === 5) return noAnswerInTimeMessage;
  return null;
}

/**
 * The 503 message for an error of a database that cannot serve the request now, or null. Disk full
 * and read-only are named, so that an operator reading a client's report knows what to fix.
 */
export function databaseUnavailableMessage(error: unknown): string | null {
  const refusal = writeRefusalMessage(error);
  if (refusal !== null) return refusal;
  const { code, primary } = errorCodes(error);
  if (code === 'FOLIO_DB_TIMEOUT' || primary === 6) {
    return noAnswerInTimeMessage;
  }
  if (primary === 10 || primary === 14) return 'The database cannot be read or written; try again shortly';
  if (
    typeof code === 'string' &&
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'ENOTFOUND',
      'EPIPE',
      '57P01',
      '57P03',
      '08006',
      '08001',
      '08003',
      '53300',
    ].includes(code)
  ) {
    return 'The database cannot be reached; try again shortly';
  }
  if (/^Connection terminated/.test(String((error as Error)?.message))) {
    return 'The database cannot be reached; try again shortly';
  }
  return null;
}
