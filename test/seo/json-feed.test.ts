// GET /v1/seo/feed.json through the HTTP surface: a JSON Feed 1.1 document valid against the
// schema written from jsonfeed.org's specification (Ajv), holding the RSS's items in the RSS's
// order with the RSS guids written as IRIs, members-only items without content_html, and the
// RSS's parameters, errors and ETags.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { articleInput, createTestProject, describeEachDialect, importArticles } from '../helpers.ts';
import { badQueries, expectedIds, expectedUrls, feedBlog, rssItems, site } from './feed-fixtures.ts';

const feedType = 'application/feed+json; charset=utf-8';
const schema = JSON.parse(
  readFileSync(new URL('./schemas/jsonfeed-1.1.schema.json', import.meta.url), 'utf8'),
) as object;
const ajv = new Ajv({ allErrors: true });
addFormats.default(ajv);
const validate = ajv.compile(schema);

/** The feed as every check sees it: valid JSON Feed 1.1, then parsed. */
function readJsonFeed(body: string): any {
  const feed = JSON.parse(body);
  assert.ok(validate(feed), JSON.stringify(validate.errors, null, 2));
  return feed;
}

describeEachDialect('seo json feed', (ctx) => {
  test('json feed: the schema refuses what JSON Feed 1.1 forbids, so a passing feed means something', () => {
    const valid = {
      version: 'https://jsonfeed.org/version/1.1',
      title: 'T',
      items: [{ id: '1', content_text: 'x' }],
    };
    assert.ok(validate(valid));
    const broken = [
      { ...valid, version: 'https://jsonfeed.org/version/1' },
      { ...valid, items: [{ id: '1' }] },
      { ...valid, items: [{ id: '1', content_html: '<p>x</p>', date_published: 'yesterday' }] },
      { ...valid, items: [{ id: '1', content_html: 'x', authors: [{}] }] },
      { ...valid, items: [{ id: '1', content_html: 'x', contentHtml: 'x' }] },
      { ...valid, home_page_url: 'not a url' },
    ];
    for (const feed of broken) assert.equal(validate(feed), false, JSON.stringify(feed));
    assert.ok(validate({ ...valid, _folio: { any: 'extension' } }));
  });

  test('json feed: a valid JSON Feed 1.1 with the RSS items in the same order, their guids as IRIs and the same links', async () => {
    const blog = await feedBlog(ctx);
    const response = await ctx.app.inject({ url: '/v1/seo/feed.json', headers: blog.headers });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], feedType);
    const feed = readJsonFeed(response.body);
    const rss = await rssItems(ctx, '', blog.headers);
    assert.deepEqual(
      feed.items.map((item: any) => item.url),
      rss.map((item) => item.link),
    );
    assert.deepEqual(
      feed.items.map((item: any) => item.url),
      expectedUrls,
    );
    assert.deepEqual(
      feed.items.map((item: any) => item.id),
      expectedIds(blog.nativeId, `urn:uuid:${rss[0].guid}`),
    );
    for (const [index, item] of feed.items.entries()) {
      if (index === 0) continue;
      assert.equal(item.content_html, rss[index].contentEncoded);
      assert.equal(item.content_text, undefined);
      assert.equal(item.summary, rss[index].description);
    }
  });

  test('json feed: a members-only item has its teaser as plain-text summary and content_text, no content_html, for either key', async () => {
    const blog = await feedBlog(ctx);
    const bodies: string[] = [];
    for (const headers of [blog.headers, blog.publicHeaders]) {
      const response = await ctx.app.inject({ url: '/v1/seo/feed.json', headers });
      assert.equal(response.statusCode, 200);
      assert.ok(!response.body.includes('Secret members text'), 'the members part never reaches the feed');
      const [members] = readJsonFeed(response.body).items;
      assert.equal(members.content_html, undefined);
      assert.equal(members.summary, 'Free intro with a link and a chart:');
      assert.equal(members.content_text, members.summary);
      bodies.push(response.body);
    }
    assert.equal(bodies[0], bodies[1], 'feeds are public: both key kinds read the same document');
  });

  test('json feed: without a teaser, or with one of pictures alone, a members-only item shows its meta description', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: site });
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'paid',
        visibility: 'paid',
        tiers: ['gold'],
        excerpt: 'A paid excerpt',
        content: 'All of it is for paying readers.\n',
        publishedAt: '2026-01-02T00:00:00.000Z',
      }),
      articleInput({
        slug: 'pictures',
        visibility: 'members',
        excerpt: 'A picture excerpt',
        content: '![a teaser picture](a.png)\n\n<!--members-only-->\n\nThe members text.\n',
        publishedAt: '2026-01-01T00:00:00.000Z',
      }),
    ]);
    const response = await ctx.app.inject({ url: '/v1/seo/feed.json', headers });
    assert.ok(!response.body.includes('paying readers'));
    assert.ok(!response.body.includes('members text'));
    const [paid, pictures] = readJsonFeed(response.body).items;
    assert.equal(pictures.summary, 'A picture excerpt', 'a teaser of pictures alone has no text');
    assert.equal(pictures.content_text, 'A picture excerpt');
    assert.equal(paid.summary, 'A paid excerpt');
    assert.equal(paid.content_text, 'A paid excerpt');
    assert.equal(paid.content_html, undefined);
  });

  test('json feed: feed members, dates in RFC 3339, authors with url and avatar, and tags', async () => {
    const blog = await feedBlog(ctx);
    const feedUrl = 'https://blog.example.com/feed.json?x="y"';
    const response = await ctx.app.inject({
      url: `/v1/seo/feed.json?feedUrl=${encodeURIComponent(feedUrl)}`,
      headers: blog.headers,
    });
    const feed = readJsonFeed(response.body);
    assert.deepEqual(Object.keys(feed), [
      'version',
      'title',
      'home_page_url',
      'feed_url',
      'description',
      'icon',
      'items',
    ]);
    assert.equal(feed.version, 'https://jsonfeed.org/version/1.1');
    assert.equal(feed.title, blog.project.name);
    assert.equal(feed.home_page_url, site);
    assert.equal(feed.feed_url, 'https://blog.example.com/feed.json?x=%22y%22');
    assert.equal(feed.description, 'A test project');
    assert.equal(feed.icon, 'https://cdn.example.com/logo.png');
    const [members, moved, native] = feed.items;
    assert.equal(members.date_published, '2026-01-05T00:00:00.000Z');
    assert.equal(members.date_modified, '2026-01-06T12:00:00.000Z');
    assert.equal(members.title, 'For members');
    assert.deepEqual(moved.authors, [
      { name: 'Ada', url: 'https://ada.example', avatar: `${site}/img/ada.png` },
      { name: 'Grace', url: `${site}/authors/grace/` },
    ]);
    assert.deepEqual(native.authors, [{ name: 'Ada' }]);
    assert.deepEqual(moved.tags, ['Guides', 'news']);
    assert.equal(native.tags, undefined, 'no tags: left out');
  });

  test('json feed: limit and baseUrl select the same items as the RSS; an empty project has no items', async () => {
    const blog = await feedBlog(ctx);
    const query = '?limit=3&baseUrl=https://mirror.example.org';
    const feed = readJsonFeed(
      (await ctx.app.inject({ url: `/v1/seo/feed.json${query}`, headers: blog.headers })).body,
    );
    const rss = await rssItems(ctx, query, blog.headers);
    assert.deepEqual(
      feed.items.map((item: any) => item.url),
      rss.map((item) => item.link),
    );
    assert.equal(feed.items.length, 3);
    assert.equal(feed.home_page_url, 'https://mirror.example.org');
    const empty = await createTestProject(ctx.db, { siteUrl: site });
    const none = readJsonFeed(
      (await ctx.app.inject({ url: '/v1/seo/feed.json', headers: empty.headers })).body,
    );
    assert.deepEqual(none.items, []);
    assert.equal(none.icon, undefined);
    assert.equal(none.feed_url, undefined);
  });

  test('json feed: hostile text and control characters come back exactly in valid, script-safe JSON', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: site });
    const title = `Tom & Jerry <script>x</script> "d" \\ 😀 中文 bell\u0007 \u2028`;
    await importArticles(ctx.db, project, [articleInput({ slug: 'hostile', title })]);
    const response = await ctx.app.inject({ url: '/v1/seo/feed.json', headers });
    assert.doesNotMatch(response.body, /[<>&\u2028]/, 'script-safe: a front end may inline it');
    const feed = readJsonFeed(response.body);
    assert.equal(feed.items[0].title, title);
  });

  test('json feed: an ETag, and 304 with a matching If-None-Match', async () => {
    const blog = await feedBlog(ctx);
    const first = await ctx.app.inject({ url: '/v1/seo/feed.json', headers: blog.headers });
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    const again = await ctx.app.inject({
      url: '/v1/seo/feed.json',
      headers: { ...blog.headers, 'if-none-match': etag },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  test('json feed: bad parameters are 400s naming the field; no key is a 401', async () => {
    const { headers } = await createTestProject(ctx.db, { siteUrl: site });
    for (const [query, field, message] of badQueries) {
      const response = await ctx.app.inject({ url: `/v1/seo/feed.json?${query}`, headers });
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      const issues = response.json().details.issues;
      assert.equal(issues[0].field, field, query);
      if (message !== '') assert.equal(issues[0].message, message, query);
    }
    const anonymous = await ctx.app.inject({ url: '/v1/seo/feed.json' });
    assert.equal(anonymous.statusCode, 401);
  });
});
