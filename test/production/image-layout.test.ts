// The Docker image works: its file layout, built by replaying the Dockerfile (dockerfile.ts), is
// started as the image starts it, and every route family answers as it does from the checkout.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { prebuiltDirectory, projectRoot } from '../../src/http/build-once.ts';
import { buildImageLayout, type ImageLayout } from './dockerfile.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const browser =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

interface Served {
  base: string;
  /** The demo project's secret key, made with the CLI as the README says for a server without a terminal. */
  key: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** The environment of the image (its ENV), on a free port of this host, with nothing of ours. */
function serverEnv(layout: ImageLayout): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...layout.env, PORT: '0', HOST: '127.0.0.1' };
  for (const name of [
    'DATABASE_URL',
    'REDIS_URL',
    'TRUST_PROXY',
    'LOG_LEVEL',
    'GEOIP_DATABASE',
    'ANALYTICS_RETENTION_DAYS',
    'NODE_TEST_CONTEXT',
  ]) {
    delete env[name];
  }
  return env;
}

/**
 * `command` (the image's ENTRYPOINT and CMD, its `node` this test's Node) in `cwd` on the default
 * database, which the first start fills with the demo project.
 */
async function serve(command: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Served> {
  // Node's flags and the script, without the command (serve).
  const program = command.slice(1, scriptIndex(command) + 1);
  const child: ChildProcess = spawn(process.execPath, command.slice(1), {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const deadline = Date.now() + 30_000;
    while (!/created the demo project/.test(output)) {
      if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${output}`);
      if (Date.now() > deadline) throw new Error(`no demo project within 30 s: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const base = output.match(/listening at (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
    assert.ok(base, output);
    const created = spawnSync(
      process.execPath,
      [...program, 'keys', 'create', '--project', 'demo', '--json'],
      {
        cwd,
        env,
        encoding: 'utf8',
      },
    );
    assert.equal(created.status, 0, created.stderr);
    const { key } = JSON.parse(created.stdout) as { key: string };
    return { base, key, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface Answer {
  status: number;
  type: string | null;
  location: string | null;
  body: Buffer;
}

async function ask(
  served: Served,
  path: string,
  init: RequestInit & { key?: boolean } = {},
): Promise<Answer> {
  const headers = new Headers(init.headers);
  headers.set('user-agent', browser);
  if (init.key) headers.set('x-api-key', served.key);
  const response = await fetch(`${served.base}${path}`, { ...init, headers, redirect: 'manual' });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    location: response.headers.get('location'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** Where the script is in `node [flags] script [arguments]`. */
function scriptIndex(command: string[]): number {
  return command.findIndex((word, index) => index > 0 && !word.startsWith('-'));
}

let layout: ImageLayout;
let image: Served;
let checkout: Served;
const checkoutCwd = mkdtempSync(join(tmpdir(), 'folio-checkout-'));

before(async () => {
  layout = buildImageLayout(root);
  image = await serve(layout.command, layout.directory, serverEnv(layout));
  // The checkout's own server, its default database in a folder of its own (no package.json there).
  const script = scriptIndex(layout.command);
  const inCheckout = layout.command.with(script, join(root, layout.command[script]));
  checkout = await serve(inCheckout, checkoutCwd, serverEnv(layout));
});

after(async () => {
  await Promise.all([image?.stop(), checkout?.stop()]);
  if (layout) rmSync(join(layout.directory, '..'), { recursive: true, force: true });
  rmSync(checkoutCwd, { recursive: true, force: true });
});

test('image layout: the Dockerfile builds the browser assets into the image', () => {
  const prebuilt = join(layout.directory, relative(projectRoot, prebuiltDirectory));
  for (const name of ['tracker', 'dashboard']) {
    assert.ok(existsSync(join(prebuilt, name, 'manifest.json')), `no prebuilt ${name} in the image`);
  }
});

test('image layout: every route family answers as from the checkout, none with a 5xx', async () => {
  const slugOf = async (served: Served) => {
    const list = await ask(served, '/v1/articles?limit=1', { key: true });
    assert.equal(list.status, 200, list.body.toString());
    return (JSON.parse(list.body.toString()) as { data: Array<{ slug: string }> }).data[0].slug;
  };
  const slug = await slugOf(checkout);
  assert.equal(await slugOf(image), slug);
  const requests: Array<[string, RequestInit & { key?: boolean }]> = [
    ['/ready', {}],
    ['/docs', {}],
    ['/v1/openapi.json', {}],
    ['/v1/project', { key: true }],
    ['/v1/articles?limit=3', { key: true }],
    [`/v1/articles/${slug}`, { key: true }],
    ['/v1/tags', { key: true }],
    [`/v1/seo/article/${slug}`, { key: true }],
    ['/v1/seo/structured-data', { key: true }],
    ['/v1/seo/sitemap', { key: true }],
    ['/v1/seo/rss', { key: true }],
    ['/v1/analytics/stats', { key: true }],
    ['/v1/analytics/script.js', {}],
    ['/dashboard', {}],
    ['/dashboard/', {}],
    [
      '/v1/analytics/track',
      {
        key: true,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ slug, sessionId: 'image-layout' }),
      },
    ],
  ];
  for (const [path, init] of requests) {
    const [fromImage, fromCheckout] = [await ask(image, path, init), await ask(checkout, path, init)];
    const label = `${init.method ?? 'GET'} ${path}: ${fromImage.body.toString().slice(0, 300)}`;
    assert.ok(fromCheckout.status < 400, `${path} from the checkout: ${fromCheckout.status}`);
    assert.equal(fromImage.status, fromCheckout.status, label);
    assert.equal(fromImage.type, fromCheckout.type, label);
    assert.equal(fromImage.location, fromCheckout.location, label);
  }
});

test('image layout: the tracker and the dashboard assets are the ones built from the source', async () => {
  const prebuilt = join(layout.directory, relative(projectRoot, prebuiltDirectory));
  const script = await ask(image, '/v1/analytics/script.js');
  assert.deepEqual(
    script.body,
    readFileSync(join(prebuilt, 'tracker', 'tracker.js')),
    'not the prebuilt tracker',
  );
  assert.deepEqual(script.body, (await ask(checkout, '/v1/analytics/script.js')).body);
  const page = (await ask(image, '/dashboard')).body.toString();
  assert.equal(page, (await ask(checkout, '/dashboard')).body.toString(), 'the asset hashes differ');
  const assets = [...page.matchAll(/(?:src|href)="(\/dashboard\/app\.(?:js|css)\?v=[\w-]+)"/g)].map(
    (m) => m[1],
  );
  assert.equal(assets.length, 2, page);
  for (const path of assets) {
    const answer = await ask(image, path);
    assert.equal(answer.status, 200, path);
    const file = path.slice('/dashboard/'.length, path.indexOf('?'));
    assert.deepEqual(
      answer.body,
      readFileSync(join(prebuilt, 'dashboard', file)),
      `${path} is not the prebuilt file`,
    );
    assert.deepEqual(answer.body, (await ask(checkout, path)).body, path);
  }
});
