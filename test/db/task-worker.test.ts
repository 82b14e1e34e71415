// SQLite tasks in a worker thread (db/task-worker.ts): they run on the thread's own connection to
// the same file and see what the main connection committed; a failure keeps SQLite's codes, so
// that it is answered as the same kind of failure; a closed database starts no thread again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SqliteReadWorker } from '../../src/db/read-worker.ts';
import { backstopPages, SqliteCheckpointer } from '../../src/db/sqlite-checkpointer.ts';
import { SqliteConnection } from '../../src/db/sqlite-connection.ts';
import { SqliteTaskWorker } from '../../src/db/task-worker.ts';
import { databaseUnavailableMessage } from '../../src/db/database-errors.ts';
import { createTestDatabase, createTestProject } from '../helpers.ts';

const task = new URL('./fixtures/count-task.ts', import.meta.url);

test('a task runs in the worker thread and sees what the main connection committed', async () => {
  const database = await createTestDatabase('sqlite');
  try {
    const runTask = database.db.runTask;
    assert.ok(runTask, 'a SQLite file has a task thread');
    assert.deepEqual(await runTask(task, {}), { projects: 0, threaded: true });
    await createTestProject(database.db);
    assert.deepEqual(await runTask(task, {}), { projects: 1, threaded: true });
  } finally {
    await database.drop();
  }
});

test("the task thread's commits leave the checkpoints to the main thread's checkpointer", async () => {
  const database = await createTestDatabase('sqlite');
  try {
    // A roll-up commit writes thousands of pages: at SQLite's default of 1,000 pages, each such
    // commit would copy the WAL into the file itself, holding the write lock meanwhile.
    assert.deepEqual(await database.db.runTask!(task, { autoCheckpoint: true }), {
      autoCheckpointPages: backstopPages,
    });
    assert.ok(backstopPages > 1000);
  } finally {
    await database.drop();
  }
});

test("a task's failure keeps SQLite's codes (a full disk is still a full disk)", async () => {
  const database = await createTestDatabase('sqlite');
  try {
    const error = await database.db.runTask!(task, { fail: true }).catch((failure: unknown) => failure);
    assert.equal((error as { errcode?: number }).errcode, 13);
    assert.equal(databaseUnavailableMessage(error), 'The database is out of disk space; try again later');
    // The thread goes on serving.
    assert.deepEqual(await database.db.runTask!(task, {}), { projects: 0, threaded: true });
  } finally {
    await database.drop();
  }
});

test('after the database is closed, a task is refused and no thread starts again', async () => {
  const database = await createTestDatabase('sqlite');
  const runTask = database.db.runTask!;
  await runTask(task, {});
  await database.drop();
  await assert.rejects(runTask(task, {}), /closed/);
});

/** Resolves once `done()` holds, asking every 10 ms (what it waits for is not timed). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

test('an idle task thread ends, giving its memory back, and the next task starts another', async () => {
  const database = await createTestDatabase('sqlite');
  const worker = new SqliteTaskWorker(database.url, { busyWaitMs: 1000, idleMs: 50 });
  try {
    assert.equal(worker.running, false, 'started on the first task only');
    assert.deepEqual(await worker.run(task, {}), { projects: 0, threaded: true });
    assert.equal(worker.running, true);
    await until(() => !worker.running);
    await createTestProject(database.db);
    assert.deepEqual(await worker.run(task, {}), { projects: 1, threaded: true });
  } finally {
    await worker.close();
    await database.drop();
  }
});

test('an idle read worker ends, and the next query starts another', async () => {
  const database = await createTestDatabase('sqlite');
  const reader = new SqliteReadWorker(database.url, { idleMs: 50 });
  try {
    assert.equal(reader.running, false, 'started on the first query only');
    assert.deepEqual(await reader.all('select count(*) as n from projects', []), [{ n: 0 }]);
    await until(() => !reader.running);
    await createTestProject(database.db);
    assert.deepEqual(await reader.all('select count(*) as n from projects', []), [{ n: 1 }]);
  } finally {
    await reader.close();
    await database.drop();
  }
});

test('the checkpoint thread starts with the first write, ends once idle, and starts again with the next', async () => {
  const database = await createTestDatabase('sqlite');
  const connection = new SqliteConnection(database.url);
  const checkpointer = new SqliteCheckpointer(database.url, () => connection, { intervalMs: 10, idleMs: 50 });
  try {
    assert.equal(checkpointer.running, false);
    checkpointer.wake();
    assert.equal(checkpointer.running, true);
    await createTestProject(database.db);
    await until(() => !checkpointer.running);
    // Every frame was copied into the file before it ended.
    const [row] = connection.raw.prepare('PRAGMA wal_checkpoint(PASSIVE)').all() as Array<{
      log: number;
      checkpointed: number;
    }>;
    assert.equal(row!.checkpointed, row!.log);
    checkpointer.wake();
    assert.equal(checkpointer.running, true);
  } finally {
    await checkpointer.stop();
    connection.close();
    await database.drop();
  }
});
