// The tracker script, compiled from tracker.ts with esbuild: ahead of time into dist/assets/ by an
// image's build, else the first time it is asked for. It is kept in memory with its gzipped form
// and a version (a hash of the code) for ETags and URLs; a prebuilt script older than the source
// is not used, so the served script never lags behind the source.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BrowserBuild, buildOnce, prebuiltOrBuild, projectPath } from '../http/build-once.ts';

export interface TrackerScript {
  code: Buffer;
  gzipped: Buffer;
  /** 12 hex digits of the SHA-256 of the code: changes whenever the script does. */
  version: string;
}

const sourcePath = fileURLToPath(new URL('./tracker.ts', import.meta.url));
const outputFile = 'tracker.js';

/** Browsers of 2020 on (Chrome 80, Firefox 78, Safari 14): no syntax lowering needed for them. */
const target = 'es2020';

export async function compileTracker(): Promise<BrowserBuild> {
  const source = await readFile(sourcePath, 'utf8');
  // esbuild is loaded by the first build only (1.2 MB of heap): a prebuilt script never needs it.
  const { transform } = await import('esbuild');
  const result = await transform(source, {
    loader: 'ts',
    format: 'iife',
    target,
    minify: true,
    legalComments: 'none',
    sourcefile: 'tracker.ts',
  });
  return { files: { [outputFile]: Buffer.from(result.code) }, inputs: [projectPath(sourcePath)] };
}

/** The script compiled from the source now, whatever was built ahead. */
export async function buildTrackerScript(): Promise<TrackerScript> {
  return trackerScriptOf((await compileTracker()).files);
}

function trackerScriptOf(files: Record<string, Buffer>): TrackerScript {
  const code = files[outputFile];
  if (!code) throw new Error(`the tracker build has no ${outputFile}`);
  return {
    code,
    gzipped: gzipSync(code, { level: 9 }),
    version: createHash('sha256').update(code).digest('hex').slice(0, 12),
  };
}

/**
 * The script, read or built once per process. esbuild's service process is left running: the
 * dashboard may be bundling at the same moment, and an idle service does not keep the process alive.
 */
export const trackerScript = buildOnce(async () =>
  trackerScriptOf(await prebuiltOrBuild('tracker', compileTracker)),
);
