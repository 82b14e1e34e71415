// The dashboard's browser code, bundled from TypeScript by esbuild: ahead of time into dist/assets/
// by an image's build, else once, on the first request. It is kept in memory with its gzip form and
// a content hash (the asset URLs carry it, so browsers may cache them for good). A checkout keeps no
// generated file in the repository to go stale, and a prebuilt bundle older than its source is not
// used.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BrowserBuild, buildOnce, prebuiltOrBuild, projectRoot } from '../http/build-once.ts';

export interface Asset {
  body: Buffer;
  gzip: Buffer;
  /** A hash of the body: the asset's ETag and the `v` of its URL. */
  hash: string;
  contentType: string;
}

export interface DashboardAssets {
  script: Asset;
  style: Asset;
}

const entryPoint = fileURLToPath(new URL('./ui/main.ts', import.meta.url));
const scriptFile = 'app.js';
const styleFile = 'app.css';

export async function bundleDashboard(): Promise<BrowserBuild> {
  // esbuild is loaded by the first build only (1.2 MB of heap): a prebuilt bundle never needs it.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entryPoint],
    // The metafile's input paths are then relative to the project root, as the manifest keeps them.
    absWorkingDir: projectRoot,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    write: false,
    metafile: true,
    outdir: 'out',
    entryNames: 'app',
    logLevel: 'silent',
    legalComments: 'none',
  });
  const output = (file: string) => {
    const found = result.outputFiles.find((candidate) => candidate.path === join(projectRoot, 'out', file));
    if (!found) throw new Error(`the dashboard bundle has no ${file}`);
    return Buffer.from(found.contents);
  };
  return {
    files: { [scriptFile]: output(scriptFile), [styleFile]: output(styleFile) },
    inputs: Object.keys(result.metafile.inputs),
  };
}

export const dashboardAssets = buildOnce(async (): Promise<DashboardAssets> => {
  const files = await prebuiltOrBuild('dashboard', bundleDashboard);
  return {
    script: asset(files[scriptFile], 'text/javascript; charset=utf-8'),
    style: asset(files[styleFile], 'text/css; charset=utf-8'),
  };
});

function asset(body: Buffer | undefined, contentType: string): Asset {
  if (!body) throw new Error(`the dashboard build has no ${contentType} file`);
  return {
    body,
    gzip: gzipSync(body, { level: 9 }),
    hash: createHash('sha256').update(body).digest('base64url').slice(0, 16),
    contentType,
  };
}
