// `folio backup FILE`: a consistent copy of the SQLite database, taken while servers run and write.
// PostgreSQL has its own tools (pg_dump), which the command points at instead.
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { ConfigError, isPostgresUrl, redactUrl } from '../config.ts';
import { BackupTargetExistsError, backupSqlite } from '../db/sqlite-backup.ts';
import { formatBytes } from '../projects/size.ts';
import type { CliTools } from './tools.ts';

export function backupCommand(tools: CliTools): Command {
  return tools
    .jsonOption(
      new Command('backup').description(
        'copy the SQLite database into FILE, consistently, while the server runs (PostgreSQL: use pg_dump)',
      ),
    )
    .argument('<file>', 'the new backup file')
    .option('--force', 'replace FILE if it exists')
    .action(async (file: string, options: { json?: boolean; force?: boolean }) => {
      const source = tools.databaseUrl();
      if (isPostgresUrl(source)) {
        throw new ConfigError(
          `folio backup copies SQLite databases only; back up PostgreSQL (${redactUrl(source)}) with pg_dump -Fc and restore it with pg_restore (see the README, Production)`,
        );
      }
      const path = source.startsWith('file:') ? source.slice('file:'.length) : source;
      if (path === ':memory:' || path === '' || !existsSync(path))
        throw new ConfigError(`There is no SQLite database at ${path || ':memory:'} to back up`);
      const target = resolve(file);
      if (!existsSync(dirname(target)))
        throw new ConfigError(`Cannot write ${target}: the folder ${dirname(target)} does not exist`);
      const started = performance.now();
      try {
        backupSqlite(path, target, { overwrite: options.force === true });
      } catch (error) {
        if (error instanceof BackupTargetExistsError) throw new ConfigError(error.message);
        const reason = (error as Error).message;
        throw new ConfigError(`Backup to ${target} failed: ${reason}`);
      }
      const seconds = Math.round(performance.now() - started) / 1000;
      const bytes = statSync(target).size;
      tools.print(
        { json: options.json === true },
        { file: target, bytes, seconds },
        `Backed up ${path} to ${target} (${formatBytes(bytes)}) in ${seconds} s.`,
      );
    });
}
