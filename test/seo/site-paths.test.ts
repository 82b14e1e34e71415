// The SEO answers of a blog moved in from another generator: every link is the article's own URL
// (its path, else the project's URL pattern in its time zone), RSS guids are the stored feed ids,
// members-only articles show only their teaser in public places, JSON-LD lists every author, and
// embeds become links in the feed. Articles go in through the import, as a real move does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Parser from 'rss-parser';
import type { Db } from '../../src/db/database.ts';
import type { Project } from '../../src/db/schema.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
} from '../helpers.ts';
import { xmllint, xmlParser } from './xml-tools.ts';

const feedParser = new Parser();
const site = 'https://blog.example.com';

async function readFeed(body: string) {
  const lint = xmllint(body);
  assert.ok(lint.ok, lint.errors.slice(0, 2000));
  return { feed: await feedParser.parseString(body), tree: xmlParser.parse(body) };
}

/** The project's URL settings, as `folio projects update --url-pattern` would store them. */
async function setUrlSettings(db: Db, project: Project, urlPattern: string, timeZone: string) {
  await db.kysely
    .updateTable('projects')
    .set({ url_pattern: urlPattern, time_zone: timeZone })
    .where('id', '=', project.id)
    .execute();
}

const members =
  'Free intro with a chart: ![chart](chart.png)\n\n<!--members-only-->\n\nSecret members text.\n';

