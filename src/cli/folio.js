#!/usr/bin/env node
// The `folio` command's entry (what `npm start` and `npx folio` run): main.ts, its TypeScript
// served stripped from a cache (type-strip-cache.js), so that the process never loads Node's type
// stripper (about 17 MB of RSS). JavaScript, because the first .ts file a thread runs loads it.
import { registerTypeStripCache } from '../type-strip-cache.js';

registerTypeStripCache();
const { runCli } = await import('./main.ts');
const argv = process.argv.slice(2);
const code = await runCli(argv);
if (code !== 0 || !argv.includes('serve')) process.exitCode = code;
