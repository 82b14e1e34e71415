// The typed Folio client: content, SEO and analytics over `fetch` alone, so that it runs in Node,
// browsers and edge runtimes. Types come from the server's own TypeBox schemas (type-only imports,
// erased at run time), so a change of the API shape is a type error here.
import { type ErrorBody, FolioNetworkError, errorFor } from './errors.ts';
import type { ArticleDetail, ArticleListItem, Select } from './select.ts';
import type {
  ArticleFields,
  CreatedPreview,
  CreatedWebhook,
  Preview,
  Revision,
  RevisionSummary,
  Webhook,
  WebhookDeliveryPage,
  ArticleReading,
  ArticleSortField,
  Breakdown,
  BreakdownDimension,
  Funnel,
  JsonFeed,
  PageMeta,
  PageViewUpdate,
  ProjectInfo,
  Redirect,
  Realtime,
  SeoArticle,
  SitemapJson,
  Stats,
  StructuredData,
  Tag,
  TagSortField,
  TimeSeries,
  TrackBody,
  TrackCreated,
} from './server-types.ts';

export * from './errors.ts';
export * from './webhooks.ts';
export type * from './select.ts';
export type * from './server-types.ts';

/** An article with every field the API can return, each possibly absent but `id`. */
export type Article = ArticleFields;

/** The parameters of the RSS, Atom and JSON Feed documents. */
export interface FeedParams {
  baseUrl?: string;
  limit?: number;
  /** Where the front end publishes the feed: its self link. */
  feedUrl?: string;
}

/** A period: the last `days` days (today included), or the UTC days `from` to `to` (YYYY-MM-DD). */
export interface PeriodParams {
  days?: number;
  from?: string;
  to?: string;
  /** Count the page views of test keys too (by default they count nowhere). */
  includeTest?: boolean;
}

/** What every report takes: whether the page views of test keys count. */
export interface TestViewParams {
  /** Count the page views of test keys too (by default they count nowhere). */
  includeTest?: boolean;
}

export interface ArticleListParams<S extends Select = Select> {
  page?: number;
  limit?: number;
  sort?: ArticleSortField;
  order?: 'asc' | 'desc';
  published?: boolean;
  status?: 'draft' | 'scheduled' | 'published' | 'archived';
  search?: string;
  select?: S;
  tags?: string[];
  tagsAll?: string[];
  excludeTags?: string[];
}

export interface TagListParams {
  sort?: TagSortField;
  order?: 'asc' | 'desc';
  limit?: number;
  published?: boolean;
}

export interface FolioClientOptions {
  /** The API's origin, e.g. `https://folio.example.com`. */
  baseUrl: string;
  /** A secret key (server side) or a public key (browsers: published content and tracking). */
  key: string;
  /** Another fetch (tests, instrumented fetch); default: the global one. */
  fetch?: typeof fetch;
  /** Retries of a 429 or 503 answer, or of a network error of a GET/PUT (default 2). */
  retries?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once (default 10 s). */
  maxRetryDelayMs?: number;
  /** Milliseconds before a request is abandoned (default 30 s). */
  timeoutMs?: number;
  /** Answers kept for ETag revalidation (`If-None-Match`; a 304 returns the kept answer). 0 disables. */
  etagCacheSize?: number;
}

/** How a whole-collection read (`articles.all`, `tags.all`) waits out rate limits. */
export interface PagerOptions {
  /** Retries of each request answered 429 or 503 (default 5). */
  retries?: number;
  /** The longest `Retry-After` waited for (default 120 s: a key's rate limit counts one minute). */
  maxRetryDelayMs?: number;
}

/** A page of `articles.list`. */
export interface ArticleList<S = NoSelect> {
  data: ArticleListItem<S>[];
  meta: PageMeta;
}

/** No `select`: the default fields. */
export type NoSelect = Record<never, boolean>;

interface RetryPolicy {
  retries: number;
  maxRetryDelayMs: number;
}

/** The largest `limit` of an article list. */
const largestArticlePage = 100;

function pagerPolicy(options: PagerOptions): RetryPolicy {
  return { retries: options.retries ?? 5, maxRetryDelayMs: options.maxRetryDelayMs ?? 120_000 };
}

type Query = Record<string, string | number | boolean | string[] | undefined>;

interface RequestExtras {
  headers?: Record<string, string>;
  contentType?: string;
  /** Called with the headers of a successful answer (a write's ETag). */
  onHeaders?: (headers: Headers) => void;
}

