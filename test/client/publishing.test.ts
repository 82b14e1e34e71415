// The client's publishing calls against the real server: article and tag writes with versions,
// idempotent creation, revisions, draft previews read by a public key, and webhooks whose
// deliveries the client's verifyWebhook accepts.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { FolioClient, FolioError, verifyWebhook } from '../../packages/client/src/index.ts';
import { createTestKey, createTestProject, describeEachDialect, type TestProject } from '../helpers.ts';
import { testWebhookOptions } from '../webhooks/support.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

describeEachDialect(
  'client publishing',
  (context) => {
    let baseUrl: string;
    let owner: TestProject;
    let client: FolioClient;
    const received: Received[] = [];
    const receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(204).end();
      });
    });

    before(async () => {
      baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
      owner = await createTestProject(context.db, { scopes: ['read', 'write'] });
      client = new FolioClient({ baseUrl, key: owner.key });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    });
    after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

    test('articles: create with an idempotency key, patch and replace by version, a stale version refused, revisions restored, delete', async () => {
      const article = { slug: 'hello', title: 'Hello', content: 'First **words**.', tags: ['News'] };
      const created = await client.write.createArticle(article, { idempotencyKey: 'create-hello' });
      assert.equal(created.etag, '"1"');
      assert.equal(created.data.title, 'Hello');
      const replayed = await client.write.createArticle(article, { idempotencyKey: 'create-hello' });
      assert.equal(replayed.data.id, created.data.id);

      const patched = await client.write.patchArticle('hello', { title: 'Hello again' }, created.etag!);
      assert.equal(patched.etag, '"2"');
      assert.equal(patched.data.title, 'Hello again');
      await assert.rejects(
        client.write.replaceArticle('hello', { ...article, title: 'Lost update' }, 1),
        (error: unknown) => error instanceof FolioError && error.status === 412,
      );
      const replaced = await client.write.replaceArticle('hello', { ...article, title: 'Third' }, 2);
      assert.equal(replaced.etag, '"3"');

      const revisions = await client.write.revisions('hello');
      assert.deepEqual(
        revisions.map((revision) => revision.version),
        [2, 1],
      );
      const first = revisions.find((revision) => revision.version === 1)!;
      assert.equal((await client.write.revision('hello', first.id)).snapshot.title, 'Hello');
      const restored = await client.write.restoreRevision('hello', first.id, replaced.etag!);
      assert.equal(restored.data.title, 'Hello');
      assert.equal(restored.etag, '"4"');

      await client.write.deleteArticle('hello', 4);
      await assert.rejects(
        client.articles.get('hello'),
        (error: unknown) => error instanceof FolioError && error.status === 404,
      );
    });

    test('tags: create, patch by version, delete', async () => {
      const created = await client.write.createTag({ name: 'Notes', color: '#336699' });
      assert.equal(created.data.name, 'Notes');
      assert.ok(created.etag);
      const patched = await client.write.patchTag('Notes', { color: '#993366' }, created.etag!);
      assert.equal(patched.data.color, '#993366');
      await client.write.deleteTag('Notes', patched.etag!);
      assert.deepEqual(
        (await client.tags.all()).map((tag) => tag.name).filter((name) => name === 'Notes'),
        [],
      );
    });

    test('previews: a public key reads a draft with its token until it is revoked', async () => {
      await client.write.createArticle({
        slug: 'draft',
        title: 'Draft',
        content: 'Not yet.',
        status: 'draft',
      });
      const preview = await client.previews.create('draft', { expiresIn: '1d' });
      assert.match(preview.token, /^fpv_/);
      const reader = new FolioClient({
        baseUrl,
        key: (await createTestKey(context.db, owner.project, { kind: 'public' })).key,
      });
      await assert.rejects(
        reader.articles.get('draft'),
        (error: unknown) => error instanceof FolioError && error.status === 404,
      );
      assert.equal((await reader.articles.get('draft', { preview: preview.token })).title, 'Draft');
      assert.deepEqual(
        (await client.previews.list('draft')).map((listed) => listed.id),
        [preview.id],
      );
      await client.previews.revoke(preview.id);
      await assert.rejects(
        reader.articles.get('draft', { preview: preview.token }),
        (error: unknown) => error instanceof FolioError && error.status === 403,
      );
    });

    test('webhooks: the deliveries of a write verify with the secret the client was given once', async () => {
      const { port } = receiver.address() as AddressInfo;
      const webhook = await client.webhooks.create({
        url: `http://127.0.0.1:${port}/hook`,
        events: ['article.*'],
      });
      assert.match(webhook.secret, /^whsec_/);
      assert.deepEqual(
        (await client.webhooks.list()).map((listed) => listed.id),
        [webhook.id],
      );
      await client.write.createArticle({
        slug: 'news',
        title: 'News',
        content: 'Out now.',
        status: 'published',
      });
      const deadline = Date.now() + 10_000;
      while (received.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(received.length > 0, 'no delivery arrived');
      const event = await verifyWebhook<{ slug: string }>(
        webhook.secret,
        received[0].headers as Record<string, string>,
        received[0].body,
      );
      assert.equal(event.type, 'article.published');
      assert.equal(event.data.slug, 'news');
      await assert.rejects(
        verifyWebhook(webhook.secret, received[0].headers as Record<string, string>, `${received[0].body} `),
      );
      const log = await client.webhooks.deliveries(webhook.id);
      assert.ok(
        log.data.some((delivery) => delivery.status === 'delivered' && delivery.lastStatusCode === 204),
      );
      await client.webhooks.remove(webhook.id);
      assert.deepEqual(await client.webhooks.list(), []);
    });
  },
  { webhooks: testWebhookOptions() },
);
