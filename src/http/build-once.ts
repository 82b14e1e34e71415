// The browser code (tracker and dashboard), bundled by esbuild. An image builds it ahead, with
// `node src/cli/build-assets.ts`, into dist/assets/, so that it needs neither the sources outside
// src/ nor a bundling at the first request; a checkout builds it on first use, from the source.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One build's output files by name, and the source files it read (relative to the project root). */
export interface BrowserBuild {
  files: Record<string, Buffer>;
  inputs: string[];
}

/** What dist/assets/<name>/manifest.json records: the SHA-256 of every output and every input. */
interface Manifest {
  files: Record<string, string>;
  inputs: Record<string, string>;
}

export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
export const prebuiltDirectory = join(projectRoot, 'dist', 'assets');

/** Where the prebuilt files are and what their inputs' paths are relative to (tests use others). */
export interface PrebuiltPlace {
  root: string;
  directory: string;
}

const here: PrebuiltPlace = { root: projectRoot, directory: prebuiltDirectory };

/** A path of the project as esbuild's metafile and the manifest name it: relative, with `/`. */
export function projectPath(absolute: string): string {
  return relative(projectRoot, absolute).split('\\').join('/');
}

/**
 * A value built on first use and kept for the life of the process. A failed build is not kept,
 * so the next call tries again.
 */
export function buildOnce<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | null = null;
  return () =>
    (built ??= build().catch((error: unknown) => {
      built = null;
      throw error;
    }));
}

/**
 * The files of `name` as written ahead of time, else built now. The prebuilt ones are used only
 * when every recorded input that exists here is unchanged: a checkout that ran the build once and
 * then edited the source rebuilds, while an image (which leaves some inputs out) trusts them.
 */
export async function prebuiltOrBuild(
  name: string,
  build: () => Promise<BrowserBuild>,
  place: PrebuiltPlace = here,
): Promise<Record<string, Buffer>> {
  return (await readPrebuilt(name, place)) ?? (await build()).files;
}

export async function writePrebuilt(
  name: string,
  build: BrowserBuild,
  place: PrebuiltPlace = here,
): Promise<void> {
  const directory = join(place.directory, name);
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { recursive: true });
  const manifest: Manifest = { files: {}, inputs: {} };
  for (const [file, body] of Object.entries(build.files)) {
    await writeFile(join(directory, file), body);
    manifest.files[file] = sha256(body);
  }
  for (const input of build.inputs) manifest.inputs[input] = sha256(await readFile(join(place.root, input)));
  // Written last: a build cut short leaves no manifest, and so is not used.
  await writeFile(join(directory, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

async function readPrebuilt(name: string, place: PrebuiltPlace): Promise<Record<string, Buffer> | null> {
  const directory = join(place.directory, name);
  const manifestPath = join(directory, 'manifest.json');
  if (!existsSync(manifestPath)) return null;
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  for (const [input, hash] of Object.entries(manifest.inputs)) {
    const path = join(place.root, input);
    if (existsSync(path) && sha256(await readFile(path)) !== hash) return null;
  }
  const files: Record<string, Buffer> = {};
  for (const [file, hash] of Object.entries(manifest.files)) {
    const path = join(directory, file);
    const body = existsSync(path) ? await readFile(path) : null;
    if (body === null || sha256(body) !== hash) return null;
    files[file] = body;
  }
  return files;
}

function sha256(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}
