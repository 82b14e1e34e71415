// The settings of PostgreSQL that Folio warns of at start: autovacuum (and the statistics it needs)
// turned off leaves the dead rows of page views, rollups and the roll-up queue unreclaimed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { postgresSettingWarnings, settingWarnings } from '../../src/db/postgres-settings.ts';
import { createTestDatabase, postgresUrl } from '../helpers.ts';

test('autovacuum or track_counts off is warned of, by name; both on, nothing', () => {
  assert.deepEqual(
    settingWarnings(
      new Map([
        ['autovacuum', 'on'],
        ['track_counts', 'on'],
      ]),
    ),
    [],
  );
  const off = settingWarnings(
    new Map([
      ['autovacuum', 'off'],
      ['track_counts', 'on'],
    ]),
  );
  assert.equal(off.length, 1);
  assert.match(off[0], /autovacuum is off/);
  assert.match(off[0], /VACUUM/);
  const both = settingWarnings(
    new Map([
      ['autovacuum', 'off'],
      ['track_counts', 'off'],
    ]),
  );
  assert.deepEqual(
    both.map((warning) => /PostgreSQL's (\w+) is off/.exec(warning)?.[1]),
    ['autovacuum', 'track_counts'],
  );
});

test("the warnings read the server's own settings", { skip: postgresUrl === null }, async () => {
  const database = await createTestDatabase('postgres');
  const client = new pg.Client({ connectionString: database.url });
  try {
    await client.connect();
    const { rows } = await client.query<{ autovacuum: string; track_counts: string }>(
      "select current_setting('autovacuum') as autovacuum, current_setting('track_counts') as track_counts",
    );
    const expected = Object.entries(rows[0])
      .filter(([, setting]) => setting === 'off')
      .map(([name]) => name);
    const warned = (await postgresSettingWarnings(database.db.kysely)).map(
      (warning) => /PostgreSQL's (\w+) is off/.exec(warning)?.[1],
    );
    assert.deepEqual(warned, expected);
  } finally {
    await client.end();
    await database.drop();
  }
});

// JIT compilation cost Folio's heavy reads more than it saved (src/db/database.ts): the pool's own
// connections turn it off, every one of them; through a transaction-mode pooler the session is not
// Folio's, so the server's setting (ALTER DATABASE, README) stands.
test(
  "JIT is off on each of the pool's connections, and left to the server in transaction mode",
  { skip: postgresUrl === null },
  async () => {
    const database = await createTestDatabase('postgres');
    const client = new pg.Client({ connectionString: database.url });
    const pooled = openDatabase(database.url, { poolSize: 3 });
    const shared = openDatabase(database.url, {
      poolSize: 2,
      poolMode: 'transaction',
      listenUrl: database.url,
    });
    try {
      await client.connect();
      const server = (await client.query<{ jit: string }>("select current_setting('jit') as jit")).rows[0]
        .jit;
      // Three at once, on three connections (each holds its own until its sleep ends).
      const settings = await Promise.all(
        [1, 2, 3].map(async () => {
          const { rows } = await sql<{
            jit: string;
            pid: number;
          }>`select current_setting('jit') as jit, pg_backend_pid() as pid from pg_sleep(0.1)`.execute(
            pooled.kysely,
          );
          return rows[0];
        }),
      );
      assert.equal(new Set(settings.map((row) => row.pid)).size, 3);
      assert.deepEqual(
        settings.map((row) => row.jit),
        ['off', 'off', 'off'],
      );
      const { rows } = await sql<{ jit: string }>`select current_setting('jit') as jit`.execute(
        shared.kysely,
      );
      assert.equal(rows[0].jit, server);
      assert.equal(server, 'on', 'the test server runs with PostgreSQL’s default');
    } finally {
      await client.end();
      await pooled.close();
      await shared.close();
      await database.drop();
    }
  },
);
