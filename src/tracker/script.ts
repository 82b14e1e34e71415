// The tracker script, built from tracker.ts with esbuild the first time it is asked for and then
// kept in memory with its gzipped form and a version (a hash of the code) for ETags and URLs.
// Building from the source at run time means the served script can never lag behind the source.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { transform } from 'esbuild';
import { buildOnce } from '../http/build-once.ts';

export interface TrackerScript {
  code: Buffer;
  gzipped: Buffer;
  /** 12 hex digits of the SHA-256 of the code: changes whenever the script does. */
  version: string;
}

const sourceUrl = new URL('./tracker.ts', import.meta.url);

/** Browsers of 2020 on (Chrome 80, Firefox 78, Safari 14): no syntax lowering needed for them. */
const target = 'es2020';

export async function buildTrackerScript(): Promise<TrackerScript> {
  const source = await readFile(sourceUrl, 'utf8');
  const result = await transform(source, {
    loader: 'ts',
    format: 'iife',
    target,
    minify: true,
    legalComments: 'none',
    sourcefile: 'tracker.ts',
  });
  const code = Buffer.from(result.code);
  return {
    code,
    gzipped: gzipSync(code, { level: 9 }),
    version: createHash('sha256').update(code).digest('hex').slice(0, 12),
  };
}

/**
 * The script, built once per process. esbuild's service process is left running: the dashboard may
 * be bundling at the same moment, and an idle service does not keep the process alive.
 */
export const trackerScript = buildOnce(buildTrackerScript);
