// The dashboard's browser code, bundled from TypeScript by esbuild once, on the first request, and
// kept in memory with its gzip form and a content hash (the asset URLs carry it, so browsers may
// cache them for good). Building at run time keeps no generated file in the repository to go stale.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildOnce } from '../http/build-once.ts';

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

export const dashboardAssets = buildOnce(bundle);

async function bundle(): Promise<DashboardAssets> {
  const result = await build({
    entryPoints: [entryPoint],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    write: false,
    outdir: 'out',
    logLevel: 'silent',
    legalComments: 'none',
  });
  const output = (extension: string) => {
    const file = result.outputFiles.find((candidate) => candidate.path.endsWith(extension));
    if (!file) throw new Error(`the dashboard bundle has no ${extension} output`);
    return Buffer.from(file.contents);
  };
  return {
    script: asset(output('.js'), 'text/javascript; charset=utf-8'),
    style: asset(output('.css'), 'text/css; charset=utf-8'),
  };
}

function asset(body: Buffer, contentType: string): Asset {
  return {
    body,
    gzip: gzipSync(body, { level: 9 }),
    hash: createHash('sha256').update(body).digest('base64url').slice(0, 16),
    contentType,
  };
}
