import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestKey, createTestProject, describeEachDialect, getJson } from '../helpers.ts';
import { stubLookup } from './support.ts';

// The routes alone: nothing is ever sent from this suite.
const options = { webhooks: { dispatch: false, lookup: stubLookup, allowPrivate: ['127.0.0.1'] } };

describeEachDialect(
  'webhooks API',
  (context) => {
    const writer = async () => createTestProject(context.db, { scopes: ['read', 'write'] });
    const post = (headers: Record<string, string>, payload: unknown) =>
      context.app.inject({ method: 'POST', url: '/v1/webhooks', headers, payload: payload as object });

    test('create: 201 with Location and the secret once; list shows no secret', async () => {
      const { headers } = await writer();
      const response = await post(headers, {
        url: 'https://hooks.example.com/folio',
        events: ['article.published', 'tag.*'],
        description: 'Rebuild the site',
      });
      assert.equal(response.statusCode, 201);
      const created = response.json().data;
      assert.match(created.id, /^wh_/);
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(response.headers.location, `/v1/webhooks/${created.id}`);
      assert.deepEqual(created.events, ['article.published', 'tag.*']);
      const list = await getJson(context.app, '/v1/webhooks', headers);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data, [
        {
          id: created.id,
          url: 'https://hooks.example.com/folio',
          events: ['article.published', 'tag.*'],
          description: 'Rebuild the site',
          createdAt: created.createdAt,
        },
      ]);
      assert.ok(!JSON.stringify(list.body).includes('whsec_'));
    });

    test('create: bad input is a 400 naming the field', async () => {
      const { headers } = await writer();
      const cases: Array<[unknown, string]> = [
        [{}, 'url'],
        [{ url: 'ftp://hooks.example.com/x' }, 'url'],
        [{ url: 'not a url' }, 'url'],
        [{ url: 'https://user:pw@hooks.example.com/' }, 'url'],
        [{ url: 'https://hooks.example.com/', events: ['article.eaten'] }, 'events.0'],
        [{ url: 'https://hooks.example.com/', color: 'red' }, 'color'],
        [{ url: 'https://no-such-host.example.com/' }, 'url'],
      ];
      for (const [payload, field] of cases) {
        const response = await post(headers, payload);
        assert.equal(response.statusCode, 400, JSON.stringify(payload));
        const body = response.json();
        assert.deepEqual(
          body.details.issues.map((issue: { field: string }) => issue.field),
          [field],
          JSON.stringify(payload),
        );
      }
      assert.equal((await getJson(context.app, '/v1/webhooks', headers)).body.data.length, 0);
    });

    test('create: non-public targets are refused unless allowed (no socket opened: DNS is stubbed)', async () => {
      const { headers } = await writer();
      const refused = [
        'http://10.0.0.1/hook',
        'http://192.168.4.2/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]:8080/hook',
        'http://[fd00::1]/hook',
        'http://[::ffff:10.0.0.1]/hook',
        'http://127.0.0.2/hook',
        'http://0.0.0.0/hook',
        'http://100.64.0.1/hook',
        'http://224.0.0.1/hook',
        'https://intranet.example.com/hook',
        'https://metadata.example.com/hook',
        'https://mixed.example.com/hook',
        'https://v6-private.example.com/hook',
      ];
      for (const url of refused) {
        const response = await post(headers, { url });
        assert.equal(response.statusCode, 400, url);
        const [issue] = response.json().details.issues;
        assert.equal(issue.field, 'url');
        assert.match(issue.message, /non-public address|WEBHOOK_ALLOW_PRIVATE/, url);
      }
      // The allow-list of these tests: 127.0.0.1 only.
      assert.equal((await post(headers, { url: 'http://127.0.0.1:9/hook' })).statusCode, 201);
      assert.equal((await post(headers, { url: 'http://receiver.test:9/hook' })).statusCode, 201);
    });

    test('scopes: a key without write gets 403 naming it; a public key 403', async () => {
      const { project } = await writer();
      const reader = await createTestKey(context.db, project, { scopes: ['read', 'analytics'] });
      const response = await post(reader.headers, { url: 'https://hooks.example.com/' });
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().details.scope, 'write');
      assert.equal((await getJson(context.app, '/v1/webhooks', reader.headers)).status, 403);
      const publicKey = await createTestKey(context.db, project, { kind: 'public' });
      assert.equal((await getJson(context.app, '/v1/webhooks', publicKey.headers)).status, 403);
    });

    test('delete: 204, then 404; another project cannot see or delete it', async () => {
      const owner = await writer();
      const other = await writer();
      const created = (await post(owner.headers, { url: 'https://hooks.example.com/' })).json().data;
      assert.equal((await getJson(context.app, '/v1/webhooks', other.headers)).body.data.length, 0);
      const foreign = await context.app.inject({
        method: 'DELETE',
        url: `/v1/webhooks/${created.id}`,
        headers: other.headers,
      });
      assert.equal(foreign.statusCode, 404);
      assert.equal(foreign.json().message, 'Webhook not found');
      assert.equal(
        (await getJson(context.app, `/v1/webhooks/${created.id}/deliveries`, other.headers)).status,
        404,
      );
      const deleted = await context.app.inject({
        method: 'DELETE',
        url: `/v1/webhooks/${created.id}`,
        headers: owner.headers,
      });
      assert.equal(deleted.statusCode, 204);
      assert.equal(deleted.body, '');
      const again = await context.app.inject({
        method: 'DELETE',
        url: `/v1/webhooks/${created.id}`,
        headers: owner.headers,
      });
      assert.equal(again.statusCode, 404);
    });

    test('deliveries: an empty log pages; a bad limit is a 400 naming it', async () => {
      const { headers } = await writer();
      const created = (await post(headers, { url: 'https://hooks.example.com/' })).json().data;
      const log = await getJson(context.app, `/v1/webhooks/${created.id}/deliveries`, headers);
      assert.equal(log.status, 200);
      assert.deepEqual(log.body, { data: [], meta: { page: 1, limit: 20, total: 0, totalPages: 0 } });
      const bad = await getJson(context.app, `/v1/webhooks/${created.id}/deliveries?limit=500`, headers);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.details.issues[0].field, 'limit');
    });

    test('the OpenAPI document describes signing, retries and the address rule', async () => {
      const document = (await getJson(context.app, '/v1/openapi.json')).body;
      const description: string = document.paths['/v1/webhooks'].post.description;
      for (const phrase of ['webhook-signature', 'HMAC-SHA256', '14 h', 'WEBHOOK_ALLOW_PRIVATE', 'failed']) {
        assert.ok(description.includes(phrase), phrase);
      }
    });
  },
  options,
);
