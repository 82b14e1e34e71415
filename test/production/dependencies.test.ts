// The production install (`npm ci --omit=dev && npm start`, and the Dockerfile built on it) gets
// everything the server needs at run time: checked from the files that decide it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The npm package of a bare import specifier (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

test('production install: Node 24 is a production dependency and engines names the Node that runs the code', () => {
  assert.equal(packageJson.devDependencies?.node, undefined);
  assert.match(packageJson.dependencies.node, /^\^24\./);
  assert.equal(packageJson.allowScripts?.node, true);
  assert.equal(lock.packages['node_modules/node'].dev, undefined, 'the lock still marks node as dev');
  assert.equal(packageJson.engines?.node, '>=24.2');
  const [major, minor] = process.versions.node.split('.').map(Number);
  assert.ok(major > 24 || (major === 24 && minor >= 2), process.versions.node);
  // Node's own flag caps the young generation (README, Memory).
  assert.equal(
    packageJson.scripts.start,
    'node --max-semi-space-size=4 --optimize-for-size src/cli/folio.js serve',
  );
});

test('production install: every package the server imports is kept by npm ci --omit=dev', () => {
  const imported = new Set<string>();
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^\s*(?:import|export)\s([^'"]*?)from\s+'([^'.][^']*)'/gm)) {
      // `import type` is erased when Node strips the types: it needs nothing at run time.
      if (!match[1].startsWith('type ') && !match[2].startsWith('node:')) imported.add(packageOf(match[2]));
    }
    for (const match of text.matchAll(/(?:require|import)\(\s*'([^'.][^']*)'\s*\)/g)) {
      if (!match[1].startsWith('node:')) imported.add(packageOf(match[1]));
    }
  }
  assert.ok(imported.has('fastify') && imported.has('kysely'), [...imported].join(', '));
  for (const name of imported) {
    const entry = lock.packages[`node_modules/${name}`];
    assert.ok(entry, `${name} is imported by src/ but not in the lock`);
    // Type-only packages may be dev: the import is erased.
    if (name.startsWith('@types/')) continue;
    assert.notEqual(entry.dev, true, `${name} is imported by src/ but is a devDependency`);
  }
});

test('Dockerfile: build stages apart, production dependencies only, non-root, /ready health check, Node as process 1', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const instructions = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  const named = (name: string) => instructions.filter((line) => line.startsWith(`${name} `));
  // The image starts afresh from Node's: what the build stages needed (packages/, npm's cache) stays out.
  assert.ok(named('FROM').length >= 2);
  assert.equal(named('FROM').at(-1), 'FROM ${NODE_IMAGE}');
  assert.match(named('RUN')[0], /npm ci --omit=dev/);
  const copies = named('COPY').join('\n');
  for (const needed of ['--from=dependencies /app/node_modules', 'src ', 'examples ', 'package.json']) {
    assert.ok(copies.includes(needed), `the image does not copy ${needed}`);
  }
  const user = named('USER');
  assert.deepEqual(user, ['USER node']);
  assert.ok(
    instructions.indexOf(user[0]) < instructions.indexOf(named('ENTRYPOINT')[0]),
    'USER comes after ENTRYPOINT',
  );
  assert.match(named('HEALTHCHECK')[0], /\/ready/);
  assert.deepEqual(JSON.parse(named('ENTRYPOINT')[0].slice('ENTRYPOINT '.length)), [
    'node',
    '--optimize-for-size',
    'src/cli/folio.js',
  ]);
  assert.deepEqual(JSON.parse(named('CMD').at(-1)!.slice('CMD '.length)), ['serve']);
  const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
  for (const path of ['node_modules', 'data', '.git']) assert.ok(ignored.includes(path), path);
});
