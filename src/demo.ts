// The first start of a new installation: a `demo` project loaded from examples/content, so that a
// new user has something to read at once. Only on the default database, never when a project
// exists; its key is shown on the terminal only, never in the JSON log. Beside server.ts, above
// the features, since it fills a project with content.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { defaultDatabaseUrl, isPostgresUrl } from './config.ts';
import type { Db } from './db/database.ts';
import { resolveDatabaseUrl } from './db/database-location.ts';
import { countProjects } from './projects/queries.ts';
import { createApiKey, createProject } from './projects/service.ts';

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
  if (!database.isDefault) {
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
  const demo = await createDemoProjectIfEmpty(db, base, { withKey: terminal.isTTY === true });
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
 * The import pipeline and its parsers are loaded only when there is a demo to import, and on
 * SQLite in the task thread: the server's heap never holds them (measured: 6 MB of live heap less after a first start).
 */
async function importDemo(db: Db): Promise<void> {
  const input = { project: 'demo', path: demoContentPath };
  if (db.runTask !== null) {
    await db.runTask(new URL('./demo-import.ts', import.meta.url), input);
    return;
  }
  const { default: importInThisThread } = await import('./demo-import.ts');
  await importInThisThread(db, input);
}

export async function createDemoProjectIfEmpty(
  db: Db,
  siteUrl: string,
  options: { withKey: boolean } = { withKey: true },
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
  await importDemo(db);
  if (!options.withKey) return { key: null };
  const { key } = await createApiKey(db, 'demo', { kind: 'secret', name: 'demo key' });
  return { key };
}