describeEachDialect('seo: article URLs, feed ids, visibility and authors', (ctx) => {
  test('every link of an article with its own path is its URL: canonical, og:url, sitemap, RSS and JSON-LD', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: `${site}/` });
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'setup', path: '/guides/setup/', guid: 'old-feed-guid-1' }),
    ]);
    const url = `${site}/guides/setup/`;
    const { body } = await getJson(ctx.app, '/v1/seo/article/setup', headers);
    assert.equal(body.data.seo.canonicalUrl, url);
    assert.equal(body.data.seo.ogUrl, url);
    assert.equal(body.data.seo.structuredData.url, url);
    assert.deepEqual(body.data.seo.structuredData.mainEntityOfPage, { '@type': 'WebPage', '@id': url });

    const sitemap = await getJson(ctx.app, '/v1/seo/sitemap?format=json', headers);
    assert.deepEqual(
      sitemap.body.data.urls.map((entry: { loc: string }) => entry.loc),
      [url],
    );
    const xml = await ctx.app.inject({ url: '/v1/seo/sitemap', headers });
    assert.match(xml.body, /<loc>https:\/\/blog\.example\.com\/guides\/setup\/<\/loc>/);

    const rss = await ctx.app.inject({ url: '/v1/seo/rss', headers });
    const { feed, tree } = await readFeed(rss.body);
    assert.equal(feed.items[0].link, url);
    assert.equal(feed.items[0].guid, 'old-feed-guid-1');
    assert.equal(tree.rss.channel.item[0].guid['@isPermaLink'], 'false');

    const data = await getJson(ctx.app, '/v1/seo/structured-data', headers);
    assert.equal(data.body.data.articles[0].structuredData.url, url);
  });

  test('an explicit baseUrl comes before the article path, and a seo.canonicalUrl override is og:url too', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: site });
    await importArticles(ctx.db, project, [
      articleInput({ slug: 'a', path: '/notes/a/' }),
      articleInput({
        slug: 'b',
        path: '/notes/b/',
        seo: {
          metaTitle: null,
          metaDescription: null,
          ogImage: null,
          canonicalUrl: '/elsewhere/b',
          keywords: null,
        },
      }),
    ]);
    const a = await getJson(ctx.app, '/v1/seo/article/a?baseUrl=https://mirror.example.org/blog', headers);
    assert.equal(a.body.data.seo.canonicalUrl, 'https://mirror.example.org/blog/notes/a/');
    const b = await getJson(ctx.app, '/v1/seo/article/b', headers);
    assert.equal(b.body.data.seo.canonicalUrl, `${site}/elsewhere/b`);
    assert.equal(b.body.data.seo.ogUrl, `${site}/elsewhere/b`);
    assert.equal(b.body.data.seo.structuredData.url, `${site}/notes/b/`);
  });

  test("articles without a path follow the project's URL pattern, with dates in its time zone", async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: site });
    await setUrlSettings(ctx.db, project, '/:year/:month/:day/:slug/', 'America/New_York');
    await importArticles(ctx.db, project, [
      // 02:30 UTC on 1 March is still 28 February in New York.
      articleInput({ slug: 'late-night', publishedAt: '2026-03-01T02:30:00.000Z' }),
    ]);
    const url = `${site}/2026/02/28/late-night/`;
    const { body } = await getJson(ctx.app, '/v1/seo/article/late-night', headers);
    assert.equal(body.data.seo.canonicalUrl, url);
    const sitemap = await getJson(ctx.app, '/v1/seo/sitemap?format=json', headers);
    assert.equal(sitemap.body.data.urls[0].loc, url);
    const { feed } = await readFeed((await ctx.app.inject({ url: '/v1/seo/rss', headers })).body);
    assert.equal(feed.items[0].link, url);
  });

  test("relative images resolve against the article's URL (page bundles), and /… against the site root", async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: site });
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'bundle',
        path: '/posts/bundle/',
        coverImage: 'cover.jpg',
        content: '![diagram](diagram.png) and ![logo](/images/logo.png) and [sibling](../other/).\n',
      }),
      articleInput({
        slug: 'og',
        path: '/posts/og/',
        seo: {
          metaTitle: null,
          metaDescription: null,
          ogImage: 'social.png',
          canonicalUrl: null,
          keywords: null,
        },
      }),
    ]);
    const { body } = await getJson(ctx.app, '/v1/seo/article/bundle', headers);
    assert.equal(body.data.seo.ogImage, `${site}/posts/bundle/cover.jpg`);
    assert.equal(body.data.seo.structuredData.image, `${site}/posts/bundle/cover.jpg`);
    const og = await getJson(ctx.app, '/v1/seo/article/og', headers);
    assert.equal(og.body.data.seo.ogImage, `${site}/posts/og/social.png`);

    const { feed } = await readFeed((await ctx.app.inject({ url: '/v1/seo/rss', headers })).body);
    const html = (feed.items.find((item) => item.link === `${site}/posts/bundle/`) as any)['content:encoded'];
    assert.ok(html.includes(`src="${site}/posts/bundle/diagram.png"`), html);
    assert.ok(html.includes(`src="${site}/images/logo.png"`), html);
    assert.ok(html.includes(`href="${site}/posts/other/"`), html);
  });

  test('RSS guids are the stored feed ids, and articles stored without one use their id', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: site });
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'moved',
        guid: 'https://old.example.com/moved/',
        publishedAt: '2026-01-02T00:00:00.000Z',
      }),
      articleInput({ slug: 'native', publishedAt: '2026-01-01T00:00:00.000Z' }),
    ]);
    // A bulk-loaded row may hold no guid at all.
    await ctx.db.kysely
      .updateTable('articles')
      .set({ guid: null })
      .where('project_id', '=', project.id)
      .where('slug', '=', 'native')
      .execute();
    const native = await ctx.db.kysely
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', project.id)
      .where('slug', '=', 'native')
      .executeTakeFirstOrThrow();
    const { feed, tree } = await readFeed((await ctx.app.inject({ url: '/v1/seo/rss', headers })).body);
    assert.deepEqual(
      feed.items.map((item) => item.guid),
      ['https://old.example.com/moved/', native.id],
    );
    for (const item of tree.rss.channel.item) assert.equal(item.guid['@isPermaLink'], 'false');
  });
});

