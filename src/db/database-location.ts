// Where the CLI finds its SQLite database, wherever in a project it is run from: a relative path
// (the default `./data/folio.db` included) is relative to the project root, the nearest folder at
// or above the working directory that holds a package.json (else the working directory itself).
// Absolute paths and postgres:// URLs are used as they are.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isPostgresUrl } from '../config.ts';

export function projectRoot(cwd: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}

export function resolveDatabaseUrl(databaseUrl: string, cwd: string = process.cwd()): string {
  if (isPostgresUrl(databaseUrl) || isAbsolute(databaseUrl) || databaseUrl === ':memory:') return databaseUrl;
  return resolve(projectRoot(cwd), databaseUrl);
}
