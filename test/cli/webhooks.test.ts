// `folio webhooks` as a user runs it: add (secret once), list, deliveries, remove, and refusals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newDatabase, runCli } from './support.ts';

async function cliJson(databaseUrl: string, ...args: string[]): Promise<any> {
  const result = await runCli(databaseUrl, ...args, '--json');
  assert.equal(result.code, 0, `folio ${args.join(' ')}: ${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout);
}

test('webhooks add, list, deliveries and remove', async () => {
  const database = newDatabase();
  await cliJson(database, 'projects', 'create', '--name', 'Blog', '--slug', 'blog');
  // An address literal: nothing is resolved, and nothing is sent by the CLI.
  const created = await cliJson(
    database,
    'webhooks',
    'add',
    '--project',
    'blog',
    'https://93.184.216.34/hook',
    '--event',
    'article.published',
    '--event',
    'tag.*',
    '--description',
    'rebuild',
  );
  assert.match(created.id, /^wh_/);
  assert.match(created.secret, /^whsec_/);
  assert.deepEqual(created.events, ['article.published', 'tag.*']);
  const list = await cliJson(database, 'webhooks', 'list', '--project', 'blog');
  assert.deepEqual(list, [
    {
      id: created.id,
      url: 'https://93.184.216.34/hook',
      events: ['article.published', 'tag.*'],
      description: 'rebuild',
      createdAt: created.createdAt,
    },
  ]);
  const text = await runCli(database, 'webhooks', 'list', '--project', 'blog');
  assert.ok(!text.stdout.includes('whsec_'));
  assert.deepEqual(await cliJson(database, 'webhooks', 'deliveries', created.id), {
    data: [],
    meta: { page: 1, limit: 20, total: 0, totalPages: 0 },
  });
  assert.deepEqual(await cliJson(database, 'webhooks', 'remove', created.id), {
    id: created.id,
    removed: true,
  });
  assert.deepEqual(await cliJson(database, 'webhooks', 'list', '--project', 'blog'), []);
  const again = await runCli(database, 'webhooks', 'remove', created.id);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /Webhook not found/);
});

test('webhooks add refuses a private address, an unknown event and a non-http URL, naming why', async () => {
  const database = newDatabase();
  await cliJson(database, 'projects', 'create', '--name', 'Blog', '--slug', 'blog');
  const privateTarget = await runCli(
    database,
    'webhooks',
    'add',
    '--project',
    'blog',
    'http://10.0.0.1/hook',
  );
  assert.equal(privateTarget.code, 1);
  assert.match(privateTarget.stderr, /url: .*non-public address.*WEBHOOK_ALLOW_PRIVATE/);
  const badEvent = await runCli(
    database,
    'webhooks',
    'add',
    '--project',
    'blog',
    'https://93.184.216.34/',
    '--event',
    'article.eaten',
  );
  assert.equal(badEvent.code, 1);
  assert.match(badEvent.stderr, /article\.eaten/);
  const ftp = await runCli(database, 'webhooks', 'add', '--project', 'blog', 'ftp://93.184.216.34/');
  assert.equal(ftp.code, 1);
  assert.match(ftp.stderr, /url: must be an http/);
  assert.deepEqual(await cliJson(database, 'webhooks', 'list', '--project', 'blog'), []);
});
