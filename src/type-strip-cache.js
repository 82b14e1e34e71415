// Folio's TypeScript, kept as Node strips it, so that a process (and each of its worker threads)
// runs src/ without loading Node's type stripper: amaro, swc built to WebAssembly, costs every
// thread that loads it about 17 MB of RSS (measured). A load hook serves each file of src/ from
// node_modules/.cache/folio-stripped/, keyed by Node's version and the file's content: a file
// changed since is a miss, never a stale answer. On the first miss of a process, a short-lived
// child process strips the whole of src/ into the cache, so that the stripper's memory ends with
// it; what is still missing then (a cache that cannot be written) is left to Node, which strips it
// as it always does. Plain JavaScript: the first .ts file a thread runs loads the stripper.
// Run as a script (`node --no-warnings src/type-strip-cache.js`), it fills the cache (the Dockerfile does).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const source = new URL('.', import.meta.url);
const sourceDir = fileURLToPath(source);
const cacheDir = fileURLToPath(new URL(`../node_modules/.cache/folio-stripped/${process.version}/`, source));

/** Where the stripped text of a file with this content is kept. */
function cachedPath(text) {
  return join(cacheDir, `${createHash('sha256').update(text).digest('hex').slice(0, 40)}.js`);
}

function readCached(text) {
  try {
    return readFileSync(cachedPath(text), 'utf8');
  } catch {
    return null;
  }
}

let filled = false;

/** Strips src/ into the cache in a child process, once per thread; a failure leaves Node to strip. */
function fillInChild() {
  if (filled) return;
  filled = true;
  try {
    execFileSync(process.execPath, ['--no-warnings', fileURLToPath(import.meta.url)], {
      stdio: 'ignore',
      timeout: 60_000,
    });
  } catch {
    // Not writable, or no time: Node strips what is missing, as without the cache.
  }
}

/** Serves the files of src/ stripped from the cache, in this thread, from now on. */
export function registerTypeStripCache() {
  registerHooks({
    load(url, context, next) {
      if (!url.startsWith(source.href) || !url.endsWith('.ts')) return next(url, context);
      let text;
      try {
        text = readFileSync(new URL(url), 'utf8');
      } catch {
        return next(url, context);
      }
      let stripped = readCached(text);
      if (stripped === null) {
        fillInChild();
        stripped = readCached(text);
      }
      return stripped === null
        ? next(url, context)
        : { format: 'module', source: stripped, shortCircuit: true };
    },
  });
}

/** Strips every .ts file of src/ that the cache lacks into it (each written whole, by a rename). */
function fillCache() {
  mkdirSync(cacheDir, { recursive: true });
  for (const entry of readdirSync(sourceDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    if (readCached(text) !== null) continue;
    let stripped;
    try {
      stripped = stripTypeScriptTypes(text, { mode: 'strip' });
    } catch {
      continue; // not erasable TypeScript (browser code bundled by esbuild): Node reports it if run
    }
    const target = cachedPath(text);
    const partial = `${target}.${process.pid}`;
    writeFileSync(partial, stripped);
    renameSync(partial, target);
  }
}

if (import.meta.main) fillCache();
