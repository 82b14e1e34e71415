// `folio backup`: a consistent copy of an SQLite database taken while another connection writes
// page views, no overwrite without --force, one-line refusals (a bad path, PostgreSQL).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openDatabase } from '../../src/db/database.ts';
import { pageViewIdOf } from '../../src/db/page-view-rows.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { createProject } from '../../src/projects/service.ts';
import { factoryRow, insertRawPageViews } from '../analytics/support.ts';
import { postgresUrl, storedPageViewIds } from '../helpers.ts';
import { newDatabase, runCli, tempDir } from './support.ts';

test('backup: a copy taken while page views are written opens, passes integrity_check and holds every row committed before it began', async () => {
  const database = newDatabase();
  const db = openDatabase(database);
  let writing = true;
  try {
    await migrateToLatest(db);
    const project = await createProject(db, { name: 'Backup', slug: 'backup', description: '' });
    // Enough rows that the copy takes a while, so that the writes below overlap it.
    const insert = async (count: number, from: number) => {
      const rows = Array.from({ length: count }, (_, i) => ({
        ...factoryRow(project, { slug: 'x' }, from + i),
        session_id: `${'x'.repeat(200)}-${from + i}`,
      }));
      await insertRawPageViews(db.kysely, rows);
    };
    await insert(40_000, 0);
    let written = 40_000;
    const writer = (async () => {
      while (writing) {
        await insert(50, written);
        written += 50;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = await storedPageViewIds(db);
    const writtenBefore = written;
    const target = join(tempDir(), 'backup.db');
    const result = await runCli(database, 'backup', target, '--json');
    const writtenDuring = written - writtenBefore;
    writing = false;
    await writer;
    assert.equal(result.code, 0, result.stderr);
    const document = JSON.parse(result.stdout);
    assert.equal(document.file, target);
    assert.ok(writtenDuring > 0, 'no page view was written while the backup ran');

    const copy = new DatabaseSync(target, { readOnly: true });
    try {
      assert.deepEqual(
        copy
          .prepare('PRAGMA integrity_check')
          .all()
          .map((row) => row.integrity_check),
        ['ok'],
      );
      const ids = new Set(
        copy
          .prepare('SELECT day, created_ms, rid, id_text FROM page_view_rows')
          .all()
          .map((row) => pageViewIdOf(row as unknown as Parameters<typeof pageViewIdOf>[0])),
      );
      assert.ok(
        before.every((id) => ids.has(id)),
        'a page view committed before the backup is missing',
      );
      assert.ok(ids.size >= before.length && ids.size <= written, `${ids.size} rows`);
      const migrations = copy.prepare('SELECT count(*) AS n FROM kysely_migration').get();
      assert.ok(Number(migrations?.n) > 0);
    } finally {
      copy.close();
    }
  } finally {
    writing = false;
    await db.close();
  }
});

test('backup: an existing file is refused unless --force, and a refusal writes nothing', async () => {
  const database = newDatabase();
  const db = openDatabase(database);
  await migrateToLatest(db);
  await db.close();
  const target = join(tempDir(), 'backup.db');
  writeFileSync(target, 'an earlier file');
  const refused = await runCli(database, 'backup', target);
  assert.notEqual(refused.code, 0);
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, /^folio: .*exists.*--force.*\n$/);
  assert.equal(readFileSync(target, 'utf8'), 'an earlier file');

  const forced = await runCli(database, 'backup', target, '--force');
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /^Backed up /);
  const copy = new DatabaseSync(target, { readOnly: true });
  assert.deepEqual(
    copy
      .prepare('PRAGMA integrity_check')
      .all()
      .map((row) => row.integrity_check),
    ['ok'],
  );
  copy.close();
});

test('backup: a target in a missing folder, or a missing database, is a one-line error and a non-zero exit', async () => {
  const database = newDatabase();
  const db = openDatabase(database);
  await migrateToLatest(db);
  await db.close();
  const missingFolder = join(tempDir(), 'no', 'such', 'folder', 'backup.db');
  const bad = await runCli(database, 'backup', missingFolder);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /^folio: Cannot write .*does not exist\n$/);
  assert.equal(existsSync(missingFolder), false);

  const noDatabase = await runCli(join(tempDir(), 'missing.db'), 'backup', join(tempDir(), 'b.db'));
  assert.notEqual(noDatabase.code, 0);
  assert.match(noDatabase.stderr, /^folio: There is no SQLite database at .*\n$/);
});

test('backup: on PostgreSQL it refuses and points at pg_dump', { skip: postgresUrl === null }, async () => {
  const target = join(tempDir(), 'backup.db');
  const result = await runCli(postgresUrl!, 'backup', target);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /^folio: .*pg_dump -Fc.*pg_restore.*\n$/);
  assert.equal(existsSync(target), false);
});
