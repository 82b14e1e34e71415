// Runs tasks of the features on a SQLite database in a worker thread with its own connections to
// the same file, so that long CPU work (the analytics roll-up: about 85 µs of JavaScript and
// SQLite per page view) uses another core instead of the event loop. A task is a module whose
// default export (a DbTask, declared in database.ts) takes the thread's Db and an input and
// resolves with a result; both are copied between the threads. One task at a time, in order; the
// thread ends with the Db.
import { WorkerCalls } from './worker-calls.ts';
import { handOverToWorkers } from './worker-script.ts';

export class SqliteTaskWorker {
  readonly #calls: WorkerCalls;

  /** `busyWaitMs`: the thread's writes wait for another process's write lock as the caller's do. */
  constructor(path: string, options: { busyWaitMs: number; idleMs?: number }) {
    this.#calls = new WorkerCalls(
      new URL('./task-thread.ts', import.meta.url),
      { path, busyWaitMs: options.busyWaitMs },
      'SQLite task worker',
      { graceful: true, idleMs: options.idleMs, youngGenerationMb: 8 },
    );
  }

  run(module: URL, input: unknown): Promise<unknown> {
    // Before the thread starts (on this first call), so that it imports the task without stripping it.
    handOverToWorkers(module);
    return this.#calls.call({ module: module.href, input });
  }

  /** Whether the thread runs now (it ends after a while without tasks). */
  get running(): boolean {
    return this.#calls.running;
  }

  /** After the tasks sent before: the thread closes its connections cleanly. */
  close(): Promise<void> {
    return this.#calls.close({ graceful: true });
  }
}
