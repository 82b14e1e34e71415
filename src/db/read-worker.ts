// Runs read queries of SQLite in worker threads, so that an expensive one (a search over every
// text of a large project, the count of a filter that matches most articles) never blocks the
// event loop: node:sqlite is synchronous, and one such query used to stall every other request
// for its whole duration. Each thread is started on first use and answers one query at a time, in
// order; with `threads` above one, a query goes to the thread with the fewest waiting (the first
// when all are free, so the others start only when queries overlap), so that one long search does
// not hold up the short ones behind it.
import { WorkerCalls } from './worker-calls.ts';

export class SqliteReadWorker {
  readonly #threads: WorkerCalls[];

  constructor(path: string, options: { idleMs?: number; threads?: number } = {}) {
    this.#threads = Array.from(
      { length: Math.max(1, options.threads ?? 1) },
      () =>
        new WorkerCalls(new URL('./read-worker-thread.ts', import.meta.url), { path }, 'SQLite read worker', {
          idleMs: options.idleMs,
          youngGenerationMb: 8,
        }),
    );
  }

  /** Whether a thread runs now (each ends after a while without queries). */
  get running(): boolean {
    return this.#threads.some((thread) => thread.running);
  }

  /** Threads running now. */
  get runningThreads(): number {
    return this.#threads.filter((thread) => thread.running).length;
  }

  all(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    let thread = this.#threads[0];
    for (const other of this.#threads) if (other.pending < thread.pending) thread = other;
    return thread.call({ sql, parameters }) as Promise<unknown[]>;
  }

  async close(): Promise<void> {
    await Promise.all(this.#threads.map((thread) => thread.close()));
  }
}
