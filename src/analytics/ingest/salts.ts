// One random salt per UTC day, kept in the database so that every instance hashes visitors with the
// same one; the first instance to need a day's salt creates it. Two days later the cleanup
// (retention.ts) deletes it with the day's visitor ids, so that no id can be recomputed or linked.
import type { Db } from '../../db/database.ts';
import { ensureSalt } from './queries/salts.ts';
import { newSalt } from './visitor.ts';
import { shiftDay } from '../days.ts';

export class DailySalts {
  readonly #db: Db;
  readonly #salts = new Map<string, Promise<string>>();

  constructor(db: Db) {
    this.#db = db;
  }

  saltOf(day: string): Promise<string> {
    let salt = this.#salts.get(day);
    if (salt === undefined) {
      salt = this.#load(day);
      this.#salts.set(day, salt);
      salt.catch(() => this.#salts.delete(day));
      const yesterday = shiftDay(day, -1);
      for (const known of this.#salts.keys()) if (known < yesterday) this.#salts.delete(known);
    }
    return salt;
  }

  #load(day: string): Promise<string> {
    return ensureSalt(this.#db.kysely, day, newSalt(), new Date().toISOString());
  }
}
