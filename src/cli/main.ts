#!/usr/bin/env node
// The `folio` command: serve, migrate, projects, keys, import, export, backup and analytics maintenance. With --json every command prints
// exactly one JSON document on stdout; failures exit non-zero with a one-line reason.
import { Command, CommanderError } from 'commander';
import type { RecordedRetention } from '../analytics/public.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { ImportValidationError } from '../content/import/records.ts';
import { type Db, openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrations/index.ts';
import { moveLegacyPageViews } from '../db/page-view-move.ts';
import { HttpError } from '../errors.ts';
import { requireProject } from '../projects/service.ts';
import { resolveDatabaseUrl } from '../db/database-location.ts';
import { backupCommand } from './backup.ts';
import { exportCommand } from './export.ts';
import { importCommand } from './import-command.ts';
import { keyCommands } from './keys.ts';
import { previewCommands } from './previews.ts';
import { projectCommands } from './projects.ts';
import { webhookCommands } from './webhooks.ts';
import { CliError } from './tools.ts';

interface Output {
  json: boolean;
}

function print(output: Output, document: unknown, text: string): void {
  process.stdout.write(output.json ? `${JSON.stringify(document, null, 2)}\n` : `${text}\n`);
}

/** The configuration, with a relative SQLite path resolved against the project root (see db/database-location.ts). */
function loadCliConfig(): Config {
  const config = loadConfig();
  return Object.freeze({ ...config, databaseUrl: resolveDatabaseUrl(config.databaseUrl) });
}

/** Opens the configured database, migrated, runs `work`, and always closes it. */
async function withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  // A command may wait longer than a request for the server's write lock: nobody else waits on it.
  const config = loadCliConfig();
  const db = openDatabase(config.databaseUrl, {
    poolSize: 2,
    busyWaitMs: 30_000,
    poolMode: config.sizing.databasePoolMode,
  });
  try {
    await migrateToLatest(db);
    return await work(db);
  } finally {
    await db.close();
  }
}

function jsonOption(command: Command): Command {
  return command.option('--json', 'print one JSON document on stdout');
}

export function buildCli(): Command {
  const program = new Command('folio')
    .description('Folio: content publishing and reading analytics for headless blogs')
    .showHelpAfterError()
    .exitOverride();

  const tools = { databaseUrl: () => loadCliConfig().databaseUrl, print, jsonOption, withDatabase };
  serverCommands(program);
  projectCommands(program, tools);
  keyCommands(program, tools);
  importCommand(program, tools);
  previewCommands(program, tools);
  webhookCommands(program, tools);
  analyticsCommands(program);
  databaseCommands(program);
  program.addCommand(backupCommand(tools));
  program.addCommand(exportCommand(tools));

  return program;
}

/** serve and migrate. */
function serverCommands(program: Command): void {
  jsonOption(program.command('serve').description('serve the API (what npm start runs)'))
    .option('--no-demo', 'do not create the demo project on an empty database')
    .action(async (options: { demo: boolean }) => {
      // Loaded here: the server and the API are most of the command's modules, which no other command needs.
      const { startServer } = await import('../server.ts');
      await startServer(loadCliConfig(), { demo: options.demo });
    });

  jsonOption(program.command('migrate').description('bring the database schema up to date')).action(
    async (options: Output) => {
      const db = openDatabase(loadCliConfig().databaseUrl, { poolSize: 1 });
      try {
        const applied = await migrateToLatest(db);
        print(
          options,
          { applied },
          applied.length ? `Applied: ${applied.join(', ')}` : 'The database is up to date.',
        );
      } finally {
        await db.close();
      }
    },
  );
}

