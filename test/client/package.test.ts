// The client as another project gets it: `npm pack` (which builds it), installed from the tarball
// alone into a project outside the repository, type-checked strictly (the sample fails to compile
// if the default fields were optional or `select` did not narrow), then run on the machine's own
// Node (20 here, not the project's 24) against a real server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import {
  articleInput,
  createTestDatabase,
  createTestProject,
  importArticles,
  type TestDatabase,
} from '../helpers.ts';

const run = promisify(execFile);
const repository = fileURLToPath(new URL('../..', import.meta.url));
const clientDir = join(repository, 'packages', 'client');
const tsc = join(repository, 'node_modules', 'typescript', 'bin', 'tsc');

/** The first `node` on PATH that is not one of a node_modules/.bin (npm scripts put Node 24 there). */
function machineNode(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '' || dir.includes('node_modules')) continue;
    if (existsSync(join(dir, 'node'))) return join(dir, 'node');
  }
  return process.execPath;
}

// What a user writes. Each `@ts-expect-error` proves a narrowing: were the field there (optional or
// not), the directive would be unused, which is an error too.
const sample = (baseUrl: string, key: string) => `
import { FolioClient, FolioNotFoundError, type ArticleListItem } from '@folio/client';

const folio = new FolioClient({ baseUrl: ${JSON.stringify(baseUrl)}, key: ${JSON.stringify(key)} });
const list = await folio.articles.list({ sort: 'title', order: 'asc' });
// Without select, the default fields are all there: string, not string | undefined.
const titles: string[] = list.data.map((article) => article.title);
const viewCount: number = list.data[0].viewCount;
// @ts-expect-error content is not a default field of a list
list.data[0].content;

const selected = await folio.articles.list({ sort: 'title', order: 'asc', select: { content: true, excerpt: false } });
const contents: string[] = selected.data.map((article) => article.content);
// @ts-expect-error excerpt was selected away
selected.data[0].excerpt;

const item: ArticleListItem<{ tags: true }> = (await folio.articles.list({ sort: 'title', select: { tags: true } })).data.at(-1)!;
const tagNames: string[] = item.tags.map((tag) => tag.name);
const single = await folio.articles.get('first-post');
const author: string = single.author.name + single.content;

const everything = await folio.articles.all();
const tags = await folio.tags.all();
let notFound = '';
try {
  await folio.articles.get('no-such-post');
} catch (error) {
  if (error instanceof FolioNotFoundError) notFound = error.error;
}
console.log(JSON.stringify({ titles, viewCount, contents, tagNames, author, all: everything.length, tags: tags.map((tag) => tag.name), notFound }));
`;

let database: TestDatabase;
let app: FastifyInstance;
let consumer: string;

before(async () => {
  database = await createTestDatabase('sqlite');
  app = await buildApp({ db: database.db });
  consumer = mkdtempSync(join(tmpdir(), 'folio-client-consumer-'));
});

after(async () => {
  await app?.close();
  await database?.drop();
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

test('package: the packed client installs, type-checks and runs outside the repository', async (t) => {
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const owner = await createTestProject(database.db);
  await importArticles(database.db, owner.project, [
    articleInput({ slug: 'first-post', title: 'First post', content: 'Hello.', tags: ['News'] }),
    articleInput({ slug: 'second-post', title: 'Second post' }),
  ]);

  const packed = await run('npm', ['pack', '--json', '--pack-destination', consumer], { cwd: clientDir });
  const [tarball] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  const paths = tarball.files.map((file) => file.path).sort();
  assert.ok(
    paths.every((path) => path === 'package.json' || /^dist\/[\w-]+\.(js|d\.ts)$/.test(path)),
    paths.join(' '),
  );
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(consumer, tarball.filename)], {
    cwd: consumer,
  });
  const installed = join(consumer, 'node_modules', '@folio', 'client');
  for (const path of paths.filter((path) => path.startsWith('dist/'))) {
    const text = readFileSync(join(installed, path), 'utf8');
    assert.doesNotMatch(text, /from ['"](?!\.\/)|import\(/, `${path} imports only files of the package`);
  }
  assert.ok(!existsSync(join(clientDir, 'dist')), 'npm pack leaves no build output in the checkout');
  writeFileSync(join(consumer, 'sample.ts'), sample(baseUrl, owner.key));
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2022', 'dom'],
        types: [],
        strict: true,
        skipDefaultLibCheck: true,
        noEmitOnError: true,
      },
      files: ['sample.ts'],
    }),
  );
  await run(process.execPath, [tsc, '-p', consumer]).catch((error: { stdout: string }) => {
    assert.fail(`the sample does not type-check:\n${error.stdout}`);
  });

  const node = machineNode();
  const { stdout: version } = await run(node, ['--version']);
  assert.ok(Number(/^v(\d+)/.exec(version)![1]) >= 20, `${node} is ${version}`);
  const { stdout } = await run(node, [join(consumer, 'sample.js')], { cwd: consumer });
  assert.deepEqual(JSON.parse(stdout), {
    titles: ['First post', 'Second post'],
    viewCount: 0,
    contents: ['Hello.', 'Body of second-post.'],
    tagNames: ['News'],
    author: 'AdaHello.',
    all: 2,
    tags: ['News'],
    notFound: 'Not Found',
  });
  t.diagnostic(`sample run by ${node} ${version.trim()}`);
});
