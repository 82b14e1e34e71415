// The first start of a new installation: a `demo` project loaded from examples/content, so that a
// new user has something to read at once. Only on the default database, never when a project
// exists; its key is shown on the terminal only, never in the JSON log. Beside server.ts, above
// the features, since it fills a project with content.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import { defaultDatabaseUrl, isPostgresUrl } from './config.ts';
import type { Db } from './db/database.ts';
import { resolveDatabaseUrl } from './db/database-location.ts';
import { countProjects } from './projects/queries.ts';
import { createApiKey, createProject } from './projects/service.ts';

const run = promisify(execFile);

export const demoContentPath = fileURLToPath(new URL('../examples/content', import.meta.url));

export interface DatabaseAtStart {
  /** DATABASE_URL unset (or naming the default file): the only database that gets the demo. */
  isDefault: boolean;
  /** The SQLite file did not exist before this start. */
  isNew: boolean;
  /** The SQLite file's absolute path; null for PostgreSQL. */
  path: string | null;
}

/** Looked at before the database is opened, which creates a missing SQLite file. */
export function inspectDatabase(databaseUrl: string): DatabaseAtStart {
  if (isPostgresUrl(databaseUrl)) return { isDefault: false, isNew: false, path: null };
  const file = databaseUrl.startsWith('file:') ? databaseUrl.slice('file:'.length) : databaseUrl;
  const path = file === ':memory:' ? null : resolve(file);
  return {
    // The CLI resolves the default path against the project root, wherever it is run from.
    isDefault: path !== null && path === resolveDatabaseUrl(defaultDatabaseUrl),
    isNew: path === null || !existsSync(path),
    path,
  };
}

/** Where the key may be shown: a terminal (stderr when it is one), never the log stream. */
export interface Terminal {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * After the server listens: on the default database with no project, creates the demo project;
 * its secret key is created and shown only when `terminal` is a TTY (else the log says how to get
 * one). An explicitly named database that did not exist stays empty, and the log says so.
 */
export async function welcome(
  db: Db,
  base: string,
  log: FastifyBaseLogger,
  database: DatabaseAtStart,
  options: { demo: boolean; terminal?: Terminal },
): Promise<void> {
  // The default database is a file: its path is known.
  if (!database.isDefault || database.path === null) {
    if (database.isNew && database.path !== null) {
      log.warn(
        { database: database.path },
        'DATABASE_URL names a file that did not exist: created an empty database (no demo project; create one with `folio projects create`)',
      );
    }
    return;
  }
  if (!options.demo) return;
  const terminal = options.terminal ?? process.stderr;
  const demo = await createDemoProjectIfEmpty(db, base, {
    withKey: terminal.isTTY === true,
    databaseUrl: database.path,
  });
  if (demo === null) return;
  if (demo.key === null) {
    log.info(
      { project: 'demo' },
      'created the demo project; get a key for it with `npx folio keys create --project demo`',
    );
    return;
  }
  terminal.write(
    [
      '',
      `Folio is serving the demo project at ${base}`,
      '',
      `  Secret API key (shown once, keep it): ${demo.key}`,
      '',
      '  Try it:',
      `    curl -H 'X-API-Key: ${demo.key}' '${base}/v1/articles?limit=3'`,
      '',
      `  API reference: ${base}/docs`,
      '',
      '',
    ].join('\n'),
  );
}

/**
 * The demo is imported by `folio import` in a child process, on the database at `databaseUrl`: the
 * import pipeline, its parsers and the memory their work leaves with the allocator end with that
 * process. In a thread of this process (SQLite's task thread, as before) the thread's heap ended
 * with it, but the malloc arena it had filled stayed (`npm run bench -- memory`: idle RSS after a
 * first start 118–128 MB, after a second, which imports nothing, 111–113; now 111 after both).
 */
async function importDemo(databaseUrl: string): Promise<void> {
  const command = fileURLToPath(new URL('./cli/folio.js', import.meta.url));
  const args = [command, 'import', '--json', '--project', 'demo', demoContentPath];
  try {
    await run(process.execPath, args, { env: { ...process.env, DATABASE_URL: databaseUrl } });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`the demo's import failed: ${stderr?.trim() || (error as Error).message}`, {
      cause: error,
    });
  }
}

/** `databaseUrl`: the database `db` opened (a file or PostgreSQL), for the import's process. */
export async function createDemoProjectIfEmpty(
  db: Db,
  siteUrl: string,
  options: { withKey: boolean; databaseUrl: string },
): Promise<{ key: string | null } | null> {
  if ((await countProjects(db.kysely)) > 0) return null;
  try {
    await createProject(db, {
      name: 'Folio Field Notes',
      slug: 'demo',
      description:
        'Notes from the team that builds Folio: engineering, writing and analytics without cookies.',
      siteUrl,
    });
  } catch {
    // Another instance started at the same moment and created it.
    return null;
  }
  await importDemo(options.databaseUrl);
  if (!options.withKey) return { key: null };
  const { key } = await createApiKey(db, 'demo', { kind: 'secret', name: 'demo key' });
  return { key };
}