describeEachDialect('seo: members-only and paid articles', (ctx) => {
  async function membersProject() {
    const secret = await createTestProject(ctx.db, { siteUrl: site });
    await importArticles(ctx.db, secret.project, [
      articleInput({
        slug: 'members-post',
        path: '/members-post/',
        visibility: 'members',
        content: members,
        publishedAt: '2026-01-03T00:00:00.000Z',
      }),
      articleInput({
        slug: 'paid-post',
        visibility: 'paid',
        tiers: ['gold'],
        excerpt: 'A paid excerpt',
        content: 'All of it is for paying readers.\n',
        publishedAt: '2026-01-02T00:00:00.000Z',
      }),
      articleInput({
        slug: 'open-post',
        content: 'Everyone reads this.\n',
        publishedAt: '2026-01-01T00:00:00.000Z',
      }),
    ]);
    const publicKey = await createTestKey(ctx.db, secret.project, { kind: 'public' });
    return { ...secret, publicHeaders: publicKey.headers };
  }

  test('an RSS item of a members-only article has its teaser as description and no content:encoded', async () => {
    const { headers, publicHeaders } = await membersProject();
    for (const keyHeaders of [headers, publicHeaders]) {
      const response = await ctx.app.inject({ url: '/v1/seo/rss', headers: keyHeaders });
      assert.equal(response.statusCode, 200);
      assert.ok(!response.body.includes('Secret members text'), 'the members part never reaches the feed');
      assert.ok(!response.body.includes('paying readers'));
      const { feed, tree } = await readFeed(response.body);
      const [membersItem, paidItem, openItem] = tree.rss.channel.item;
      assert.equal(membersItem['content:encoded'], undefined);
      assert.equal(
        feed.items[0].content,
        `<p>Free intro with a chart: <img src="${site}/members-post/chart.png" alt="chart" /></p>\n`,
      );
      // Without a marker the teaser is empty: the description is the public excerpt.
      assert.equal(paidItem['content:encoded'], undefined);
      assert.equal(paidItem.description, 'A paid excerpt');
      assert.equal(openItem['content:encoded'], '<p>Everyone reads this.</p>\n');
    }
  });

  test('JSON-LD says isAccessibleForFree: false for members-only and paid articles, and its description holds no members text', async () => {
    const { headers } = await membersProject();
    const { body } = await getJson(ctx.app, '/v1/seo/structured-data', headers);
    const bySlug = new Map(body.data.articles.map((entry: any) => [entry.slug, entry.structuredData]));
    const membersLd = bySlug.get('members-post') as any;
    assert.equal(membersLd.isAccessibleForFree, false);
    assert.equal(membersLd.description, 'Free intro with a chart:');
    assert.equal((bySlug.get('paid-post') as any).isAccessibleForFree, false);
    assert.equal((bySlug.get('open-post') as any).isAccessibleForFree, undefined);
    const paged = await getJson(ctx.app, '/v1/seo/structured-data?limit=10', headers);
    assert.deepEqual(paged.body.data.articles, body.data.articles);
  });

  test('the article SEO endpoint gives a public key only the teaser, a secret key everything, and both the same metadata', async () => {
    const { headers, publicHeaders } = await membersProject();
    const full = await getJson(ctx.app, '/v1/seo/article/members-post', headers);
    const teaser = await getJson(ctx.app, '/v1/seo/article/members-post', publicHeaders);
    assert.equal(full.body.data.content, members);
    assert.equal(teaser.body.data.content, 'Free intro with a chart: ![chart](chart.png)');
    assert.deepEqual(teaser.body.data.seo, full.body.data.seo);
    assert.equal(full.body.data.seo.metaDescription, 'Free intro with a chart:');
    assert.equal(full.body.data.seo.structuredData.isAccessibleForFree, false);
    const paid = await getJson(ctx.app, '/v1/seo/article/paid-post', publicHeaders);
    assert.equal(paid.body.data.content, '');
    const open = await getJson(ctx.app, '/v1/seo/article/open-post', publicHeaders);
    assert.equal(open.body.data.content, 'Everyone reads this.\n');
  });

  test('the sitemap lists published articles whatever their visibility', async () => {
    const { publicHeaders } = await membersProject();
    const { body } = await getJson(ctx.app, '/v1/seo/sitemap?format=json', publicHeaders);
    assert.deepEqual(
      body.data.urls.map((entry: { loc: string }) => entry.loc),
      [`${site}/members-post/`, `${site}/paid-post`, `${site}/open-post`],
    );
  });
});

