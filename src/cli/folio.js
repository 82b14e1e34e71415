#!/usr/bin/env node
// The `folio` command's entry (what `npm start` and `npx folio` run): main.ts, its TypeScript
// served stripped from a cache (type-strip-cache.js), so that the process never loads Node's type
// stripper (about 17 MB of RSS). JavaScript, because the first .ts file a thread runs loads it.
import { registerTypeStripCache } from '../type-strip-cache.js';

glibcArenas();
registerTypeStripCache();
const { runCli } = await import('./main.ts');
const argv = process.argv.slice(2);
const code = await runCli(argv);
if (code !== 0 || !argv.includes('serve')) process.exitCode = code;

/**
 * On Linux, a server whose environment does not set MALLOC_ARENA_MAX replaces itself (same process,
 * same id, before any work) with one where it is 2: glibc otherwise keeps up to 8 malloc arenas per
 * core, one for each thread that allocated (the database's worker threads), and holds their freed
 * memory after the threads end. Set MALLOC_ARENA_MAX yourself (any value) to keep your own.
 */
function glibcArenas() {
  if (process.platform !== 'linux' || process.env.MALLOC_ARENA_MAX !== undefined) return;
  if (!process.argv.slice(2).includes('serve') || typeof process.execve !== 'function') return;
  // process.execve warns once that it is experimental: nothing a user can act on.
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
      ...process.env,
      MALLOC_ARENA_MAX: '2',
    });
  } catch {
    // Not replaced (a sandbox refusing execve): this process serves, with glibc's default arenas.
  } finally {
    process.emitWarning = emitWarning;
  }
}
