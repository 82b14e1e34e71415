// What every command of the `folio` CLI shares, handed by main.ts to the commands kept in files of
// their own (so that they need not import main.ts, which imports them).
import type { Command } from 'commander';
import type { Db } from '../db/database.ts';

export interface CliTools {
  /** DATABASE_URL as the CLI uses it: a relative SQLite path resolved against the project root. */
  databaseUrl(): string;
  /** Prints `document` as JSON with --json, else `text`. */
  print(output: { json: boolean }, document: unknown, text: string): void;
  /** Opens the configured database, migrated, runs `work`, and always closes it. */
  withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /** Adds the --json option. */
  jsonOption(command: Command): Command;
}

/** A command's refusal (a missing --yes, an option that needs another): reported as its message, exit 1. */
export class CliError extends Error {
  readonly details: Record<string, unknown>;

  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.details = details;
  }
}
