// The client's pager, as a static build uses it: a whole collection in the fewest requests (the
// largest page the API allows), waiting out a key's rate limit by the server's Retry-After, a
// bounded number of times. The server's rate limits count a one-minute window; this suite gives
// its app a store that counts two seconds instead, so that waiting it out stays quick.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { FolioClient, FolioRateLimitError } from '../../packages/client/src/index.ts';
import { type Decision, MemoryRateLimitStore, type RateLimitStore } from '../../src/http/rate-limit.ts';
import {
  articleInput,
  createTestKey,
  createTestProject,
  describeEachDialect,
  importArticles,
  type TestProject,
} from '../helpers.ts';

const windowMs = 2000;

/** The server's own memory store, with a short window. */
class ShortWindowStore implements RateLimitStore {
  readonly #memory = new MemoryRateLimitStore();
  consume(bucket: string, limit: number): Decision {
    return this.#memory.consume(bucket, limit, windowMs);
  }
  close(): Promise<void> {
    return this.#memory.close();
  }
}

/** A fetch that records each request's URL, answer status and time. */
function recordingFetch() {
  const calls: { url: URL; status: number; at: number; retryAfter: string | null }[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    calls.push({
      url: new URL(String(input)),
      status: response.status,
      at: Date.now(),
      retryAfter: response.headers.get('retry-after'),
    });
    return response;
  };
  return { fetch: wrapped, calls };
}

const articleCount = 205;

describeEachDialect(
  'client pager',
  (context) => {
    let baseUrl: string;
    let owner: TestProject;

    before(async () => {
      baseUrl = await context.app.listen({ port: 0, host: '127.0.0.1' });
      owner = await createTestProject(context.db);
      const articles = Array.from({ length: articleCount }, (_, index) =>
        articleInput({ slug: `post-${index}`, tags: index % 2 === 0 ? ['Even'] : ['Odd'] }),
      );
      await importArticles(context.db, owner.project, articles);
    });

    test('pager: all articles and all tags in the fewest requests, rate limits waited out', async () => {
      const { key } = await createTestKey(context.db, owner.project, { rateLimit: 2 });
      const recorder = recordingFetch();
      const client = new FolioClient({ baseUrl, key, fetch: recorder.fetch });

      const tags = await client.tags.all();
      const articles = await client.articles.all({ select: { content: true } });

      assert.deepEqual(
        tags.map((tag) => [tag.name, tag.articleCount]),
        [
          ['Even', 103],
          ['Odd', 102],
        ],
      );
      assert.equal(articles.length, articleCount);
      assert.equal(new Set(articles.map((article) => article.id)).size, articleCount, 'no article twice');
      assert.ok(articles.every((article) => article.content.startsWith('Body of ')));
      const answered = recorder.calls.filter((call) => call.status === 200);
      assert.deepEqual(
        answered.map((call) => [call.url.pathname, call.url.searchParams.get('limit')]),
        [
          ['/v1/tags', null],
          ['/v1/articles', '100'],
          ['/v1/articles', '100'],
          ['/v1/articles', '100'],
        ],
        'one request for the tags, three pages of 100 for 205 articles',
      );
      const limited = recorder.calls.findIndex((call) => call.status === 429);
      assert.ok(limited > 0, 'a budget of 2 requests in the window was exceeded');
      const retryAfter = Number(recorder.calls[limited].retryAfter);
      assert.ok(retryAfter >= 1, 'the 429 says when to come back');
      const waited = recorder.calls[limited + 1].at - recorder.calls[limited].at;
      assert.ok(waited >= retryAfter * 1000 - 50, `waited ${waited} ms for Retry-After: ${retryAfter}`);
      assert.ok(recorder.calls.every((call) => call.status === 200 || call.status === 429));
    });

    test('pager: a rate limit outlasting the retries is thrown with its delay', async () => {
      const { key } = await createTestKey(context.db, owner.project, { rateLimit: 1 });
      const recorder = recordingFetch();
      const client = new FolioClient({ baseUrl, key, fetch: recorder.fetch });

      await assert.rejects(client.articles.all({}, { retries: 0 }), (error: unknown) => {
        assert.ok(error instanceof FolioRateLimitError);
        assert.ok(error.retryAfterSeconds !== null && error.retryAfterSeconds >= 1);
        return true;
      });
      assert.deepEqual(
        recorder.calls.map((call) => call.status),
        [200, 429],
        'the first page, then one refused page and no retry',
      );
    });
  },
  { rateLimits: new ShortWindowStore() },
);
