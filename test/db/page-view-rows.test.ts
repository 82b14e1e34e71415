// page_view_rows' compact values (db/page-view-rows.ts) give back exactly what was tracked, whatever
// the form of an id, a visitor id or a session id: its 16 bytes when it has that form, its text
// (keyed by a hash) when not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPageViewId } from '../../src/analytics/ingest/visitor.ts';
import {
  fromPageViewRow,
  keyOfPageViewId,
  pageViewIdOf,
  toPageViewRow,
} from '../../src/db/page-view-rows.ts';
import type { PageViewStorageTable } from '../../src/db/schema.ts';

function view(overrides: Partial<PageViewStorageTable> = {}): PageViewStorageTable {
  const at = Date.parse('2026-11-27T23:59:59.999Z');
  return {
    id: newPageViewId(at),
    project_id: 'project',
    article_id: 'article',
    day: '2026-11-27',
    created_at: new Date(at).toISOString(),
    updated_at: new Date(at + 61_000).toISOString(),
    visitor_id: 'ExDqjt__uQK8s5fY7qVVaw',
    session_id: '9e4040a0-9d91-467e-aaa7-b0cdac0ebb79',
    source: 'sdk',
    country: 'DE',
    time_on_page_ms: 12_345,
    scroll_depth_centi: 9_999,
    exit_position: 33.33,
    bounced: 0,
    screen_width: 1440,
    screen_height: 900,
    event_count: 0,
    page_url_id: 7,
    page_title_id: 8,
    referrer_id: null,
    utm_source_id: null,
    utm_medium_id: null,
    utm_campaign_id: null,
    utm_term_id: null,
    utm_content_id: null,
    events: '[]',
    test: 0,
    ...overrides,
  };
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  test(`page_view_rows [${dialect}]: a view the tracking makes is stored compact and read back the same`, () => {
    const tracked = view();
    const row = toPageViewRow(tracked, { project: 3, article: 70_000 }, dialect);
    assert.deepEqual(
      { id: row.id_text, visitor: row.visitor_text, session: row.session_text, events: row.events },
      { id: null, visitor: null, session: null, events: null },
    );
    assert.equal(row.created_ms, 86_399_999);
    assert.equal(row.updated_ms, 61_000);
    assert.equal(row.source, 1);
    if (dialect === 'sqlite') assert.equal((row.rid as Uint8Array).length, 16);
    else assert.match(String(row.rid), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual(fromPageViewRow(row, { project: 'project', article: 'article' }), tracked);
  });

  test(`page_view_rows [${dialect}]: values of another form keep their text, and read back the same`, () => {
    for (const tracked of [
      // An older release's id (a UUID), visitor id and client session ids of any form.
      view({ id: '0f8fad5b-d9cb-469f-a165-70867728950e', visitor_id: 'v1', session_id: 'session-1' }),
      view({ session_id: '9E4040A0-9D91-467E-AAA7-B0CDAC0EBB79' }),
      view({ session_id: '{9e4040a0-9d91-467e-aaa7-b0cdac0ebb79}' }),
      view({ events: '[{"type":"click","timeOffset":10}]', event_count: 1 }),
    ]) {
      const row = toPageViewRow(tracked, { project: 1, article: 1 }, dialect);
      assert.deepEqual(fromPageViewRow(row, { project: 'project', article: 'article' }), tracked);
    }
  });
}

test('page view ids: the key is the id’s day, time and 16 bytes; an id not as issued has none', () => {
  const at = Date.parse('2026-03-10T00:00:00.001Z');
  const id = newPageViewId(at);
  const key = keyOfPageViewId(id)!;
  assert.deepEqual({ day: key.day, createdMs: key.createdMs }, { day: '2026-03-10', createdMs: 1 });
  assert.equal(pageViewIdOf({ day: key.day, created_ms: key.createdMs, rid: key.rid, id_text: null }), id);
  // The last of 22 base64url characters carries 2 bits of padding: only one form is issued.
  const canonical = `${id.slice(0, 12)}${'A'.repeat(22)}`;
  assert.notEqual(keyOfPageViewId(canonical), null);
  for (const other of [
    `${id.slice(0, 12)}${'A'.repeat(21)}B`,
    'ffffffffffffAAAAAAAAAAAAAAAAAAAAAA',
    'zz',
    '',
  ])
    assert.equal(keyOfPageViewId(other), null, other);
});
