// Checkpoints of a SQLite database in WAL mode, off the event loop: a worker thread
// (checkpoint-thread.ts) checkpoints every `intervalMs`, and the writer's automatic checkpoint is
// raised to a backstop that only a stalled thread lets the WAL reach. Should the thread fail to
// start or die, the writer checkpoints by itself again, as SQLite does by default.
import { Worker } from 'node:worker_threads';
import type { SqliteConnection } from './sqlite-connection.ts';

const defaultAutoCheckpointPages = 1000;
/** About 40 MiB of WAL with 4 KiB pages. */
export const backstopPages = 10_000;

/** `writer`'s commits checkpoint only at the backstop: another connection's thread checkpoints. */
export function leaveCheckpointsToAnotherConnection(writer: SqliteConnection): void {
  writer.raw.exec(`PRAGMA wal_autocheckpoint = ${backstopPages}`);
}

export class SqliteCheckpointer {
  readonly #worker: Worker;
  #stopped = false;
  #failed = false;

  /** `writer` is the connection whose checkpoints it takes (one opened again after a fault too). */
  constructor(path: string, writer: () => SqliteConnection, intervalMs = 250) {
    this.configure(writer());
    this.#worker = new Worker(new URL('./checkpoint-thread.ts', import.meta.url), {
      workerData: { path, intervalMs },
    });
    const fallBack = () => {
      if (this.#stopped) return;
      this.#failed = true;
      if (writer().raw.isOpen) this.configure(writer());
    };
    this.#worker.on('error', fallBack);
    this.#worker.on('exit', fallBack);
    // It must not keep a finished process (the CLI) alive.
    this.#worker.unref();
  }

  /** Sets the automatic checkpoint of a writer: the backstop, or SQLite's own once the thread failed. */
  configure(writer: SqliteConnection): void {
    if (this.#failed) writer.raw.exec(`PRAGMA wal_autocheckpoint = ${defaultAutoCheckpointPages}`);
    else leaveCheckpointsToAnotherConnection(writer);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    // Held while it stops, so that the process cannot exit under this await.
    this.#worker.ref();
    await this.#worker.terminate();
  }
}
