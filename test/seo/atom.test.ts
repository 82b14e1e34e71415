// GET /v1/seo/atom through the HTTP surface: an Atom 1.0 document valid against the RELAX NG
// grammar of RFC 4287 (xmllint), holding the RSS's items in the RSS's order with the RSS guids
// written as IRIs, members-only entries without content, and the RSS's parameters, errors and ETags.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  importArticles,
} from '../helpers.ts';
import {
  badQueries,
  expectedIds,
  expectedUrls,
  feedBlog,
  membersContent,
  rssItems,
  site,
} from './feed-fixtures.ts';
import { xmllint } from './xml-tools.ts';

const atomType = 'application/atom+xml; charset=utf-8';
const atomRng = fileURLToPath(new URL('./schemas/atom.rng', import.meta.url));
const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const atomParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  htmlEntities: true,
  ignoreDeclaration: true,
  isArray: (name) => ['entry', 'author', 'link', 'category'].includes(name),
});

/** The feed as every check sees it: valid against RFC 4287's grammar, then parsed. */
function readAtom(body: string) {
  const lint = xmllint(body, ['--relaxng', atomRng]);
  assert.ok(lint.ok, lint.errors.slice(0, 2000));
  const feed = atomParser.parse(body).feed;
  // The RFC's rules that its grammar leaves to Schematron: every entry has an author (the feed
  // has none to inherit) and, having content or not, one alternate link.
  for (const entry of feed.entry ?? []) {
    assert.ok(entry.author.length > 0, 'every entry names its authors');
    assert.equal(entry.link.filter((link: any) => link['@rel'] === 'alternate').length, 1);
  }
  return feed;
}

const text = (node: any) => (typeof node === 'string' ? node : node['#text']);