describeEachDialect('seo: authors and embeds', (ctx) => {
  test('JSON-LD author lists every author in order with url and image, and one author stays one Person', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: site });
    await importArticles(ctx.db, project, [
      articleInput({
        slug: 'together',
        author: { name: 'Ada', image: '/img/ada.png' },
        authors: [
          { name: 'Ada', slug: 'ada', image: '/img/ada.png', title: 'Editor', url: 'https://ada.example' },
          { name: 'Grace', slug: 'grace', image: null, title: null, url: '/authors/grace/' },
          { name: 'Linus', slug: 'linus', image: 'https://cdn.example.com/l.png', title: null, url: null },
        ],
      }),
      articleInput({ slug: 'alone', author: { name: 'Solo', image: null } }),
    ]);
    const together = await getJson(ctx.app, '/v1/seo/article/together', headers);
    assert.deepEqual(together.body.data.seo.structuredData.author, [
      { '@type': 'Person', name: 'Ada', url: 'https://ada.example', image: `${site}/img/ada.png` },
      { '@type': 'Person', name: 'Grace', url: `${site}/authors/grace/` },
      { '@type': 'Person', name: 'Linus', image: 'https://cdn.example.com/l.png' },
    ]);
    const alone = await getJson(ctx.app, '/v1/seo/article/alone', headers);
    assert.deepEqual(alone.body.data.seo.structuredData.author, { '@type': 'Person', name: 'Solo' });
    const rss = await ctx.app.inject({ url: '/v1/seo/rss', headers });
    const { tree } = await readFeed(rss.body);
    const creators = tree.rss.channel.item.map((item: any) => item['dc:creator']);
    assert.deepEqual(creators.sort(), [['Ada', 'Grace', 'Linus'], 'Solo'].sort());
  });

  test('YouTube, Vimeo and gist embeds become links to the embedded page in the RSS, while embeds shown as code stay code', async () => {
    const { project, headers } = await createTestProject(ctx.db, { siteUrl: site });
    const content = [
      'Intro.',
      '',
      '<div style="position: relative; padding-bottom: 56.25%;">',
      '  <iframe',
      '    allowfullscreen',
      '    src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=0&amp;start=42"',
      '    title="YouTube video"',
      '  ></iframe>',
      '</div>',
      '',
      '<iframe src="https://player.vimeo.com/video/146022717?dnt=0" width="640" height="360"></iframe>',
      '',
      '<script src="https://gist.github.com/spf13/7896402.js?file=img.html"></script>',
      '',
      'Inline <iframe src="//www.youtube.com/embed/abc_DEF-123"></iframe> video.',
      '',
      '```html',
      '<iframe src="https://www.youtube.com/embed/codeSample1"></iframe>',
      '```',
      '',
    ].join('\n');
    await importArticles(ctx.db, project, [articleInput({ slug: 'embeds', content })]);
    const { feed } = await readFeed((await ctx.app.inject({ url: '/v1/seo/rss', headers })).body);
    const html = (feed.items[0] as any)['content:encoded'] as string;
    const link = (url: string) => `<a href="${url.replace(/&/g, '&amp;')}">${url.replace(/&/g, '&amp;')}</a>`;
    assert.ok(html.includes(`<p>${link('https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s')}</p>`), html);
    assert.ok(html.includes(`<p>${link('https://vimeo.com/146022717')}</p>`), html);
    assert.ok(html.includes(`<p>${link('https://gist.github.com/spf13/7896402#file-img-html')}</p>`), html);
    assert.ok(html.includes(`Inline ${link('https://www.youtube.com/watch?v=abc_DEF-123')} video.`), html);
    assert.ok(
      html.includes('&lt;iframe src="https://www.youtube.com/embed/codeSample1"&gt;&lt;/iframe&gt;'),
      'the code sample is unchanged',
    );
    assert.ok(!/<iframe|<script/i.test(html));
  });
});
