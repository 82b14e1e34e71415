// Runs read queries of SQLite in a worker thread, so that an expensive one (a search over every
// text of a large project, the count of a filter that matches most articles) never blocks the
// event loop: node:sqlite is synchronous, and one such query used to stall every other request
// for its whole duration. Started on first use; one query at a time, in order.
import { WorkerCalls } from './worker-calls.ts';

export class SqliteReadWorker {
  readonly #calls: WorkerCalls;

  constructor(path: string, options: { idleMs?: number } = {}) {
    this.#calls = new WorkerCalls(
      new URL('./read-worker-thread.ts', import.meta.url),
      { path },
      'SQLite read worker',
      { idleMs: options.idleMs, youngGenerationMb: 8 },
    );
  }

  /** Whether the thread runs now (it ends after a while without queries). */
  get running(): boolean {
    return this.#calls.running;
  }

  all(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    return this.#calls.call({ sql, parameters }) as Promise<unknown[]>;
  }

  close(): Promise<void> {
    return this.#calls.close();
  }
}
