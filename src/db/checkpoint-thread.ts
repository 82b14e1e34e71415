// The thread of the SQLite checkpointer (sqlite-checkpointer.ts): its own connection copies the WAL
// into the database file at a steady pace. node:sqlite is synchronous, so a checkpoint run by a
// commit on the main thread (SQLite's automatic one) held the event loop for its writes and fsync:
// measured on page-view ingest, commits averaged 4.9 ms, nearly all of it those checkpoints.
// PASSIVE never waits for readers or the writer; what it cannot copy now, a later one copies.
import { DatabaseSync } from 'node:sqlite';
import { workerData } from 'node:worker_threads';

const sqliteReadOnly = 8;
const sqliteIoError = 10;
const { path, intervalMs } = workerData as { path: string; intervalMs: number };
let database = new DatabaseSync(path, { timeout: 0 });
let checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');

setInterval(() => {
  try {
    checkpoint.all();
  } catch (error) {
    // Busy (another checkpoint, the CLI's) or a full or read-only disk: the next turn tries again,
    // and the writer's own automatic checkpoint is the backstop. A connection opened while the
    // file was read-only stays so, failing its checkpoints as I/O errors: the next turn tries on
    // a new one, which checkpoints once the file is writable again.
    const code = ((error as { errcode?: number }).errcode ?? 0) & 0xff;
    if (code === sqliteReadOnly || code === sqliteIoError) {
      database.close();
      database = new DatabaseSync(path, { timeout: 0 });
      checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    }
  }
}, intervalMs);
