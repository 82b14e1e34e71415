// Worker threads started by db/worker-script.ts run their TypeScript (script and imports) as the
// main thread stripped it, without loading Node's type stripper in the thread (17 MB of RSS each).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { startWorker } from '../../src/db/worker-script.ts';
import { createTestDatabase } from '../helpers.ts';

const script = new URL('./fixtures/stripper-check.ts', import.meta.url);

async function answerOf(worker: Worker): Promise<{ value: number; stripperLoaded: boolean }> {
  const [answer] = (await once(worker, 'message')) as [{ value: number; stripperLoaded: boolean }];
  await worker.terminate();
  return answer;
}

test('a worker started on a TypeScript script runs it and its imports without the type stripper', async () => {
  const worker = startWorker(script);
  assert.equal(worker.threadName, 'stripper-check');
  assert.deepEqual(await answerOf(worker), { value: 42, stripperLoaded: false });
});

test('a worker started by Node alone on the same script loads the type stripper (what startWorker avoids)', async () => {
  assert.deepEqual(await answerOf(new Worker(script)), { value: 42, stripperLoaded: true });
});

test("the task thread runs its first task module (and the thread's own code) without the type stripper", async () => {
  const database = await createTestDatabase('sqlite');
  try {
    assert.equal(
      await database.db.runTask!(new URL('./fixtures/stripper-task.ts', import.meta.url), null),
      false,
    );
  } finally {
    await database.drop();
  }
});
