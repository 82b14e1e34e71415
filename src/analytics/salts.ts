// One random salt per UTC day, kept in the database so that every instance hashes visitors with the
// same one; the first instance to need a day's salt creates it. Two days later it is deleted, with
// the day's set of visitor ids, so that no id can be recomputed or linked afterwards.
import type { Db } from '../db/database.ts';
import { ensureSalt, forgetDaysBefore } from './queries/salts.ts';
import { newSalt, shiftDay } from './visitor.ts';

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

  async #load(day: string): Promise<string> {
    const salt = await ensureSalt(this.#db.kysely, day, newSalt(), new Date().toISOString());
    // The salt of day D lives through D + 1 and is deleted from D + 2 on.
    await forgetDaysBefore(this.#db.kysely, shiftDay(day, -1)).catch(() => {});
    return salt;
  }
}