describeEachDialect('seo atom', (ctx) => {
  test('atom: a valid Atom 1.0 feed with the RSS items in the same order, their guids as IRIs and the same links', async () => {
    const blog = await feedBlog(ctx);
    const response = await ctx.app.inject({ url: '/v1/seo/atom', headers: blog.headers });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], atomType);
    const feed = readAtom(response.body);
    const rss = await rssItems(ctx, '', blog.headers);
    const entries = feed.entry;
    assert.deepEqual(
      entries.map((entry: any) => entry.link[0]['@href']),
      rss.map((item) => item.link),
    );
    assert.deepEqual(
      entries.map((entry: any) => entry.link[0]['@href']),
      expectedUrls,
    );
    // The members-only article kept its Folio id as guid: a UUID.
    assert.match(rss[0].guid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      entries.map((entry: any) => entry.id),
      expectedIds(blog.nativeId, `urn:uuid:${rss[0].guid}`),
    );
    assert.deepEqual(
      rss.map((item) => item.guid),
      [rss[0].guid, 'https://old.example.com/moved/', blog.nativeId, '5f3a 1/é'],
    );
    // Public entries carry the RSS content:encoded as HTML content, and the meta description.
    for (const [index, entry] of entries.entries()) {
      if (index === 0) continue;
      assert.equal(entry.content['@type'], 'html');
      assert.equal(text(entry.content), rss[index].contentEncoded);
      assert.equal(entry.summary['@type'], 'text');
      assert.equal(text(entry.summary), rss[index].description);
    }
    assert.equal(
      entries[1].content['#text'],
      `<p>Read <a href="${site}/guides/docs/">the docs</a> &amp; more.</p>\n`,
    );
  });

  test('atom: a members-only entry has its teaser as an HTML summary and no content, for either key', async () => {
    const blog = await feedBlog(ctx);
    const bodies: string[] = [];
    for (const headers of [blog.headers, blog.publicHeaders]) {
      const response = await ctx.app.inject({ url: '/v1/seo/atom', headers });
      assert.equal(response.statusCode, 200);
      assert.ok(!response.body.includes('Secret members text'), 'the members part never reaches the feed');
      const [members] = readAtom(response.body).entry;
      assert.equal(members.content, undefined);
      assert.equal(members.summary['@type'], 'html');
      assert.equal(
        members.summary['#text'],
        `<p>Free intro with a <a href="${site}/2026/members-post/notes/">link</a> and a chart: <img src="${site}/2026/members-post/chart.png" alt="chart" /></p>\n`,
      );
      bodies.push(response.body);
    }
    assert.equal(bodies[0], bodies[1], 'feeds are public: both key kinds read the same document');
    assert.ok(membersContent.includes('Secret members text'));
  });

  test('atom: feed id, links, updated, generator, icon and logo; entry dates in RFC 3339 and one author and category each', async () => {
    const blog = await feedBlog(ctx);
    const feedUrl = 'https://blog.example.com/atom.xml?lang=en&x="y"';
    const response = await ctx.app.inject({
      url: `/v1/seo/atom?feedUrl=${encodeURIComponent(feedUrl)}`,
      headers: blog.headers,
    });
    const feed = readAtom(response.body);
    assert.equal(feed['@xmlns'], 'http://www.w3.org/2005/Atom');
    assert.equal(feed.id, site);
    assert.equal(text(feed.title), blog.project.name);
    assert.equal(text(feed.subtitle), 'A test project');
    assert.deepEqual(
      feed.link.map((link: any) => [link['@rel'], link['@type'], link['@href']]),
      [
        ['alternate', 'text/html', site],
        ['self', 'application/atom+xml', 'https://blog.example.com/atom.xml?lang=en&x=%22y%22'],
      ],
    );
    assert.equal(feed.updated, '2026-01-06T12:00:00.000Z', 'the latest change of an entry, not the clock');
    assert.equal(feed.generator, 'Folio');
    assert.equal(feed.icon, 'https://cdn.example.com/logo.png');
    assert.equal(feed.logo, 'https://cdn.example.com/logo.png');
    const [members, moved] = feed.entry;
    assert.equal(members.published, '2026-01-05T00:00:00.000Z');
    assert.equal(members.updated, '2026-01-06T12:00:00.000Z');
    for (const entry of feed.entry) {
      assert.match(entry.published, rfc3339);
      assert.match(entry.updated, rfc3339);
    }
    assert.deepEqual(moved.author, [
      { name: 'Ada', uri: 'https://ada.example' },
      { name: 'Grace', uri: `${site}/authors/grace/` },
    ]);
    assert.deepEqual(members.author, [{ name: 'Ada' }]);
    assert.deepEqual(
      moved.category.map((category: any) => category['@term']),
      ['Guides', 'news'],
    );
    assert.equal(text(moved.title), 'Moved in');
  });

  test('atom: a project without a logo or published articles is a valid feed without icon, logo or entries', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: site });
    const response = await ctx.app.inject({ url: '/v1/seo/atom', headers });
    const feed = readAtom(response.body);
    assert.equal(feed.entry, undefined);
    assert.equal(feed.icon, undefined);
    assert.equal(feed.logo, undefined);
    assert.equal(feed.updated, new Date(project.updated_at).toISOString());
  });

  test('atom: limit and baseUrl select the same items as the RSS; other hosts mint other tag ids', async () => {
    const blog = await feedBlog(ctx);
    const query = '?limit=2&baseUrl=https://mirror.example.org/blog';
    const feed = readAtom(
      (await ctx.app.inject({ url: `/v1/seo/atom${query}`, headers: blog.headers })).body,
    );
    const rss = await rssItems(ctx, query, blog.headers);
    assert.equal(feed.entry.length, 2);
    assert.deepEqual(
      feed.entry.map((entry: any) => entry.link[0]['@href']),
      rss.map((item) => item.link),
    );
    assert.equal(feed.id, 'https://mirror.example.org/blog');
    const all = readAtom(
      (
        await ctx.app.inject({
          url: '/v1/seo/atom?baseUrl=https://mirror.example.org',
          headers: blog.headers,
        })
      ).body,
    );
    assert.equal(all.entry[3].id, 'tag:mirror.example.org,2026:5f3a%201/%C3%A9');
    assert.equal(all.entry[1].id, 'https://old.example.com/moved/', 'a URL guid does not follow baseUrl');
  });

  test('atom: hostile titles and control characters still make a valid feed that reads back exactly', async () => {
    const { project, headers } = await createTestProject(ctx.db, {
      siteUrl: site,
      name: 'Ben & Jerry\'s <"Blog"> ]]>',
    });
    const title = `Tom & Jerry <script>x</script> ]]> 'q' "d" 😀 中文 bell\u0007`;
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'hostile',
        title,
        tags: ['C&C', '<tag>'],
        author: { name: 'Zoë "Z" <z@x>', image: null },
      }),
    ]);
    const feed = readAtom((await ctx.app.inject({ url: '/v1/seo/atom', headers })).body);
    assert.equal(text(feed.title), 'Ben & Jerry\'s <"Blog"> ]]>');
    const [entry] = feed.entry;
    assert.equal(text(entry.title), title.replace('\u0007', ''));
    assert.deepEqual(
      entry.category.map((category: any) => category['@term']),
      ['<tag>', 'C&C'],
    );
    assert.equal(entry.author[0].name, 'Zoë "Z" <z@x>');
  });

  test('atom: an ETag, and 304 with a matching If-None-Match', async () => {
    const blog = await feedBlog(ctx);
    const first = await ctx.app.inject({ url: '/v1/seo/atom', headers: blog.headers });
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    const again = await ctx.app.inject({
      url: '/v1/seo/atom',
      headers: { ...blog.headers, 'if-none-match': etag },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const other = await ctx.app.inject({
      url: '/v1/seo/atom',
      headers: { ...blog.headers, 'if-none-match': '"other"' },
    });
    assert.equal(other.statusCode, 200);
  });

  test('atom: bad parameters are 400s naming the field, as JSON; no key is a 401', async () => {
    const { headers } = await createTestProject(ctx.db, { siteUrl: site });
    for (const [query, field, message] of badQueries) {
      const response = await ctx.app.inject({ url: `/v1/seo/atom?${query}`, headers });
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      const issues = response.json().details.issues;
      assert.equal(issues[0].field, field, query);
      if (message !== '') assert.equal(issues[0].message, message, query);
    }
    const noSite = await createTestProject(ctx.db);
    const missing = await ctx.app.inject({ url: '/v1/seo/atom', headers: noSite.headers });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().details.issues[0].field, 'baseUrl');
    const anonymous = await ctx.app.inject({ url: '/v1/seo/atom' });
    assert.equal(anonymous.statusCode, 401);
  });
  test('atom and JSON Feed: CORS for a public key and preflights without a key, as the RSS', async () => {
    const { project } = await createTestProject(ctx.db, { siteUrl: site });
    const origin = 'https://blog.example.com';
    const pub = await createTestKey(ctx.db, project, { kind: 'public', origins: [origin] });
    for (const url of ['/v1/seo/atom', '/v1/seo/feed.json']) {
      const response = await ctx.app.inject({ url, headers: { ...pub.headers, origin } });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['access-control-allow-origin'], origin, url);
      const refused = await ctx.app.inject({
        url,
        headers: { ...pub.headers, origin: 'https://evil.example' },
      });
      assert.equal(refused.statusCode, 403, url);
      const preflight = await ctx.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-api-key',
        },
      });
      assert.equal(preflight.statusCode, 204, url);
      assert.equal(preflight.headers['access-control-allow-origin'], origin, url);
    }
  });

  test('atom and JSON Feed: a new article is in the next answer (no stale cached feed)', async () => {
    const blog = await feedBlog(ctx);
    for (const url of ['/v1/seo/atom', '/v1/seo/feed.json'])
      await ctx.app.inject({ url, headers: blog.headers });
    await importArticles(ctx.db, blog.project, [
      articleInput({ slug: 'brand-new', title: 'Brand new', publishedAt: '2026-01-10T00:00:00.000Z' }),
    ]);
    const atom = readAtom((await ctx.app.inject({ url: '/v1/seo/atom', headers: blog.headers })).body);
    assert.equal(atom.entry[0].link[0]['@href'], `${site}/2026/brand-new/`);
    const json = JSON.parse((await ctx.app.inject({ url: '/v1/seo/feed.json', headers: blog.headers })).body);
    assert.equal(json.items[0].url, `${site}/2026/brand-new/`);
  });
});