function analyticsCommands(program: Command): void {
  const analytics = program.command('analytics').description('maintain the analytics rollups');
  jsonOption(
    analytics
      .command('rebuild')
      .description(
        'rebuild the rollups and view counts from the raw page views, for the days within the retention the server runs with (the ANALYTICS_RETENTION_DAYS it recorded at start); older days keep theirs. Tracking goes on meanwhile',
      ),
  )
    .option('--project <slug>', 'only this project (default: every project)')
    .action(async (options: Output & { project?: string }) => {
      const now = new Date();
      const { firstRebuiltDay, rebuildRollups, utcDay } = await import('../analytics/public.ts');
      const { rebuilt, retention, fromDay } = await withDatabase(async (db) => {
        const retention = await retentionOfServer(db);
        const fromDay = firstRebuiltDay(retention, now);
        const projects = options.project
          ? [await requireProject(db, options.project)]
          : await db.kysely.selectFrom('projects').select(['id', 'slug']).orderBy('slug').execute();
        for (const project of projects) {
          await rebuildRollups(db.kysely, project.id, utcDay(now), fromDay);
        }
        return { rebuilt: projects.map((project) => project.slug), retention, fromDay };
      });
      const source =
        retention.recordedAt === null
          ? 'ANALYTICS_RETENTION_DAYS of this command: no server has recorded its own'
          : `recorded by the server at ${retention.recordedAt}`;
      print(
        options,
        {
          projects: rebuilt,
          fromDay,
          retentionDays: retention.days,
          retentionRecordedAt: retention.recordedAt,
        },
        `Rebuilt the rollups of ${rebuilt.length} project${rebuilt.length === 1 ? '' : 's'} from ${fromDay} on (retention ${retention.days} days, ${source}).`,
      );
    });
}

function databaseCommands(program: Command): void {
  const database = program.command('db').description('maintain the database layout');
  jsonOption(
    database
      .command('convert-page-views')
      .description(
        "move the page views that an older release stored (table page_views, in any of its layouts) to the compact page_view_rows of migration 0040, online: each batch moved in a short transaction while tracking goes on, each project's newest days first. A server moves them too, in the background; run this once every instance runs this release. Started again after a stop, it goes on",
      ),
  )
    .option('--batch-size <rows>', 'rows moved per transaction', (value) => Number.parseInt(value, 10))
    .action(async (options: Output & { batchSize?: number }) => {
      const result = await withDatabase(async (db) => {
        await migrateToLatest(db);
        const moved = await moveLegacyPageViews(db.kysely, db.dialect, { batchSize: options.batchSize });
        return { moved };
      });
      print(
        options,
        result,
        `Moved ${result.moved} page views to page_view_rows; none is left in page_views.`,
      );
    });
}

type RetentionToFollow = Omit<RecordedRetention, 'recordedAt'> & { recordedAt: string | null };

/**
 * The retention the servers run with, as the last one to start recorded it, so that a rebuild never
 * recomputes a day whose raw page views a server has trimmed. Before any server has recorded one,
 * only an ANALYTICS_RETENTION_DAYS set for the command itself is trusted, never its default.
 */
async function retentionOfServer(db: Db): Promise<RetentionToFollow> {
  const { recordedRetention } = await import('../analytics/public.ts');
  const recorded = await recordedRetention(db.kysely);
  if (recorded !== null) return recorded;
  if ((process.env.ANALYTICS_RETENTION_DAYS ?? '').trim() === '') {
    throw new ConfigError(
      'No server has recorded its ANALYTICS_RETENTION_DAYS in this database yet: start the server once, or set ANALYTICS_RETENTION_DAYS to the value it runs with for this command',
    );
  }
  return { days: loadConfig().analyticsRetentionDays, completeFrom: null, recordedAt: null };
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildCli();
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    return reportFailure(error, json);
  }
}

function reportFailure(error: unknown, json: boolean): number {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return 0;
    if (json) process.stdout.write(`${JSON.stringify({ error: error.message.replace(/^error: /, '') })}\n`);
    return error.exitCode || 1;
  }
  let reason: string;
  let details: Record<string, unknown> = {};
  if (error instanceof ImportValidationError) {
    reason = `Import refused: ${error.problems.length} problem(s); nothing was written`;
    details = { problems: error.problems };
    if (!json)
      for (const problem of error.problems)
        process.stderr.write(`${problem.file}:${problem.line}: ${problem.message}\n`);
  } else if (error instanceof CliError) {
    reason = error.message;
    details = error.details;
  } else if (error instanceof HttpError) {
    reason = error.message;
    if (error.details) details = error.details;
  } else if (error instanceof ConfigError) {
    reason = error.message.replace(/\n\s*/g, ' ');
  } else {
    const code = (error as { code?: string })?.code;
    reason =
      code === 'ECONNREFUSED'
        ? 'The database cannot be reached (connection refused)'
        : `Unexpected error: ${(error as Error)?.message ?? error}`;
  }
  if (json) process.stdout.write(`${JSON.stringify({ error: reason, ...details })}\n`);
  process.stderr.write(`folio: ${reason}\n`);
  return 1;
}

if (import.meta.main) {
  const code = await runCli(process.argv.slice(2));
  if (code !== 0 || !process.argv.slice(2).includes('serve')) process.exitCode = code;
}
