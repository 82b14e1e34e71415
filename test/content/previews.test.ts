// Draft previews: a signed, expiring, revocable token with which a public key reads one article
// in any status, in full, through GET /v1/articles/:slug and GET /v1/seo/article/:slug; its
// answers are private, no-store and never cached; bad tokens are a 403 naming `preview`.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createPreview } from '../../src/content/previews.ts';
import { signToken } from '../../src/content/preview-tokens.ts';
import { openDatabase } from '../../src/db/database.ts';
import { track } from '../analytics/support.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
} from '../helpers.ts';

const future = '2999-01-01T00:00:00.000Z';

describeEachDialect('draft previews', (ctx) => {
  async function blog(options: { siteUrl?: string | null; origins?: string[] } = {}) {
    const owner = await createTestProject(ctx.db, {
      scopes: ['read', 'write'],
      siteUrl: options.siteUrl === undefined ? 'https://blog.example.com' : options.siteUrl,
    });
    await importArticles(ctx.db, owner.project, [
      articleInput({ slug: 'live', content: 'Live body.' }),
      articleInput({ slug: 'draft', status: 'draft', publishedAt: null, content: 'Draft body.' }),
      articleInput({ slug: 'other-draft', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'scheduled', publishedAt: future }),
      articleInput({ slug: 'archived', status: 'archived' }),
      articleInput({
        slug: 'members',
        status: 'draft',
        publishedAt: null,
        visibility: 'members',
        content: 'Teaser.\n\n<!--members-only-->\n\nFor members.',
      }),
    ]);
    const pub = await createTestKey(ctx.db, owner.project, { kind: 'public', origins: options.origins });
    return { ...owner, write: owner.headers, pub: pub.headers };
  }

  async function create(app: FastifyInstance, slug: string, headers: Record<string, string>, body?: unknown) {
    const response = await app.inject({
      method: 'POST',
      url: `/v1/articles/${slug}/previews`,
      headers,
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: response.statusCode, body: JSON.parse(response.body) };
  }

  async function tokenFor(slug: string, headers: Record<string, string>): Promise<string> {
    const created = await create(ctx.app, slug, headers);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.data.token;
  }

  const q = (token: string) => `preview=${encodeURIComponent(token)}`;

  function assertPrivate(headers: Record<string, unknown>) {
    assert.equal(headers['cache-control'], 'private, no-store');
    assert.equal(headers.etag, undefined);
  }

  test('create, then a public key reads the draft with the token on both endpoints; without it, 404', async () => {
    const { write, pub } = await blog();
    const created = await create(ctx.app, 'draft', write, { expiresIn: '12h' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { data } = created.body;
    assert.match(data.id, /^pv_[0-9a-f]{16}$/);
    assert.match(data.token, /^fpv_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.equal(data.articleSlug, 'draft');
    assert.equal(data.status, 'active');
    const hours = (Date.parse(data.expiresAt) - Date.parse(data.createdAt)) / 3_600_000;
    assert.ok(Math.abs(hours - 12) < 0.01, String(hours));

    const article = await getJson(
      ctx.app,
      `/v1/articles/draft?select=%7B%22status%22%3Atrue%7D&${q(data.token)}`,
      pub,
    );
    assert.equal(article.status, 200, JSON.stringify(article.body));
    assert.equal(article.body.data.slug, 'draft');
    assert.equal(article.body.data.status, 'draft');
    assert.match(article.body.data.content, /Draft body/);
    assertPrivate(article.headers);
    const seo = await getJson(ctx.app, `/v1/seo/article/draft?${q(data.token)}`, pub);
    assert.equal(seo.status, 200, JSON.stringify(seo.body));
    assert.equal(seo.body.data.slug, 'draft');
    assertPrivate(seo.headers);

    for (const path of ['/v1/articles/draft', '/v1/seo/article/draft']) {
      const hidden = await getJson(ctx.app, path, pub);
      assert.equal(hidden.status, 404, path);
      assert.equal(hidden.body.message, "Article 'draft' not found");
      assert.equal(hidden.headers['cache-control'], 'private, no-cache');
    }
  });

  test('any status reads, members-only content in full; an If-None-Match is never answered 304', async () => {
    const { write, pub } = await blog();
    for (const slug of ['scheduled', 'archived', 'live']) {
      const token = await tokenFor(slug, write);
      const read = await getJson(ctx.app, `/v1/articles/${slug}?${q(token)}`, pub);
      assert.equal(read.status, 200, slug);
      assert.equal(read.body.data.slug, slug);
      assertPrivate(read.headers);
    }
    const token = await tokenFor('members', write);
    const article = await getJson(ctx.app, `/v1/articles/members?${q(token)}`, pub);
    assert.match(article.body.data.content, /For members/);
    const seo = await getJson(ctx.app, `/v1/seo/article/members?${q(token)}`, pub);
    assert.match(seo.body.data.content, /For members/);
    const again = await ctx.app.inject({
      url: `/v1/articles/members?${q(token)}`,
      headers: { ...pub, 'if-none-match': '*' },
    });
    assert.equal(again.statusCode, 200);
  });

  test('a token reads only its article: another draft is 404, a published one is read as without it', async () => {
    const { write, pub } = await blog();
    const token = await tokenFor('draft', write);
    const other = await getJson(ctx.app, `/v1/articles/other-draft?${q(token)}`, pub);
    assert.equal(other.status, 404);
    assert.equal(other.body.message, "Article 'other-draft' not found");
    const otherSeo = await getJson(ctx.app, `/v1/seo/article/other-draft?${q(token)}`, pub);
    assert.equal(otherSeo.status, 404);
    const live = await getJson(ctx.app, `/v1/articles/live?${q(token)}`, pub);
    assert.equal(live.status, 200);
    assertPrivate(live.headers);
    const members = await getJson(ctx.app, `/v1/articles/members?${q(await tokenFor('live', write))}`, pub);
    assert.equal(members.status, 404, 'a token of another article does not read a members draft');
  });

  test('expired tokens are a 403 naming preview', async () => {
    const { project, write, pub } = await blog();
    // Made eight days ago, for seven: expired a day ago.
    const old = await createPreview(
      ctx.db,
      project,
      'draft',
      { expiresIn: '7d' },
      Date.now() - 8 * 86_400_000,
    );
    for (const path of ['/v1/articles/draft', '/v1/seo/article/draft']) {
      const refused = await getJson(ctx.app, `${path}?${q(old.token)}`, pub);
      assert.equal(refused.status, 403, path);
      assert.deepEqual(refused.body.details, { field: 'preview', reason: 'expired' });
      assert.match(refused.body.message, /^preview: /);
    }
    const listed = await getJson(ctx.app, '/v1/articles/draft/previews', write);
    assert.equal(listed.body.data.find((row: { id: string }) => row.id === old.id).status, 'expired');
  });

  test('a revocation is seen at once by another instance on the same database', async () => {
    const { write, pub } = await blog();
    const created = await create(ctx.app, 'draft', write);
    const { id, token } = created.body.data;
    const handle = openDatabase(ctx.url, { poolSize: 2 });
    const second = await buildApp({ db: handle });
    try {
      const before = await getJson(second, `/v1/articles/draft?${q(token)}`, pub);
      assert.equal(before.status, 200, 'the second instance shares the signing secret');
      const revoked = await ctx.app.inject({ method: 'DELETE', url: `/v1/previews/${id}`, headers: write });
      assert.equal(revoked.statusCode, 204);
      for (const app of [second, ctx.app]) {
        const after = await getJson(app, `/v1/articles/draft?${q(token)}`, pub);
        assert.equal(after.status, 403);
        assert.deepEqual(after.body.details, { field: 'preview', reason: 'revoked' });
        const seo = await getJson(app, `/v1/seo/article/draft?${q(token)}`, pub);
        assert.equal(seo.status, 403);
      }
      const listed = await getJson(second, '/v1/articles/draft/previews', write);
      const row = listed.body.data.find((one: { id: string }) => one.id === id);
      assert.equal(row.status, 'revoked');
      assert.equal(row.token, undefined, 'tokens are never listed');
      const revokedAt = row.revokedAt;
      const twice = await second.inject({ method: 'DELETE', url: `/v1/previews/${id}`, headers: write });
      assert.equal(twice.statusCode, 204);
      const still = await getJson(ctx.app, '/v1/articles/draft/previews', write);
      assert.equal(still.body.data.find((one: { id: string }) => one.id === id).revokedAt, revokedAt);
    } finally {
      await second.close();
      await handle.close();
    }
  });

  test('tampered, foreign and malformed tokens are a 4xx naming preview, never a 500', async () => {
    const { write, pub } = await blog();
    const token = await tokenFor('draft', write);
    const [payload, signature] = token.slice(4).split('.');
    const flip = (text: string, at: number) =>
      text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const forged = signToken(randomBytes(32), { id: JSON.parse('"pv_0000000000000000"'), expires: 2e9 });
    const longLived = Buffer.from(
      Buffer.from(payload, 'base64url')
        .toString()
        .replace(/\.\d+$/, '.99999999999'),
    ).toString('base64url');
    const shapes = [
      '',
      'x',
      'fpv_',
      'fpv_.',
      `fpv_${payload}`,
      `fpv_${payload}.${signature}.x`,
      `fpv_${flip(payload, 3)}.${signature}`,
      `fpv_${payload}.${flip(signature, 5)}`,
      `fpv_${longLived}.${signature}`,
      `fpv_${payload}.${signature}=`,
      `fpv_${payload}.${signature.slice(0, -1)}`,
      `FPV_${payload}.${signature}`,
      forged,
      'fpv_\u0000.\u0000',
      'fpv_é.ü',
      'fpv_' + 'A'.repeat(200) + '.' + 'B'.repeat(43),
      token.toUpperCase(),
    ];
    for (const shape of shapes) {
      for (const path of ['/v1/articles/draft', '/v1/seo/article/draft']) {
        const refused = await getJson(ctx.app, `${path}?${q(shape)}`, pub);
        assert.ok([400, 403].includes(refused.status), `${path} ${JSON.stringify(shape)}: ${refused.status}`);
        const named =
          refused.body.details?.field === 'preview' ||
          refused.body.details?.issues?.some((issue: { field: string }) => issue.field === 'preview');
        assert.ok(named, `${JSON.stringify(shape)}: ${JSON.stringify(refused.body)}`);
      }
    }
    const tooLong = await getJson(ctx.app, `/v1/articles/draft?${q('fpv_' + 'A'.repeat(400))}`, pub);
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.body.details.issues[0].field, 'preview');
    const twice = await getJson(ctx.app, `/v1/articles/draft?${q(token)}&${q(token)}`, pub);
    assert.equal(twice.status, 400);
  });

  test("another project's token is refused", async () => {
    const mine = await blog();
    const theirs = await blog();
    const token = await tokenFor('draft', theirs.write);
    const refused = await getJson(ctx.app, `/v1/articles/draft?${q(token)}`, mine.pub);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body.details, { field: 'preview', reason: 'invalid' });
    const revoke = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/previews/${(await getJson(ctx.app, '/v1/articles/draft/previews', theirs.write)).body.data[0].id}`,
      headers: mine.write,
    });
    assert.equal(revoke.statusCode, 404, "a project cannot revoke another's preview");
  });

  test('cached public answers never hold the draft, before or after a preview read', async () => {
    const { write, pub } = await blog();
    const token = await tokenFor('draft', write);
    const slugs = async () =>
      (await getJson(ctx.app, '/v1/articles?limit=100', pub)).body.data.map((a: { slug: string }) => a.slug);
    const before = await slugs();
    assert.ok(!before.includes('draft'));
    assert.equal((await getJson(ctx.app, `/v1/articles/draft?${q(token)}`, pub)).status, 200);
    assert.equal((await getJson(ctx.app, `/v1/seo/article/draft?${q(token)}`, pub)).status, 200);
    assert.deepEqual(await slugs(), before);
    // The same URL asked twice: the second answer is built again, not a cached one.
    assert.equal((await getJson(ctx.app, `/v1/articles/draft?${q(token)}`, pub)).headers.etag, undefined);
    assert.equal((await getJson(ctx.app, '/v1/articles/draft', pub)).status, 404);
    assert.equal((await getJson(ctx.app, '/v1/seo/article/draft', pub)).status, 404);
    const sitemap = await ctx.app.inject({ url: '/v1/seo/sitemap?format=json', headers: pub });
    assert.ok(!sitemap.body.includes('/draft'), sitemap.body);
  });

  test('previews count nothing: tracking the draft with a public key is still unknown', async () => {
    const { write, pub } = await blog();
    const token = await tokenFor('draft', write);
    assert.equal((await getJson(ctx.app, `/v1/articles/draft?${q(token)}`, pub)).status, 200);
    const tracked = await track(
      ctx.app,
      { slug: 'draft', pageUrl: `https://blog.example.com/draft?${q(token)}` },
      { headers: pub },
    );
    assert.equal(tracked.statusCode, 404, tracked.body);
    const live = await track(
      ctx.app,
      { slug: 'live', pageUrl: 'https://blog.example.com/live' },
      { headers: pub },
    );
    assert.equal(live.statusCode, 201, live.body);
  });

  test('other endpoints take no preview parameter; CORS follows the public key', async () => {
    const origin = 'https://blog.example.com';
    const { write, pub } = await blog({ origins: [origin] });
    const token = await tokenFor('draft', write);
    const list = await getJson(ctx.app, `/v1/articles?${q(token)}`, { ...pub, origin });
    assert.equal(list.status, 400);
    assert.equal(list.body.details.issues[0].field, 'preview');
    const read = await ctx.app.inject({ url: `/v1/articles/draft?${q(token)}`, headers: { ...pub, origin } });
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers['access-control-allow-origin'], origin);
    const elsewhere = await ctx.app.inject({
      url: `/v1/articles/draft?${q(token)}`,
      headers: { ...pub, origin: 'https://evil.example' },
    });
    assert.equal(elsewhere.statusCode, 403);
  });

  test('create: expiresIn forms, limits and unknown fields; the url with a site URL', async () => {
    const { write } = await blog({ siteUrl: 'https://blog.example.com/' });
    const lengths: Array<[unknown, number]> = [
      [undefined, 7 * 86_400],
      ['90', 90],
      [3600, 3600],
      ['30m', 1800],
      ['12h', 43_200],
      ['2w', 14 * 86_400],
      ['90d', 90 * 86_400],
    ];
    for (const [expiresIn, seconds] of lengths) {
      const created = await create(
        ctx.app,
        'draft',
        write,
        expiresIn === undefined ? undefined : { expiresIn },
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { createdAt, expiresAt, url, token } = created.body.data;
      const got = (Date.parse(expiresAt) - Date.parse(createdAt)) / 1000;
      assert.ok(Math.abs(got - seconds) <= 1, `${expiresIn}: ${got}`);
      assert.equal(url, `https://blog.example.com/draft?preview=${token}`);
    }
    for (const expiresIn of ['91d', '59', 59, '7 days', '-1', 1.5, '', 'P7D', true, {}]) {
      const refused = await create(ctx.app, 'draft', write, { expiresIn });
      assert.equal(refused.status, 400, `${JSON.stringify(expiresIn)}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.details.issues[0].field, 'expiresIn', JSON.stringify(refused.body));
    }
    const unknown = await create(ctx.app, 'draft', write, { expiresIn: '1d', expires: '1d' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.details.issues[0].field, 'expires');
    assert.equal((await create(ctx.app, 'nope', write)).status, 404);
    const bare = await blog({ siteUrl: null });
    const created = await create(ctx.app, 'draft', bare.write);
    assert.equal(created.body.data.url, undefined, 'no site URL, no url');
    assert.equal((await getJson(ctx.app, '/v1/articles/nope/previews', write)).status, 404);
  });

  test('the previews endpoints need a secret key with the write scope', async () => {
    const { project, pub } = await blog();
    const reader = await createTestKey(ctx.db, project, { scopes: ['read', 'analytics'] });
    const refused = await create(ctx.app, 'draft', reader.headers);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.details.scope, 'write');
    assert.equal((await getJson(ctx.app, '/v1/articles/draft/previews', reader.headers)).status, 403);
    assert.equal((await create(ctx.app, 'draft', pub)).status, 403);
    const gone = await ctx.app.inject({
      method: 'DELETE',
      url: '/v1/previews/pv_0000000000000000',
      headers: reader.headers,
    });
    assert.equal(gone.statusCode, 403);
  });
});
