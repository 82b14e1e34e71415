// Starts a worker thread on a TypeScript script without loading Node's type stripper in it. Node
// strips types with its own copy of amaro (swc built to WebAssembly) in every thread that loads a
// .ts file: 17 MB of RSS per worker thread, measured, as much as the rest of the thread. The main
// thread has it loaded already, so it strips the script and the files it imports (followed through
// their relative `.ts` imports) and hands them over; the worker's load hook serves them as
// JavaScript. A file not handed over (a specifier the scan misses) is loaded as before, by Node,
// which then strips it in the worker: slower to start and bigger, never different.
// A main thread that runs without the stripper (its files came from the cache of
// type-strip-cache.js, as `folio` runs them) strips nothing for its workers, which would load the
// stripper there: each worker reads the same cache instead.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { stripTypeScriptTypes } from 'node:module';
import { setEnvironmentData, Worker, type WorkerOptions } from 'node:worker_threads';

const sourcesKey = 'folio:stripped-sources';
/** Static imports, re-exports and literal dynamic imports of a relative .ts file. */
const relativeImport = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+\.ts)\1/g;

/** Every file stripped so far, by URL: one map for every worker, as each gets a copy. */
const stripped = new Map<string, string>();
const scannedFiles = new Set<string>();

export function startWorker(script: URL, options: WorkerOptions = {}): Worker {
  const name = basename(script.pathname).replace(/\.ts$/, '');
  if (!script.pathname.endsWith('.ts') || !process.features.typescript) {
    return new Worker(script, { name, ...options });
  }
  handOverToWorkers(script);
  return new Worker(bootstrap(script), { name, ...options, eval: true });
}

/** Whether this thread has loaded Node's type stripper (amaro): not if every .ts it ran was cached. */
export function typeStripperLoaded(): boolean {
  const loaded = (process as { moduleLoadList?: string[] }).moduleLoadList;
  return loaded === undefined || loaded.includes('NativeModule internal/deps/amaro/dist/index');
}

/**
 * Strips `file` and what it imports for the workers started from now on (a task module, before
 * the task thread starts). A worker already running strips a file it was not handed itself.
 */
export function handOverToWorkers(file: URL): void {
  if (!file.pathname.endsWith('.ts') || !process.features.typescript || scannedFiles.has(file.href)) return;
  if (!typeStripperLoaded()) return;
  strip(file);
  scannedFiles.add(file.href);
  // Copied into each worker started from now on (a few hundred KB of text).
  setEnvironmentData(sourcesKey, stripped);
}

function strip(file: URL): void {
  if (stripped.has(file.href)) return;
  let source: string;
  try {
    source = stripSilently(readFileSync(file, 'utf8'));
  } catch {
    return; // left to Node's loader, which reports what is wrong with it
  }
  stripped.set(file.href, source);
  for (const match of source.matchAll(relativeImport)) strip(new URL(match[2], file));
}

/** stripTypeScriptTypes warns once that it is experimental: the same stripping Node's loader does. */
function stripSilently(source: string): string {
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  try {
    return stripTypeScriptTypes(source, { mode: 'strip' });
  } finally {
    process.emitWarning = emitWarning;
  }
}

const typeStripCache = new URL('../type-strip-cache.js', import.meta.url);

/**
 * The worker's first code (CommonJS, evaluated): the load hooks (the files handed over, else the
 * type-strip cache when this thread uses it), then the script itself.
 */
function bootstrap(script: URL): string {
  const cache = typeStripperLoaded()
    ? ''
    : `require(${JSON.stringify(typeStripCache.pathname)}).registerTypeStripCache();`;
  return `const { registerHooks } = require('node:module');
const { getEnvironmentData } = require('node:worker_threads');
${cache}
const sources = getEnvironmentData(${JSON.stringify(sourcesKey)});
registerHooks({
  load(url, context, next) {
    const source = sources?.get(url);
    return source === undefined ? next(url, context) : { format: 'module', source, shortCircuit: true };
  },
});
import(${JSON.stringify(script.href)}).catch((error) => {
  setImmediate(() => {
    throw error;
  });
});
`;
}
