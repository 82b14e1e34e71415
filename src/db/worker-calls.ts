// Calls to a worker thread of the database layer (read-worker.ts, task-worker.ts): each message
// gets an id and its answer settles the call; an error keeps its code and errcode, which say what
// kind of failure it was (busy, full, read-only). The thread starts on the first call, holds the
// process only while a call is pending, ends once no call came for `idleMs` (its isolate's memory,
// 15 to 30 MB, with it: the next call starts a new one), and a thread that dies fails what it held
// (the next call starts a new one).
import type { Worker } from 'node:worker_threads';
import { startWorker } from './worker-script.ts';

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

interface Answer {
  id: number;
  result?: unknown;
  error?: Record<string, unknown>;
}

export interface WorkerOptions {
  /** How long the thread waits for a call before it ends (default 30 s). */
  idleMs?: number;
  /** The thread's young generation, MB (V8's default grows to 16 MB and more). */
  youngGenerationMb?: number;
  /** How an idle thread ends: sent `{ close: true }` (it closes its connections), else terminated. */
  graceful?: boolean;
}

export class WorkerCalls {
  readonly #script: URL;
  readonly #workerData: unknown;
  readonly #name: string;
  readonly #options: WorkerOptions;
  #worker: Worker | null = null;
  #idleTimer: NodeJS.Timeout | null = null;
  #closed = false;
  #nextId = 0;
  readonly #pending = new Map<number, Pending>();

  constructor(script: URL, workerData: unknown, name: string, options: WorkerOptions = {}) {
    this.#script = script;
    this.#workerData = workerData;
    this.#name = name;
    this.#options = options;
  }

  /** Whether the thread runs now. */
  get running(): boolean {
    return this.#worker !== null;
  }

  call(message: object): Promise<unknown> {
    // A late call (a timer's) after close must not start a thread again.
    if (this.#closed) return Promise.reject(new Error('the database is closed'));
    const worker = this.#worker ?? this.#start();
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) worker.ref();
      worker.postMessage({ ...message, id });
    });
  }

  #start(): Worker {
    const { youngGenerationMb } = this.#options;
    const worker = startWorker(this.#script, {
      workerData: this.#workerData,
      ...(youngGenerationMb === undefined
        ? {}
        : { resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb } }),
    });
    worker.on('message', (message: Answer) => {
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return;
      this.#pending.delete(message.id);
      if (this.#pending.size === 0) {
        worker.unref();
        this.#retireWhenIdle(worker);
      }
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

  #retireWhenIdle(worker: Worker): void {
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null;
      if (this.#worker !== worker || this.#pending.size > 0) return;
      // Detached first: its exit fails nothing, and the next call starts another thread.
      this.#worker = null;
      worker.removeAllListeners();
      worker.on('error', () => {});
      if (this.#options.graceful === true) worker.postMessage({ close: true });
      else void worker.terminate();
    }, this.#options.idleMs ?? 30_000);
    this.#idleTimer.unref();
  }

  /**
   * Ends the thread: at once, or with `graceful` after the calls sent before (the thread closes
   * its connections when it gets `{ close: true }`, then exits).
   */
  async close(options: { graceful?: boolean } = {}): Promise<void> {
    this.#closed = true;
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
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
