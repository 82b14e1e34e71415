// The thread of read-worker.ts: its own read-only connection to the SQLite file, answering one
// query at a time. WAL lets it read while the main connection writes; it sees committed data only.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { failureOf } from './worker-calls.ts';

const database = new DatabaseSync((workerData as { path: string }).path, { readOnly: true, timeout: 5000 });
const statements = new Map<string, StatementSync>();

parentPort!.on('message', (message: { id: number; sql: string; parameters: unknown[] }) => {
  try {
    let statement = statements.get(message.sql);
    if (statement === undefined) {
      if (statements.size >= 200) statements.delete(statements.keys().next().value as string);
      statement = database.prepare(message.sql);
      statements.set(message.sql, statement);
    }
    const rows = statement.all(...(message.parameters as never[]));
    parentPort!.postMessage({ id: message.id, result: rows });
  } catch (error) {
    parentPort!.postMessage(failureOf(message.id, error));
  }
});
