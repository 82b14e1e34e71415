// One blog for the Atom and JSON Feed tests, moved in from elsewhere as a real one is: an article
// with its own path and a guid that is its old feed's URL, one that keeps its Folio id (a UUID) as
// its guid, one whose guid is an arbitrary string (a Ghost id), a members-only article with a
// teaser, and the project's URL pattern for the articles without a path. Both formats compare
// their items with the RSS of the same project.
import assert from 'node:assert/strict';
import Parser from 'rss-parser';
import type { DialectContext } from '../helpers.ts';
import { articleInput, createTestKey, createTestProject, importArticles } from '../helpers.ts';
import { xmllint } from './xml-tools.ts';

export const site = 'https://blog.example.com';

export const membersContent =
  'Free intro with a [link](notes/) and a chart: ![chart](chart.png)\n\n<!--members-only-->\n\nSecret members text.\n';

export async function feedBlog(ctx: DialectContext) {
  const { project, headers } = await createTestProject(ctx.db, {
    siteUrl: `${site}/`,
    logoUrl: 'https://cdn.example.com/logo.png',
  });
  await ctx.db.kysely
    .updateTable('projects')
    .set({ url_pattern: '/:year/:slug/' })
    .where('id', '=', project.id)
    .execute();
  await importArticles(ctx.db, project, [
    articleInput({
      slug: 'members-post',
      title: 'For members',
      visibility: 'members',
      content: membersContent,
      excerpt: 'A members excerpt',
      publishedAt: '2026-01-05T00:00:00.000Z',
      updatedAt: '2026-01-06T12:00:00.000Z',
    }),
    articleInput({
      slug: 'moved',
      title: 'Moved in',
      path: '/guides/moved/',
      guid: 'https://old.example.com/moved/',
      tags: ['news', 'Guides'],
      author: { name: 'Ada', image: '/img/ada.png' },
      authors: [
        { name: 'Ada', slug: 'ada', image: '/img/ada.png', title: null, url: 'https://ada.example' },
        { name: 'Grace', slug: 'grace', image: null, title: null, url: '/authors/grace/' },
      ],
      content: 'Read [the docs](../docs/) & more.\n',
      publishedAt: '2026-01-04T00:00:00.000Z',
    }),
    articleInput({ slug: 'native', title: 'Native', publishedAt: '2026-01-03T00:00:00.000Z' }),
    articleInput({
      slug: 'ghost',
      title: 'From Ghost',
      guid: '5f3a 1/é',
      publishedAt: '2026-01-02T00:00:00.000Z',
    }),
    articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
  ]);
  const native = await ctx.db.kysely
    .selectFrom('articles')
    .select('id')
    .where('project_id', '=', project.id)
    .where('slug', '=', 'native')
    .executeTakeFirstOrThrow();
  const publicKey = await createTestKey(ctx.db, project, { kind: 'public' });
  return { project, headers, publicHeaders: publicKey.headers, nativeId: native.id };
}

/** The ids every feed gives the blog's items, newest first. */
export function expectedIds(nativeId: string, membersGuid: string): string[] {
  return [
    membersGuid,
    'https://old.example.com/moved/',
    `urn:uuid:${nativeId}`,
    'tag:blog.example.com,2026:5f3a%201/%C3%A9',
  ];
}

export const expectedUrls = [
  `${site}/2026/members-post/`,
  `${site}/guides/moved/`,
  `${site}/2026/native/`,
  `${site}/2026/ghost/`,
];

/** The RSS items of the same request: guid, link and content:encoded, in order. */
export async function rssItems(ctx: DialectContext, query: string, headers: Record<string, string>) {
  const response = await ctx.app.inject({ url: `/v1/seo/rss${query}`, headers });
  assert.equal(response.statusCode, 200, response.body);
  const lint = xmllint(response.body);
  assert.ok(lint.ok, lint.errors);
  const feed = await new Parser().parseString(response.body);
  return feed.items.map((item) => ({
    guid: item.guid!,
    link: item.link!,
    contentEncoded: ((item as Record<string, unknown>)['content:encoded'] as string | undefined) ?? null,
    description: item.content!,
  }));
}

/** The feed errors every format shares with the RSS: a 400 in the JSON error body naming the field. */
export const badQueries: Array<[string, string, string]> = [
  ['limit=0', 'limit', 'must be an integer from 1 to 100'],
  ['limit=101', 'limit', 'must be an integer from 1 to 100'],
  ['limit=ten', 'limit', 'must be an integer from 1 to 100'],
  ['feedUrl=feed.xml', 'feedUrl', 'must be an absolute http or https URL such as https://blog.example.com'],
  ['feedUrl=https%3A%2F%2Fu%3Ap%40blog.example.com%2Ff', 'feedUrl', 'must not hold a user name or password'],
  [
    'baseUrl=ftp%3A%2F%2Fblog.example.com',
    'baseUrl',
    'must be an absolute http or https URL such as https://blog.example.com',
  ],
  ['format=rss', 'format', ''],
];
