// The database's health as the process sees it: a suspicion is checked at once, a failed check is
// retried after 0.1 s, then twice as long each time up to 2 s (each ±25%), and each change of state
// is told once. Timers are mocked: the test says which checks run, never how fast anything is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DatabaseHealth, DatabaseUnavailableError, type HealthState } from '../../src/db/database-health.ts';

const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('health: down after a failed check, retried with a growing delay up to 2 s, up at the first success', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  let reachable = false;
  let checks = 0;
  const health = new DatabaseHealth(async () => {
    checks++;
    if (!reachable) throw refused;
  });
  t.after(() => health.close());
  const changes: HealthState[] = [];
  health.onChange((state) => changes.push(state));

  health.suspect();
  await settle();
  assert.equal(checks, 1);
  assert.equal(health.up, false);
  // No host, port or message of the driver: /ready shows the reason to anyone.
  assert.equal(health.state().reason, 'The database cannot be reached (connection refused)');
  assert.throws(
    () => health.assertUp(),
    (error: Error) => {
      assert.ok(error instanceof DatabaseUnavailableError);
      assert.equal((error as DatabaseUnavailableError).code, '08006');
      return true;
    },
  );

  // The n-th retry comes between 0.75 and 1.25 times min(100 ms × 2^(n-1), 2000 ms) after the last.
  for (let retry = 1; retry <= 8; retry++) {
    const delay = Math.min(100 * 2 ** (retry - 1), 2000);
    t.mock.timers.tick(delay * 0.75 - 1);
    await settle();
    assert.equal(checks, retry, `retry ${retry} came early`);
    t.mock.timers.tick(delay * 0.5 + 1);
    await settle();
    assert.equal(checks, retry + 1, `retry ${retry} came late`);
  }
  // Suspicions while down start no check of their own.
  health.suspect();
  await settle();
  assert.equal(checks, 9);

  reachable = true;
  t.mock.timers.tick(2500);
  await settle();
  assert.equal(health.up, true);
  assert.doesNotThrow(() => health.assertUp());
  assert.deepEqual(
    changes.map((state) => [state.up, state.outages]),
    [
      [false, 1],
      [true, 1],
    ],
  );
  // Up again: no more checks until something fails.
  t.mock.timers.tick(10_000);
  await settle();
  assert.equal(checks, 10);
});

test('health: a suspicion the check does not confirm changes nothing', async () => {
  let checks = 0;
  const health = new DatabaseHealth(async () => {
    checks++;
  });
  const changes: HealthState[] = [];
  health.onChange((state) => changes.push(state));
  health.suspect();
  health.suspect();
  const state = await health.checkNow();
  assert.equal(state.up, true);
  assert.equal(state.outages, 0);
  assert.equal(checks, 1, 'suspicions during a check join it');
  assert.deepEqual(changes, []);
  health.close();
});
