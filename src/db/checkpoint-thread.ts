// The thread of the SQLite checkpointer (sqlite-checkpointer.ts): its own connection copies the WAL
// into the database file at a steady pace. node:sqlite is synchronous, so a checkpoint run by a
// commit on the main thread (SQLite's automatic one) held the event loop for its writes and fsync:
// measured on page-view ingest, commits averaged 4.9 ms, nearly all of it those checkpoints.
// PASSIVE never waits for readers or the writer; what it cannot copy now, a later one copies.
//
// A turn in which no connection committed (data_version unchanged) and whose last checkpoint copied
// every frame does nothing: at a blog's rate most turns have nothing new, and each checkpoint
// costs a scan of the WAL index and an fsync. For the same reason a checkpoint that found few
// frames waits twice as many turns before the next one (up to `maxPace`), and one that found many
// goes back to every turn: measured at 10 views a second, checkpointing every second cost 0.2 ms of
// CPU a view. Once nothing was committed for `idleMs`, the thread says so and ends (its isolate's
// memory with it); the next write starts it again.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const sqliteReadOnly = 8;
const sqliteIoError = 10;
const { path, intervalMs, idleMs } = workerData as { path: string; intervalMs: number; idleMs: number };
let database = new DatabaseSync(path, { timeout: 0 });
let checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let version = database.prepare('PRAGMA data_version');
let seenVersion: unknown = null;
let copiedAll = false;
let quietSince = Date.now();
/** Below this many frames in the WAL (about 4 MiB), a checkpoint's fixed cost outweighs its copying. */
const fewFrames = 1000;
const maxPace = 8;
/** Turns between checkpoints, and the turns still to wait before the next one. */
let pace = 1;
let waiting = 0;

function open(): void {
  database.close();
  database = new DatabaseSync(path, { timeout: 0 });
  checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  version = database.prepare('PRAGMA data_version');
  seenVersion = null;
}

const timer = setInterval(() => {
  try {
    const current = (version.get() as { data_version: number }).data_version;
    if (current === seenVersion && copiedAll) {
      if (Date.now() - quietSince < idleMs) return;
      clearInterval(timer);
      database.close();
      parentPort!.postMessage('idle');
      // Ends this thread only; the message above is delivered first.
      process.exit(0);
    }
    if (current !== seenVersion) {
      quietSince = Date.now();
      copiedAll = false;
    }
    seenVersion = current;
    if (waiting > 0) {
      waiting--;
      return;
    }
    const row = checkpoint.get() as { busy: number; log: number; checkpointed: number };
    copiedAll = row.busy === 0 && row.checkpointed >= row.log;
    pace = row.log < fewFrames ? Math.min(pace * 2, maxPace) : 1;
    waiting = pace - 1;
  } catch (error) {
    // Busy (another checkpoint, the CLI's) or a full or read-only disk: the next turn tries again,
    // and the writer's own automatic checkpoint is the backstop. A connection opened while the
    // file was read-only stays so, failing its checkpoints as I/O errors: the next turn tries on
    // a new one, which checkpoints once the file is writable again.
    copiedAll = false;
    const code = ((error as { errcode?: number }).errcode ?? 0) & 0xff;
    if (code === sqliteReadOnly || code === sqliteIoError) open();
  }
}, intervalMs);