/**
 * An article as the write API takes it: the fields of the JSON import format (`content` in
 * Markdown), which are also what `articles.get` returns with every writable field selected, so that
 * a read can be edited and written back. The server validates it and names any bad field.
 */
export interface ArticleWrite {
  slug: string;
  title: string;
  content?: string;
  excerpt?: string | null;
  status?: 'draft' | 'published' | 'archived' | 'scheduled';
  publishedAt?: string | null;
  tags?: Array<string | { name: string }>;
  [field: string]: unknown;
}

/** A tag as the write API takes it. */
export interface TagWrite {
  name: string;
  slug?: string;
  color?: string | null;
  icon?: string | null;
  [field: string]: unknown;
}

/**
 * What a write answered: the resource, and its version as `ETag` carries it (`"3"`), to send as
 * `ifMatch` with the next change.
 */
export interface Written<T> {
  data: T;
  etag: string | null;
}

/** The version a change is based on: an ETag (`"3"`), or an article's `version` (3). */
export type IfMatch = string | number;

/** `"3"` for 3 or `3`; an ETag given whole (quoted, or `*`) as it is. */
function ifMatchHeader(version: IfMatch): string {
  const text = String(version);
  return text.startsWith('"') || text.startsWith('W/"') || text === '*' ? text : `"${text}"`;
}

const segment = encodeURIComponent;

interface Cached {
  etag: string;
  value: unknown;
}

export const clientHeader = '@folio/client 0.1.0';

export class FolioClient {
  readonly #baseUrl: string;
  readonly #key: string;
  readonly #fetch: typeof fetch;
  readonly #retries: number;
  readonly #maxRetryDelayMs: number;
  readonly #timeoutMs: number;
  readonly #etagCacheSize: number;
  readonly #etags = new Map<string, Cached>();

