// `folio keys`: a secret key's scopes (--scope, comma-separated or repeated), test keys (--test),
// and both shown by create and list, on every configured database.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import {
  configuredDialects,
  createTestDatabase,
  createTestProject,
  getJson,
  type TestDatabase,
} from '../helpers.ts';
import { runCli } from './support.ts';

async function cliJson(databaseUrl: string, ...args: string[]): Promise<any> {
  const result = await runCli(databaseUrl, ...args, '--json');
  assert.equal(result.code, 0, `folio ${args.join(' ')}: ${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout);
}

for (const dialect of configuredDialects()) {
  let database: TestDatabase;
  let app: FastifyInstance | undefined;
  before(async () => {
    database = await createTestDatabase(dialect);
  });
  after(async () => {
    await app?.close();
    await database?.drop();
  });

  test(`keys create --scope and --test [${dialect}]: the key has those scopes, the server answers by them, keys list shows them`, async () => {
    const { project } = await createTestProject(database.db);
    const slug = project.slug;
    const url = database.url;

    const standard = await cliJson(url, 'keys', 'create', '--project', slug);
    assert.deepEqual(standard.scopes, ['read', 'analytics']);
    assert.equal(standard.test, false);
    const writer = await cliJson(
      url,
      'keys',
      'create',
      '--project',
      slug,
      '--scope',
      'write,read',
      '--scope',
      'read',
    );
    assert.deepEqual(writer.scopes, ['read', 'write']);
    const reader = await cliJson(url, 'keys', 'create', '--project', slug, '--scope', 'read', '--test');
    assert.deepEqual(reader.scopes, ['read']);
    assert.equal(reader.test, true);
    const browser = await cliJson(url, 'keys', 'create', '--project', slug, '--kind', 'public', '--test');
    assert.equal(browser.scopes, null, 'a public key has no scopes');
    assert.equal(browser.test, true);

    app = await buildApp({ db: database.db });
    const stats = await getJson(app, '/v1/analytics/stats', { 'x-api-key': reader.key });
    assert.equal(stats.status, 403);
    assert.deepEqual(stats.body.details, { scope: 'analytics' });
    assert.equal((await getJson(app, '/v1/project', { 'x-api-key': reader.key })).status, 200);
    assert.equal((await getJson(app, '/v1/analytics/stats', { 'x-api-key': standard.key })).status, 200);

    const list = await cliJson(url, 'keys', 'list', '--project', slug);
    const byId = new Map(list.map((key: { id: string }) => [key.id, key]));
    for (const created of [standard, writer, reader, browser]) {
      // Used since by the requests above: the rest is as created.
      const { key: _secret, lastUsedAt: _created, ...view } = created;
      const { lastUsedAt: _used, ...listed } = byId.get(created.id) as Record<string, unknown>;
      assert.deepEqual(listed, view);
    }
    const text = await runCli(url, 'keys', 'list', '--project', slug);
    assert.equal(text.code, 0, text.stderr);
    const line = (id: string) => text.stdout.split('\n').find((row) => row.startsWith(id)) ?? '';
    assert.match(line(standard.id), /\tsecret: read, analytics\t/);
    assert.match(line(writer.id), /\tsecret: read, write\t/);
    assert.match(line(reader.id), /\tsecret: read; test\t/);
    assert.match(line(browser.id), /\tpublic; test\t/);
  });

  test(`keys create refuses a bad scope naming the flag and the scopes, and scopes on a public key [${dialect}]`, async () => {
    const url = database.url;
    const { project } = await createTestProject(database.db);
    for (const args of [
      ['--scope', 'admin'],
      ['--scope', 'read,admin'],
      ['--scope', 'read', '--scope', 'Write'],
    ]) {
      const result = await runCli(url, 'keys', 'create', '--project', project.slug, ...args);
      assert.equal(result.code, 1, args.join(' '));
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /--scope/, args.join(' '));
      assert.match(result.stderr, /read, analytics, write/, args.join(' '));
    }
    const json = await runCli(url, 'keys', 'create', '--project', project.slug, '--scope', 'admin', '--json');
    assert.match(
      JSON.parse(json.stdout).error,
      /'admin' is not a scope: --scope takes read, analytics, write/,
    );
    const publicScoped = await runCli(
      url,
      'keys',
      'create',
      '--project',
      project.slug,
      '--kind',
      'public',
      '--scope',
      'read',
    );
    assert.equal(publicScoped.code, 1);
    assert.equal(
      publicScoped.stderr,
      'folio: --scope applies to secret keys only: a public key has no scopes\n',
    );
    // Nothing was created by any refusal (the project's own key only).
    assert.equal((await cliJson(url, 'keys', 'list', '--project', project.slug)).length, 1);
  });
}
