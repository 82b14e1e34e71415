// `folio preview create | list | revoke` as a user runs them, on a database the app reads: the
// token printed reads the draft through a public key until it is revoked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  getJson,
  importArticles,
} from '../helpers.ts';
import { runCli } from './support.ts';

describeEachDialect('folio preview', (ctx) => {
  async function json(...args: string[]): Promise<any> {
    const result = await runCli(ctx.url, ...args, '--json');
    assert.equal(result.code, 0, `folio ${args.join(' ')}: ${result.stderr}${result.stdout}`);
    return JSON.parse(result.stdout);
  }

  test('create prints the token and its URL; list shows it without the token; revoke ends it', async () => {
    const owner = await createTestProject(ctx.db, { siteUrl: 'https://blog.example.com' });
    await importArticles(ctx.db, owner.project, [
      articleInput({ slug: 'draft', status: 'draft', publishedAt: null }),
      articleInput({ slug: 'live' }),
    ]);
    const pub = await createTestKey(ctx.db, owner.project, { kind: 'public' });
    const slug = owner.project.slug;

    const text = await runCli(ctx.url, 'preview', 'create', '--project', slug, '--slug', 'draft');
    assert.equal(text.code, 0, text.stderr);
    const [token, , url] = text.stdout.split('\n');
    assert.match(token, /^fpv_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.equal(url, `https://blog.example.com/draft?preview=${token}`);
    const read = await getJson(ctx.app, `/v1/articles/draft?preview=${token}`, pub.headers);
    assert.equal(read.status, 200, JSON.stringify(read.body));

    const created = await json('preview', 'create', '--project', slug, '--slug', 'draft', '--expires', '12h');
    const hours = (Date.parse(created.expiresAt) - Date.parse(created.createdAt)) / 3_600_000;
    assert.ok(Math.abs(hours - 12) < 0.01, String(hours));
    await json('preview', 'create', '--project', slug, '--slug', 'live');

    const all = await json('preview', 'list', '--project', slug);
    assert.equal(all.length, 3);
    assert.ok(
      all.every((row: Record<string, unknown>) => row.token === undefined && row.status === 'active'),
    );
    const drafts = await json('preview', 'list', '--project', slug, '--slug', 'draft');
    assert.deepEqual(
      drafts.map((row: { articleSlug: string }) => row.articleSlug),
      ['draft', 'draft'],
    );

    const revoked = await json('preview', 'revoke', created.id);
    assert.equal(revoked.status, 'revoked');
    const refused = await getJson(ctx.app, `/v1/articles/draft?preview=${created.token}`, pub.headers);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.details.reason, 'revoked');
    const listed = await json('preview', 'list', '--project', slug, '--slug', 'draft');
    assert.equal(listed.find((row: { id: string }) => row.id === created.id).status, 'revoked');
  });

  test('a bad --expires, an unknown article or preview is an error naming it', async () => {
    const owner = await createTestProject(ctx.db);
    await importArticles(ctx.db, owner.project, [articleInput({ slug: 'draft', status: 'draft' })]);
    const slug = owner.project.slug;
    const long = await runCli(
      ctx.url,
      'preview',
      'create',
      '--project',
      slug,
      '--slug',
      'draft',
      '--expires',
      '91d',
    );
    assert.equal(long.code, 1);
    assert.match(long.stderr, /--expires must be from 60 seconds/);
    const unknown = await runCli(ctx.url, 'preview', 'create', '--project', slug, '--slug', 'nope');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Article 'nope' not found/);
    const noUrl = await json('preview', 'create', '--project', slug, '--slug', 'draft');
    assert.equal(noUrl.url, undefined);
    const gone = await runCli(ctx.url, 'preview', 'revoke', 'pv_0000000000000000');
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /Preview 'pv_0000000000000000' not found/);
  });
});
