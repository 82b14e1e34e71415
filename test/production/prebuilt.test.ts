// Prebuilt browser assets are served only when they were built from the sources present: a stale
// or damaged build is rebuilt, and an input left out of the image is trusted.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, test } from 'node:test';
import { type BrowserBuild, prebuiltOrBuild, writePrebuilt } from '../../src/http/build-once.ts';

const temp = mkdtempSync(join(tmpdir(), 'folio-prebuilt-'));
after(() => rmSync(temp, { recursive: true, force: true }));

let place: { root: string; directory: string };
let builds: number;

beforeEach(() => {
  const root = mkdtempSync(join(temp, 'root-'));
  place = { root, directory: join(root, 'dist', 'assets') };
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'packages'));
  writeFileSync(join(root, 'src', 'main.ts'), 'export const a = 1;');
  writeFileSync(join(root, 'packages', 'client.ts'), 'export const b = 2;');
  builds = 0;
});

/** A "bundle" of the two inputs, counting how often it is made. */
const build = async (): Promise<BrowserBuild> => {
  builds += 1;
  return {
    files: { 'app.js': Buffer.from(`build ${builds}`) },
    inputs: ['src/main.ts', 'packages/client.ts'],
  };
};

test('prebuilt: the files written ahead are served without building', async () => {
  await writePrebuilt('app', await build(), place);
  const files = await prebuiltOrBuild('app', build, place);
  assert.equal(files['app.js'].toString(), 'build 1');
  assert.equal(builds, 1);
});

test('prebuilt: none written, or no manifest (a build cut short), means a build now', async () => {
  assert.equal((await prebuiltOrBuild('app', build, place))['app.js'].toString(), 'build 1');
  await writePrebuilt('app', await build(), place);
  rmSync(join(place.directory, 'app', 'manifest.json'));
  assert.equal((await prebuiltOrBuild('app', build, place))['app.js'].toString(), 'build 3');
});

test('prebuilt: an input changed since the build means a build now', async () => {
  await writePrebuilt('app', await build(), place);
  writeFileSync(join(place.root, 'src', 'main.ts'), 'export const a = 3;');
  assert.equal((await prebuiltOrBuild('app', build, place))['app.js'].toString(), 'build 2');
});

test('prebuilt: an input left out (as the image leaves packages/ out) is trusted', async () => {
  await writePrebuilt('app', await build(), place);
  rmSync(join(place.root, 'packages'), { recursive: true });
  assert.equal((await prebuiltOrBuild('app', build, place))['app.js'].toString(), 'build 1');
  assert.equal(builds, 1);
});

test('prebuilt: an output file changed or missing since the build means a build now', async () => {
  await writePrebuilt('app', await build(), place);
  writeFileSync(join(place.directory, 'app', 'app.js'), 'tampered');
  assert.equal((await prebuiltOrBuild('app', build, place))['app.js'].toString(), 'build 2');
  rmSync(join(place.directory, 'app', 'app.js'));
  assert.equal((await prebuiltOrBuild('app', build, place))['app.js'].toString(), 'build 3');
});
