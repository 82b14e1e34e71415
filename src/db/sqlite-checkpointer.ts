// Checkpoints of a SQLite database in WAL mode, off the event loop: a worker thread
// (checkpoint-thread.ts) checkpoints every `intervalMs` (1 s: each checkpoint has a fixed cost, a
// scan of the WAL index and an fsync; profiled at 20 views/s with a turn of 250 ms, the thread was
// busy 0.8 s in 36 s, more than any other thread but the main one) while there are commits, and the writer's
// automatic checkpoint is raised to a backstop that only a stalled thread lets the WAL reach.
// Should the thread fail to start or die, the writer checkpoints by itself again, as SQLite does
// by default. The thread starts with the first write (`wake`), not at open: a server that only
// reads, or is idle, keeps no thread; it ends by itself once nothing was committed for `idleMs`.
import type { Worker } from 'node:worker_threads';
import type { SqliteConnection } from './sqlite-connection.ts';
import { startWorker } from './worker-script.ts';

const defaultAutoCheckpointPages = 1000;
/** About 40 MiB of WAL with 4 KiB pages. */
export const backstopPages = 10_000;

/** `writer`'s commits checkpoint only at the backstop: another connection's thread checkpoints. */
export function leaveCheckpointsToAnotherConnection(writer: SqliteConnection): void {
  writer.raw.exec(`PRAGMA wal_autocheckpoint = ${backstopPages}`);
}

export interface CheckpointerOptions {
  intervalMs?: number;
  /** How long without a commit before the thread ends (it starts again with the next write). */
  idleMs?: number;
}

export class SqliteCheckpointer {
  readonly #path: string;
  readonly #writer: () => SqliteConnection;
  readonly #intervalMs: number;
  readonly #idleMs: number;
  #worker: Worker | null = null;
  #stopped = false;
  #failed = false;

  /** `writer` is the connection whose checkpoints it takes (one opened again after a fault too). */
  constructor(path: string, writer: () => SqliteConnection, options: CheckpointerOptions = {}) {
    this.#path = path;
    this.#writer = writer;
    this.#intervalMs = options.intervalMs ?? 1000;
    this.#idleMs = options.idleMs ?? 30_000;
    this.configure(writer());
  }

  /** Whether the thread runs now. */
  get running(): boolean {
    return this.#worker !== null;
  }

  /** A write is about to be made: the thread runs from now on, until it has been idle. */
  wake(): void {
    if (this.#worker !== null || this.#stopped || this.#failed) return;
    const worker = startWorker(new URL('./checkpoint-thread.ts', import.meta.url), {
      workerData: { path: this.#path, intervalMs: this.#intervalMs, idleMs: this.#idleMs },
      // A connection and a timer: the smallest young generation does (measured: 16 MB by default).
      resourceLimits: { maxYoungGenerationSizeMb: 1 },
    });
    let idle = false;
    worker.on('message', (message) => {
      if (message !== 'idle') return;
      idle = true;
      if (this.#worker === worker) this.#worker = null;
    });
    const fallBack = () => {
      if (this.#worker === worker) this.#worker = null;
      if (this.#stopped || idle) return;
      this.#failed = true;
      if (this.#writer().raw.isOpen) this.configure(this.#writer());
    };
    worker.on('error', fallBack);
    worker.on('exit', fallBack);
    // It must not keep a finished process (the CLI) alive.
    worker.unref();
    this.#worker = worker;
  }

  /** Sets the automatic checkpoint of a writer: the backstop, or SQLite's own once the thread failed. */
  configure(writer: SqliteConnection): void {
    if (this.#failed) writer.raw.exec(`PRAGMA wal_autocheckpoint = ${defaultAutoCheckpointPages}`);
    else leaveCheckpointsToAnotherConnection(writer);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const worker = this.#worker;
    this.#worker = null;
    if (worker === null) return;
    // Held while it stops, so that the process cannot exit under this await.
    worker.ref();
    await worker.terminate();
  }
}
