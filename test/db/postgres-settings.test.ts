// The settings of PostgreSQL that Folio warns of at start: autovacuum (and the statistics it needs)
// turned off leaves the dead rows of page views, rollups and the roll-up queue unreclaimed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
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
