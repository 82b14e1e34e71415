// A consistent read of several queries (the figures of one statistics answer agree): a read-only
// transaction. PostgreSQL: repeatable read, so that every query sees the transaction's first
// snapshot. SQLite: a deferred transaction of reads only, on a connection of its own, which takes
// no write lock: it is answered while another process holds that lock or the file refuses writes.
import type { Db } from './database.ts';
import type { Executor } from './schema.ts';

export function readSnapshot<T>(db: Db, work: (trx: Executor) => Promise<T>): Promise<T> {
  const transaction = db.kysely.transaction().setAccessMode('read only');
  return (db.dialect === 'postgres' ? transaction.setIsolationLevel('repeatable read') : transaction).execute(
    work,
  );
}
