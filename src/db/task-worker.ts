// Runs tasks of the features on a SQLite database in a worker thread with its own connections to
// the same file, so that long CPU work (the analytics roll-up: about 80 µs of JavaScript and SQLite
// per page view) uses another core instead of the event loop. A task is a module whose default
// export takes the thread's Db and an input and resolves with a result; both are copied between the
// threads. The thread starts on first use, runs one task at a time in order, and ends with the Db.
import { Worker } from 'node:worker_threads';

/** The default export of a task module. */
export type DbTask<I, O> = (db: import('./database.ts').Db, input: I) => Promise<O>;

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

export class SqliteTaskWorker {
  readonly #path: string;
  #worker: Worker | null = null;
  #closed = false;
  #nextId = 0;
  readonly #pending = new Map<number, Pending>();

  constructor(path: string) {
    this.#path = path;
  }

  run(module: URL, input: unknown): Promise<unknown> {
    // A late task (a timer's) after the database was closed must not start a thread again.
    if (this.#closed) return Promise.reject(new Error('the database is closed'));
    const worker = this.#worker ?? this.#start();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ id, module: module.href, input });
    });
  }

  #start(): Worker {
    const worker = new Worker(new URL('./task-thread.ts', import.meta.url), {
      workerData: { path: this.#path },
    });
    worker.on('message', (message: { id: number; result?: unknown; error?: Record<string, unknown> }) => {
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return;
      this.#pending.delete(message.id);
      if (this.#pending.size === 0) worker.unref();
      // The error keeps its code and errcode, which say what kind of failure it was (busy, full).
      if (message.error)
        pending.reject(Object.assign(new Error(String(message.error.message)), message.error));
      else pending.resolve(message.result);
    });
    // A thread that dies fails what it held; the next task starts a new one.
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = null;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SQLite task worker stopped (exit code ${code})`)));
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = null;
    if (worker === null) return;
    // Held while it stops, so that the process cannot exit under this await.
    worker.ref();
    worker.postMessage({ close: true });
    await new Promise((resolve) => worker.once('exit', resolve));
  }
}
