// Runs read queries of SQLite in a worker thread, so that an expensive one (a search over every
// text of a large project, the count of a filter that matches most articles) never blocks the
// event loop: node:sqlite is synchronous, and one such query used to stall every other request
// for its whole duration. Started on first use; one query at a time, in order.
import { Worker } from 'node:worker_threads';

interface Pending {
  resolve: (rows: unknown[]) => void;
  reject: (error: Error) => void;
}

export class SqliteReadWorker {
  readonly #path: string;
  #worker: Worker | null = null;
  #nextId = 0;
  readonly #pending = new Map<number, Pending>();

  constructor(path: string) {
    this.#path = path;
  }

  all(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    const worker = this.#worker ?? this.#start();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ id, sql, parameters });
    });
  }

  #start(): Worker {
    const worker = new Worker(new URL('./read-worker-thread.ts', import.meta.url), {
      workerData: { path: this.#path },
    });
    worker.on('message', (message: { id: number; rows?: unknown[]; error?: Record<string, unknown> }) => {
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return;
      this.#pending.delete(message.id);
      if (this.#pending.size === 0) worker.unref();
      if (message.error)
        pending.reject(Object.assign(new Error(String(message.error.message)), message.error));
      else pending.resolve(message.rows!);
    });
    // A worker that dies (out of memory, a crash of the thread) fails what it held; the next
    // query starts a new one.
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = null;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SQLite read worker stopped (exit code ${code})`)));
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    if (worker) await worker.terminate();
  }
}
