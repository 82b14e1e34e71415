// A consistent copy of an SQLite database while servers read and write it: `VACUUM INTO` copies
// one read snapshot in one statement, so writers go on meanwhile (WAL) and never make it start over,
// as a stepped online backup would at each write.
import { randomBytes } from 'node:crypto';
import { linkSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

export class BackupTargetExistsError extends Error {}

/**
 * Copies the database at `source` into `target`: every transaction committed before the copy began
 * and none after, as one compacted file in rollback-journal mode. The copy is written beside the
 * target under another name and put in place only once complete, so a failed backup never leaves a
 * partial file nor harms an earlier backup; an existing target is replaced only with `overwrite`.
 */
export function backupSqlite(source: string, target: string, options: { overwrite?: boolean } = {}): void {
  const partial = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.partial`);
  try {
    // Read-only: the copy never changes the database it copies.
    const connection = new DatabaseSync(source, { readOnly: true, timeout: 30_000 });
    try {
      connection.prepare('VACUUM INTO ?').run(partial);
    } finally {
      connection.close();
    }
    if (options.overwrite) renameSync(partial, target);
    else {
      // A hard link fails when the target exists, with no moment where another file could be lost.
      try {
        linkSync(partial, target);
      } catch (error) {
        if ((error as { code?: string }).code === 'EEXIST')
          throw new BackupTargetExistsError(
            `${target} exists: choose another file, or pass --force to replace it`,
          );
        throw error;
      }
    }
  } finally {
    rmSync(partial, { force: true });
  }
}
