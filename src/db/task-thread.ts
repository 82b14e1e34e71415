// The thread of task-worker.ts: its own Db on the SQLite file (no checkpoints: the main thread's
// checkpointer does them), running one task at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { type DbTask, openDatabase } from './database.ts';
import { failureOf } from './worker-calls.ts';

const { path, busyWaitMs } = workerData as { path: string; busyWaitMs: number };
const db = openDatabase(path, { checkpoints: false, tasks: false, busyWaitMs });
let queue: Promise<void> = Promise.resolve();

parentPort!.on('message', (message: { id: number; module: string; input: unknown; close?: true }) => {
  queue = queue.then(async () => {
    if (message.close) {
      await db.close();
      process.exit(0);
    }
    try {
      const task = (await import(message.module)).default as DbTask<unknown, unknown>;
      parentPort!.postMessage({ id: message.id, result: await task(db, message.input) });
    } catch (error) {
      parentPort!.postMessage(failureOf(message.id, error));
    }
  });
});