  constructor(options: FolioClientOptions) {
    if (!/^https?:\/\//.test(options.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL');
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#key = options.key;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#retries = options.retries ?? 2;
    this.#maxRetryDelayMs = options.maxRetryDelayMs ?? 10_000;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#etagCacheSize = options.etagCacheSize ?? 500;
  }

  readonly articles = {
    list: <S extends Select = NoSelect>(params: ArticleListParams<S> = {}) =>
      this.get<ArticleList<S>>('/v1/articles', withSelect(params)),
    /** With `preview` (a draft preview token), a public key reads that article in any status. */
    get: async <S extends Select = NoSelect>(slug: string, params: { select?: S; preview?: string } = {}) =>
      (
        await this.get<{ data: ArticleDetail<S> }>(
          `/v1/articles/${encodeURIComponent(slug)}`,
          withSelect(params),
        )
      ).data,
    /**
     * Every article the list's filters match, page after page of the largest size the API allows,
     * waiting out rate limits (a static build reads the whole blog this way).
     */
    all: async <S extends Select = NoSelect>(
      params: Omit<ArticleListParams<S>, 'page' | 'limit'> = {},
      options: PagerOptions = {},
    ): Promise<ArticleListItem<S>[]> => {
      const items: ArticleListItem<S>[] = [];
      for (let page = 1, totalPages = 1; page <= totalPages; page++) {
        const query = withSelect({ ...params, page, limit: largestArticlePage });
        const answer = await this.get<ArticleList<S>>('/v1/articles', query, 'json', pagerPolicy(options));
        items.push(...answer.data);
        totalPages = answer.meta.totalPages;
      }
      return items;
    },
  };

  /** The write API (a secret key with the `write` scope): articles, their revisions and previews. */
  readonly write = {
    /** Creates an article; with `idempotencyKey`, a retry replays the first answer instead of writing again. */
    createArticle: (article: ArticleWrite, options: { idempotencyKey?: string } = {}) =>
      this.#write<Article>('POST', '/v1/articles', article, {
        headers: options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey },
      }),
    /** Replaces the article; `ifMatch` is the version it was read at (a stale one is a 412). */
    replaceArticle: (slug: string, article: ArticleWrite, ifMatch: IfMatch) =>
      this.#write<Article>('PUT', `/v1/articles/${segment(slug)}`, article, {
        headers: { 'If-Match': ifMatchHeader(ifMatch) },
      }),
    /** Changes the fields named (JSON Merge Patch: `null` removes a field). */
    patchArticle: (slug: string, patch: Partial<ArticleWrite>, ifMatch: IfMatch) =>
      this.#write<Article>('PATCH', `/v1/articles/${segment(slug)}`, patch, {
        headers: { 'If-Match': ifMatchHeader(ifMatch) },
        contentType: 'application/merge-patch+json',
      }),
    deleteArticle: async (slug: string, ifMatch: IfMatch): Promise<void> => {
      await this.request<void>('DELETE', `/v1/articles/${segment(slug)}`, {}, undefined, 'json', undefined, {
        headers: { 'If-Match': ifMatchHeader(ifMatch) },
      });
    },
    revisions: async (slug: string): Promise<RevisionSummary[]> =>
      (await this.get<{ data: RevisionSummary[] }>(`/v1/articles/${segment(slug)}/revisions`, {})).data,
    revision: async (slug: string, id: string): Promise<Revision> =>
      (await this.get<{ data: Revision }>(`/v1/articles/${segment(slug)}/revisions/${segment(id)}`, {})).data,
    /** Writes the revision as the article's new version. */
    restoreRevision: (slug: string, id: string, ifMatch: IfMatch) =>
      this.#write<Article>(
        'POST',
        `/v1/articles/${segment(slug)}/revisions/${segment(id)}/restore`,
        undefined,
        {
          headers: { 'If-Match': ifMatchHeader(ifMatch) },
        },
      ),
    createTag: (tag: TagWrite) => this.#write<Tag>('POST', '/v1/tags', tag),
    replaceTag: (name: string, tag: TagWrite, ifMatch: IfMatch) =>
      this.#write<Tag>('PUT', `/v1/tags/${segment(name)}`, tag, {
        headers: { 'If-Match': ifMatchHeader(ifMatch) },
      }),
    patchTag: (name: string, patch: Partial<TagWrite>, ifMatch: IfMatch) =>
      this.#write<Tag>('PATCH', `/v1/tags/${segment(name)}`, patch, {
        headers: { 'If-Match': ifMatchHeader(ifMatch) },
        contentType: 'application/merge-patch+json',
      }),
    deleteTag: async (name: string, ifMatch: IfMatch): Promise<void> => {
      await this.request<void>('DELETE', `/v1/tags/${segment(name)}`, {}, undefined, 'json', undefined, {
        headers: { 'If-Match': ifMatchHeader(ifMatch) },
      });
    },
  };

  /** Draft previews (write scope to make them; a public key reads with `preview` in `articles.get`). */
  readonly previews = {
    /** A signed token that reads the article whatever its status; `expiresIn`: `7d`, `12h`, seconds. */
    create: async (slug: string, options: { expiresIn?: string | number } = {}): Promise<CreatedPreview> =>
      (
        await this.request<{ data: CreatedPreview }>(
          'POST',
          `/v1/articles/${segment(slug)}/previews`,
          {},
          options.expiresIn === undefined ? {} : { expiresIn: options.expiresIn },
        )
      ).data,
    list: async (slug: string): Promise<Preview[]> =>
      (await this.get<{ data: Preview[] }>(`/v1/articles/${segment(slug)}/previews`, {})).data,
    revoke: async (id: string): Promise<void> => {
      await this.request<void>('DELETE', `/v1/previews/${segment(id)}`, {});
    },
  };

  /** Webhooks of the project (write scope); verify what they send with `verifyWebhook`. */
  readonly webhooks = {
    /** Its `secret` is shown only in this answer. */
    create: async (webhook: { url: string; events?: string[]; description?: string | null }) =>
      (await this.request<{ data: CreatedWebhook }>('POST', '/v1/webhooks', {}, webhook)).data,
    list: async (): Promise<Webhook[]> => (await this.get<{ data: Webhook[] }>('/v1/webhooks', {})).data,
    remove: async (id: string): Promise<void> => {
      await this.request<void>('DELETE', `/v1/webhooks/${segment(id)}`, {});
    },
    /** The delivery log, newest first. */
    deliveries: (id: string, params: { page?: number; limit?: number } = {}) =>
      this.get<WebhookDeliveryPage>(`/v1/webhooks/${segment(id)}/deliveries`, { ...params }),
  };

  async #write<T>(
    method: 'POST' | 'PUT' | 'PATCH',
    path: string,
    body: unknown,
    extra: RequestExtras = {},
  ): Promise<Written<T>> {
    let etag: string | null = null;
    const answer = await this.request<{ data: T }>(method, path, {}, body, 'json', undefined, {
      ...extra,
      onHeaders: (headers) => (etag = headers.get('etag')),
    });
    return { data: answer.data, etag };
  }

  readonly tags = {
    list: (params: TagListParams = {}) =>
      this.get<{ data: Tag[]; meta: PageMeta }>('/v1/tags', { ...params }),
    get: async (name: string, params: { published?: boolean } = {}) =>
      (await this.get<{ data: Tag }>(`/v1/tags/${encodeURIComponent(name)}`, { ...params })).data,
    /** Every tag, in one request (a tag list without `limit` is whole), waiting out rate limits. */
    all: async (params: Omit<TagListParams, 'limit'> = {}, options: PagerOptions = {}): Promise<Tag[]> =>
      (await this.get<{ data: Tag[] }>('/v1/tags', { ...params }, 'json', pagerPolicy(options))).data,
  };

  /** The published articles' former paths and their current paths, as a front end serves 301s for them. */
  async redirects(): Promise<Redirect[]> {
    return (await this.get<{ data: Redirect[] }>('/v1/redirects', {})).data;
  }

  async project(): Promise<ProjectInfo> {
    return (await this.get<{ data: ProjectInfo }>('/v1/project', {})).data;
  }

  readonly seo = {
    article: async (slug: string, params: { baseUrl?: string } = {}) =>
      (await this.get<{ data: SeoArticle }>(`/v1/seo/article/${encodeURIComponent(slug)}`, { ...params }))
        .data,
    structuredData: (params: { baseUrl?: string; page?: number; limit?: number } = {}) =>
      this.get<StructuredData>('/v1/seo/structured-data', { ...params }),
    /** The sitemaps.org XML document. */
    sitemap: (params: { baseUrl?: string; page?: number } = {}) =>
      this.get<string>('/v1/seo/sitemap', { ...params }, 'text'),
    sitemapJson: (params: { baseUrl?: string; page?: number } = {}) =>
      this.get<SitemapJson>('/v1/seo/sitemap', { ...params, format: 'json' }),
    /** The RSS 2.0 document. */
    rss: (params: FeedParams = {}) => this.get<string>('/v1/seo/rss', { ...params }, 'text'),
    /** The Atom 1.0 document: the RSS's items, with their guids as ids written as IRIs. */
    atom: (params: FeedParams = {}) => this.get<string>('/v1/seo/atom', { ...params }, 'text'),
    /** The JSON Feed 1.1 document, parsed: the RSS's items, with their guids as ids written as IRIs. */
    jsonFeed: (params: FeedParams = {}) => this.get<JsonFeed>('/v1/seo/feed.json', { ...params }),
  };

  readonly analytics = {
    /**
     * Records a page view; keep `id` to send updates. A bot's request answers `{ success: false }`.
     * From a server (server-side rendering, an edge function), whose own User-Agent is a bot's, send
     * the visitor's with a secret key: `visitor: { ip, userAgent }` of the request being rendered.
     */
    track: (body: TrackBody) =>
      this.request<TrackCreated | { success: false; reason: 'bot' }>('POST', '/v1/analytics/track', {}, body),
    /** Adds engagement to a page view; from a server, with the same `visitor` as its `track`. */
    update: async (pageViewId: string, patch: PageViewUpdate) =>
      (
        await this.request<{ data: { success: boolean } }>(
          'PUT',
          `/v1/analytics/track/${encodeURIComponent(pageViewId)}`,
          {},
          patch,
        )
      ).data,
    stats: async (params: { days?: number } & TestViewParams = {}) =>
      (await this.get<{ data: Stats }>('/v1/analytics/stats', { ...params })).data,
    funnel: (params: { days?: number; slug?: string } & TestViewParams = {}) =>
      this.get<Funnel>('/v1/analytics/funnel', { ...params }),
    timeseries: async (params: PeriodParams & { interval?: 'hour' | 'day'; slug?: string } = {}) =>
      (await this.get<{ data: TimeSeries }>('/v1/analytics/timeseries', { ...params })).data,
    breakdown: (
      dimension: BreakdownDimension,
      params: PeriodParams & { page?: number; limit?: number } = {},
    ) => this.get<Breakdown>(`/v1/analytics/breakdown/${dimension}`, { ...params }),
    /** The breakdown as CSV text (every value when neither `page` nor `limit` is given). */
    breakdownCsv: (
      dimension: BreakdownDimension,
      params: PeriodParams & { page?: number; limit?: number } = {},
    ) => this.get<string>(`/v1/analytics/breakdown/${dimension}`, { ...params, format: 'csv' }, 'text'),
    reading: async (slug: string, params: PeriodParams = {}) =>
      (
        await this.get<{ data: ArticleReading }>(
          `/v1/analytics/articles/${encodeURIComponent(slug)}/reading`,
          { ...params },
        )
      ).data,
    realtime: async (params: TestViewParams = {}) =>
      (await this.get<{ data: Realtime }>('/v1/analytics/realtime', { ...params })).data,
  };

  /** A GET of any path, with the client's key, retries and ETag revalidation. */
  get<T>(path: string, query: Query, as: 'json' | 'text' = 'json', policy?: RetryPolicy): Promise<T> {
    return this.request<T>('GET', path, query, undefined, as, policy);
  }

  async request<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    query: Query,
    body?: unknown,
    as: 'json' | 'text' = 'json',
    policy: RetryPolicy = { retries: this.#retries, maxRetryDelayMs: this.#maxRetryDelayMs },
    extra: RequestExtras = {},
  ): Promise<T> {
    const url = this.#baseUrl + path + queryString(query);
    const cached = method === 'GET' && this.#etagCacheSize > 0 ? this.#etags.get(url) : undefined;
    const headers: Record<string, string> = {
      'X-API-Key': this.#key,
      'X-Folio-Client': clientHeader,
      Accept: as === 'json' ? 'application/json' : '*/*',
    };
    if (body !== undefined) headers['Content-Type'] = extra.contentType ?? 'application/json';
    if (cached) headers['If-None-Match'] = cached.etag;
    Object.assign(headers, extra.headers);
    // A POST is sent again only when the server replays it (an Idempotency-Key).
    const resend = method !== 'POST' || extra.headers?.['Idempotency-Key'] !== undefined;

    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.#fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.#timeoutMs),
        });
      } catch (error) {
        // A POST that got no answer may have been stored: only idempotent requests are sent again.
        if (resend && attempt < policy.retries) {
          await sleep(backoffMs(attempt));
          continue;
        }
        throw new FolioNetworkError(`${method} ${path} got no answer: ${String(error)}`, error);
      }
      if (response.status === 304 && cached) {
        this.#remember(url, cached); // most recently used last
        return cached.value as T;
      }
      if (response.ok) {
        extra.onHeaders?.(response.headers);
        if (response.status === 204) return undefined as T;
        const value = as === 'json' ? await response.json() : await response.text();
        const etag = response.headers.get('etag');
        if (method === 'GET' && etag && this.#etagCacheSize > 0) this.#remember(url, { etag, value });
        return value as T;
      }
      const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
      // 429 and 503 mean nothing was done: safe to send again, once the server says it is time.
      const retriable = response.status === 429 || response.status === 503;
      const delay = retryAfter === null ? backoffMs(attempt) : retryAfter * 1000;
      if (retriable && attempt < policy.retries && delay <= policy.maxRetryDelayMs) {
        await response.body?.cancel();
        await sleep(delay);
        continue;
      }
      throw errorFor(
        response.status,
        await errorBody(response),
        response.headers.get('x-request-id'),
        retryAfter,
      );
    }
  }

  #remember(url: string, entry: Cached): void {
    this.#etags.delete(url);
    this.#etags.set(url, entry);
    if (this.#etags.size > this.#etagCacheSize) this.#etags.delete(this.#etags.keys().next().value!);
  }
}

function withSelect<T extends { select?: Select }>(params: T): Query {
  const { select, ...rest } = params;
  return {
    ...(rest as Query),
    select: select === undefined || typeof select === 'string' ? select : JSON.stringify(select),
  };
}

function queryString(query: Query): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) search.set(name, value.join(','));
    } else search.set(name, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

async function errorBody(response: Response): Promise<ErrorBody> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as ErrorBody;
    if (typeof body?.message === 'string' && typeof body.error === 'string') return body;
  } catch {
    // not the contract's body: a proxy's error page, say
  }
  return {
    error: response.statusText || 'Error',
    message: `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
    statusCode: response.status,
  };
}

function retryAfterSeconds(header: string | null): number | null {
  if (header === null) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function backoffMs(attempt: number): number {
  return Math.min(250 * 2 ** attempt, 4000);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
