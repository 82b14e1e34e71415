import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestProject, describeEachDialect, getJson } from '../helpers.ts';

describeEachDialect('write API: tags', (ctx) => {
  test('create, patch, conflict, If-Match and delete a tag, with their events', async () => {
    const project = await createTestProject(ctx.db, { scopes: ['read', 'write'] });
    const send = (method: string, url: string, body?: object, headers: Record<string, string> = {}) =>
      ctx.app.inject({
        method: method as 'POST',
        url,
        headers: { ...project.headers, ...headers },
        ...(body ? { payload: body } : {}),
      });
    const created = await send('POST', '/v1/tags', { name: 'Safety Weather', color: '#112233', icon: null });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.headers.location, '/v1/tags/safety-weather');
    const { data } = created.json();
    assert.equal(created.headers.etag, `"${data.updatedAt}"`);
    const bad = await send('POST', '/v1/tags', { name: 'x', color: 'red', shade: 1 });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(
      bad
        .json()
        .details.issues.map((i: { field: string }) => i.field)
        .sort(),
      ['color', 'shade'],
    );
    const taken = await send('POST', '/v1/tags', { name: 'safety weather' });
    assert.equal(taken.statusCode, 409);
    assert.equal(taken.json().details.issues[0].field, 'name');
    assert.equal((await send('PATCH', '/v1/tags/safety-weather', { color: null })).statusCode, 428);
    assert.equal(
      (await send('PATCH', '/v1/tags/safety-weather', { color: null }, { 'if-match': '"old"' })).statusCode,
      412,
    );
    const patched = await send(
      'PATCH',
      '/v1/tags/safety-weather',
      { color: null },
      { 'if-match': created.headers.etag as string },
    );
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().data.color, null);
    assert.notEqual(patched.headers.etag, created.headers.etag);
    const read = await getJson(ctx.app, '/v1/tags/Safety%20Weather', project.headers);
    assert.equal(read.body.data.color, null);
    const gone = await send('DELETE', '/v1/tags/safety-weather', undefined, {
      'if-match': patched.headers.etag as string,
    });
    assert.equal(gone.statusCode, 204);
    assert.equal((await getJson(ctx.app, '/v1/tags/safety-weather', project.headers)).status, 404);
    const events = await ctx.db.kysely
      .selectFrom('outbox_events')
      .select('type')
      .where('project_id', '=', project.project.id)
      .execute();
    assert.deepEqual(events.map((e) => e.type).sort(), ['tag.created', 'tag.deleted', 'tag.updated']);
  });
});
