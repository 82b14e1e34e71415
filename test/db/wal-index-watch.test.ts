// The WAL index's watch (db/wal-index-watch.ts), and the keys' counter it spares a read of
// (NodeSqliteDatabase.keysStamp): read again after any commit of any connection, never while
// nothing committed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SqliteConnection } from '../../src/db/sqlite-connection.ts';
import { WalIndexWatch } from '../../src/db/wal-index-watch.ts';
import { openDatabase } from '../../src/db/database.ts';
import { sql } from 'kysely';
import { createApiKey, revokeApiKey } from '../../src/projects/service.ts';
import { createTestDatabase, createTestProject } from '../helpers.ts';

describe('WAL index watch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-wal-watch-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('says "unchanged" until a connection, this one or another, commits; reads change nothing', () => {
    const path = join(dir, 'watched.db');
    const writer = new DatabaseSync(path);
    writer.exec('PRAGMA journal_mode = WAL');
    writer.exec('create table t (n integer)');
    const other = new DatabaseSync(path);
    const watch = new WalIndexWatch(path);
    try {
      assert.equal(watch.unchanged(), false, 'the first look has nothing to compare with');
      assert.equal(watch.unchanged(), true);
      writer.exec('insert into t values (1)');
      assert.equal(watch.unchanged(), false);
      assert.equal(watch.unchanged(), true);
      assert.equal(other.prepare('select count(*) as n from t').get()?.n, 1);
      other.exec('begin; select * from t; commit');
      assert.equal(watch.unchanged(), true, 'a read committed nothing');
      other.exec('insert into t values (2)');
      assert.equal(watch.unchanged(), false);
      // A checkpoint that starts the WAL over, then a commit that lands at the WAL's start.
      writer.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      writer.exec('insert into t values (3)');
      assert.equal(watch.unchanged(), false);
      watch.forget();
      assert.equal(watch.unchanged(), false, 'forgotten: the next look says "changed"');
      assert.equal(watch.unchanged(), true);
    } finally {
      watch.close();
      other.close();
      writer.close();
    }
  });

  test('a database with no WAL index (not in WAL mode) always looks changed', () => {
    const path = join(dir, 'journal.db');
    const db = new DatabaseSync(path);
    db.exec('create table t (n integer)');
    const watch = new WalIndexWatch(path);
    try {
      assert.equal(watch.unchanged(), false);
      assert.equal(watch.unchanged(), false);
    } finally {
      watch.close();
      db.close();
    }
  });
});

describe('the keys counter on SQLite', () => {
  test('is read again after any commit, not while nothing committed, and changes with a key', async () => {
    const database = await createTestDatabase('sqlite');
    const reads = countCounterReads();
    try {
      const { db } = database;
      const { project, keyId } = await createTestProject(db);
      const first = db.keysStamp();
      assert.notEqual(first, null);
      await nextTurn();
      const before = reads.count();
      for (let turn = 0; turn < 5; turn++) {
        assert.equal(db.keysStamp(), first);
        await nextTurn();
      }
      assert.equal(reads.count(), before, 'the counter was read though nothing committed');
      // A commit that changes no project or key, by another connection: read again, same answer.
      const other = openDatabase(database.url);
      const raw = new DatabaseSync(database.url);
      try {
        raw.exec('create table unrelated (n integer); insert into unrelated values (1)');
        assert.equal(db.keysStamp(), first);
        assert.equal(reads.count(), before + 1);
        await nextTurn();
        assert.equal(db.keysStamp(), first);
        assert.equal(reads.count(), before + 1);
        await nextTurn();
        // A key revoked and one created by another handle: the next turn's stamp differs.
        await revokeApiKey(other, keyId);
        const changed = db.keysStamp();
        assert.notEqual(changed, first);
        await nextTurn();
        await createApiKey(other, project.slug, { kind: 'secret' });
        assert.notEqual(db.keysStamp(), changed);
      } finally {
        raw.close();
        await other.close();
      }
    } finally {
      reads.restore();
      await database.drop();
    }
  });
});

describe('the keys counter after commits of the handle itself', () => {
  test('is not read again after a commit of its own writer that names no key table, and is after any other', async () => {
    const database = await createTestDatabase('sqlite');
    const reads = countCounterReads();
    try {
      const { db } = database;
      const { keyId } = await createTestProject(db);
      await sql`create table own_writes (n integer)`.execute(db.kysely);
      const first = db.keysStamp();
      assert.notEqual(first, null);
      await nextTurn();
      const before = reads.count();
      // Commits of the writer that change no project or key: page views, in production.
      for (let n = 0; n < 3; n++) {
        await sql`insert into own_writes values (${n})`.execute(db.kysely);
        await nextTurn();
        assert.equal(db.keysStamp(), first);
      }
      assert.equal(reads.count(), before, 'the counter was read again after a commit of the writer');
      // Another connection's commit that changes nothing: read again once, same answer.
      const raw = new DatabaseSync(database.url);
      try {
        raw.exec('insert into own_writes values (10)');
        await nextTurn();
        assert.equal(db.keysStamp(), first);
        assert.equal(reads.count(), before + 1);
        // A key revoked by another connection, then by this handle: each is seen at once.
        raw.prepare('update api_keys set revoked_at = ? where id = ?').run(new Date().toISOString(), keyId);
        await nextTurn();
        const revoked = db.keysStamp();
        assert.notEqual(revoked, first);
        await createApiKey(
          db,
          (await db.kysely.selectFrom('projects').select('slug').executeTakeFirstOrThrow()).slug,
          {
            kind: 'public',
          },
        );
        assert.notEqual(
          db.keysStamp(),
          revoked,
          'a key created by this handle was not seen in the same turn',
        );
      } finally {
        raw.close();
      }
    } finally {
      reads.restore();
      await database.drop();
    }
  });
});

/** Counts the statements prepared or fetched from the cache that read the keys' counter. */
function countCounterReads(): { count: () => number; restore: () => void } {
  const prepare = SqliteConnection.prototype.prepare;
  let count = 0;
  SqliteConnection.prototype.prepare = function (this: SqliteConnection, sql: string) {
    if (sql.includes('from key_changes')) count++;
    return prepare.call(this, sql);
  };
  return { count: () => count, restore: () => (SqliteConnection.prototype.prepare = prepare) };
}
