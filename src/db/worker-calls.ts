// Calls to a worker thread of the database layer (read-worker.ts, task-worker.ts): each message
// gets an id and its answer settles the call; an error keeps its code and errcode, which say what
// kind of failure it was (busy, full, read-only). The thread starts on the first call, holds the
// process only while a call is pending, and a thread that dies fails what it held (the next call
// starts a new one).
import { Worker } from 'node:worker_threads';

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

interface Answer {
  id: number;
  result?: unknown;
  error?: Record<string, unknown>;
}

export class WorkerCalls {
  readonly #script: URL;
  readonly #workerData: unknown;
  readonly #name: string;
  #worker: Worker | null = null;
  #closed = false;
  #nextId = 0;
  readonly #pending = new Map<number, Pending>();

  constructor(script: URL, workerData: unknown, name: string) {
    this.#script = script;
    this.#workerData = workerData;
    this.#name = name;
  }

  call(message: object): Promise<unknown> {
    // A late call (a timer's) after close must not start a thread again.
    if (this.#closed) return Promise.reject(new Error('the database is closed'));
    const worker = this.#worker ?? this.#start();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ ...message, id });
    });
  }

  #start(): Worker {
    const worker = new Worker(this.#script, { workerData: this.#workerData });
    worker.on('message', (message: Answer) => {
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return;
      this.#pending.delete(message.id);
      if (this.#pending.size === 0) worker.unref();
      if (message.error)
        pending.reject(Object.assign(new Error(String(message.error.message)), message.error));
      else pending.resolve(message.result);
    });
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = null;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the ${this.#name} stopped (exit code ${code})`)));
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  /**
   * Ends the thread: at once, or with `graceful` after the calls sent before (the thread closes
   * its connections when it gets `{ close: true }`, then exits).
   */
  async close(options: { graceful?: boolean } = {}): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = null;
    if (worker === null) return;
    // Held while it stops, so that the process cannot exit under this await.
    worker.ref();
    if (!options.graceful) {
      await worker.terminate();
      return;
    }
    worker.postMessage({ close: true });
    await new Promise((resolve) => worker.once('exit', resolve));
  }
}

/** What a thread posts for a failed call. */
export function failureOf(id: number, error: unknown): Answer {
  const { message, code, errcode, errstr } = error as Error & Record<string, unknown>;
  return { id, error: { message, code, errcode, errstr } };
}
