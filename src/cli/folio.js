#!/usr/bin/env node
// The `folio` command's entry (what `npm start` and `npx folio` run): main.ts, its TypeScript
// served stripped from a cache (type-strip-cache.js), so that the process never loads Node's type
// stripper (about 17 MB of RSS). JavaScript, because the first .ts file a thread runs loads it.
import { registerTypeStripCache } from '../type-strip-cache.js';

memorySettings();
registerTypeStripCache();
const { runCli } = await import('./main.ts');
const argv = process.argv.slice(2);
const code = await runCli(argv);
if (code !== 0 || !argv.includes('serve')) process.exitCode = code;

/**
 * On Linux, a server or an import whose environment does not set MALLOC_ARENA_MAX replaces itself
 * (same process, same id, before any work) with one where it is 2: glibc otherwise keeps up to 8
 * malloc arenas per core, one for each thread that allocated (the database's worker threads, an
 * import's render thread), and holds their freed memory after the threads end. Set
 * MALLOC_ARENA_MAX yourself (any value) to keep your own.
 *
 * An import also gets semi-spaces of 8 MB (unless its Node options name one): V8 sizes the young
 * generation from the machine's memory, and an import's garbage kept it full (20,000 articles
 * on a 24 GB machine: peak RSS 403 to 283 MB, the same CPU time; 4 MB cost a third more CPU).
 */
function memorySettings() {
  if (process.platform !== 'linux' || process.env.MALLOC_ARENA_MAX !== undefined) return;
  const argv = process.argv.slice(2);
  const importing = argv[0] === 'import';
  if (!(importing || argv.includes('serve')) || typeof process.execve !== 'function') return;
  const nodeOptions = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  const youngGeneration = importing && !nodeOptions.includes('semi-space') ? ['--max-semi-space-size=8'] : [];
  // process.execve warns once that it is experimental: nothing a user can act on.
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  try {
    const args = [process.execPath, ...process.execArgv, ...youngGeneration, ...process.argv.slice(1)];
    process.execve(process.execPath, args, {
      ...process.env,
      MALLOC_ARENA_MAX: '2',
    });
  } catch {
    // Not replaced (a sandbox refusing execve): this process goes on, with glibc's default arenas.
  } finally {
    process.emitWarning = emitWarning;
  }
}
