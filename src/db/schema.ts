// Table types: rows as stored (snake_case). Timestamps are ISO 8601 UTC strings with milliseconds
// in both databases, so that they sort and compare as text the same way everywhere.
import type { Generated, Kysely, Selectable } from 'kysely';

export interface ProjectTable {
  id: string;
  name: string;
  slug: string;
  description: string;
  site_url: string | null;
  logo_url: string | null;
  /** Article paths: tokens :slug, :year, :month, :day, :section; default `/:slug`. */
  url_pattern: string;
  /** IANA time zone in which the pattern's date tokens are read; default `UTC`. */
  time_zone: string;
  /** JSON `{ name, image }` given to articles without an author, or null. */
  default_author: string | null;
  storage_limit_bytes: number;
  /** How many revisions each article keeps (migration 0017; the oldest beyond are deleted). */
  revisions_kept: number;
  /** Incremented by every write that changes an answer of the project (see http/answer-cache.ts). */
  content_version: Generated<number>;
  /**
   * The content version of the last change that can move an article in a list not sorted by
   * updatedAt (see content/page-marks.ts): set by bumpContentVersion unless the write says it
   * moves none.
   */
  order_version: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** A project as read from the database. */
export type Project = Selectable<ProjectTable>;

export interface ApiKeyTable {
  id: string;
  project_id: string;
  kind: 'secret' | 'public';
  name: string;
  prefix: string;
  key_hash: string;
  rate_limit: number | null;
  /** JSON array of allowed origins, or null for every origin. */
  allowed_origins: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** JSON array of the scopes of a secret key: `read`, `analytics`, `write` (migration 0017). */
  scopes: string;
  /** 1: a key made for tests (headless browsers count; its views are marked `test`). */
  test: number;
}

export type KeyScope = 'read' | 'analytics' | 'write';

export interface TagTable {
  id: string;
  project_id: string;
  name: string;
  /** Lower-cased name: tag names are unique and matched case-insensitively. */
  name_key: string;
  /** Unique within the project: the source's, else derived from the name. */
  slug: string;
  color: string | null;
  icon: string | null;
  created_at: string;
  updated_at: string;
}

export type StoredArticleStatus = 'draft' | 'published' | 'archived';

export interface ArticleTable {
  id: string;
  project_id: string;
  slug: string;
  title: string;
  /** Lower-cased title, for a case-insensitive sort that is the same on both databases. */
  title_key: string;
  excerpt: string | null;
  cover_image: string | null;
  /** The cover image's alt text (migration 0015). */
  cover_image_alt: string | null;
  content: string;
  /** The content as sanitised HTML, rendered at import; null until an import after migration 0005. */
  html?: string | null;
  status: StoredArticleStatus;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  word_count: number;
  character_count: number;
  read_time_minutes: number;
  /** The plain text cut to 160 characters: the fallback meta description. */
  summary: string;
  author_name: string;
  author_image: string | null;
  last_updated_by_name: string | null;
  last_updated_by_image: string | null;
  /** JSON object of SEO overrides, or null. */
  seo: string | null;
  /** UTF-8 bytes of every stored text of the article, its variants included. */
  storage_bytes: number;
  /** Hash of every imported field: an import changes `updated_at` only when it changes. */
  content_hash: string;
  /** SQLite only: the rowid of the article's row in the full-text index. */
  search_rowid: number | null;
  /** Title, excerpt and plain text, lower-cased: what `?search=` looks in (content/search-text.ts). */
  search_text: string;
  /**
   * The article's number within its project (0, 1, 2 …, a deleted one's number is given to the next
   * new article): its bit in the project's article sets (migration 0010, content/article-sets.ts).
   */
  ordinal: number;
  /** The article's own public path (from permalink, url, the generator's rules), or null: the project's URL pattern. */
  path: string | null;
  /** The first folder of the source file under the content root (Hugo's section): the pattern's :section. */
  section: string | null;
  /** JSON array of former paths (aliases, redirect_from, old slugs). */
  aliases: string;
  /** The feed id, fixed when the article is first stored. */
  guid: string | null;
  visibility: 'public' | 'members' | 'paid';
  /** JSON array of the source's tiers of a paid article. */
  tiers: string;
  /** JSON array `[{ name, slug, image, title, url }]` in the source's order; empty: the one author of author_name. */
  authors: string;
  /** Grows by one with every change of the article: its ETag for writes (migration 0017). */
  version: Generated<number>;
  /** The published_at for which `article.published` was last emitted; null: never. */
  announced_published_at: Generated<string | null>;
}

/** An article row as written by an import or a bench: the database keeps its version and announcement. */
export type ArticleInsertRow = Omit<ArticleTable, 'search_rowid' | 'version' | 'announced_published_at'>;

export interface ArticleTagTable {
  article_id: string;
  tag_id: string;
}

/**
 * One chunk of an article set (content/article-sets.ts): the project's articles that have a stored
 * status (`s:…`), a tag (`g:…`), a token of the search text (`t:…`) or a piece of it of up to
 * three characters (`c:…`), among the ordinals `chunk × 4096` to `chunk × 4096 + 4095`. No row: no
 * member there.
 */
export interface ArticleSetTable {
  project_id: string;
  set_key: string;
  chunk: number;
  /** The members' ordinals less the chunk's first, as 16-bit little-endian numbers or a 512-byte bitmap. */
  members: Uint8Array;
}

/** The tokens of a project's article sets, with a substring index (FTS5 trigram, pg_trgm) over them. */
export interface SearchTokenTable {
  id: Generated<number>;
  project_id: string;
  token: string;
}

export interface ArticleVariantTable {
  id: string;
  article_id: string;
  key: string;
  title: string | null;
  excerpt: string | null;
  content: string | null;
}

/** One page view, as written and read (stored as PageViewStorageTable). The client IP is never stored: `visitor_id` is a salted daily hash of it. */
export interface PageViewTable {
  id: string;
  project_id: string;
  article_id: string;
  /** `YYYY-MM-DD`, the UTC day of `created_at`: the bucket of the rollups. */
  day: string;
  created_at: string;
  updated_at: string;
  visitor_id: string;
  session_id: string;
  source: 'sdk' | 'direct';
  country: string | null;
  /** timeOnPage in whole milliseconds, so that sums are exact integers. */
  time_on_page_ms: number;
  /** scrollDepth in hundredths of a percent (0 to 10000), for the same reason. */
  scroll_depth_centi: number;
  exit_position: number | null;
  /** 1 or 0 as last sent, null when never sent (then `time_on_page_ms < 5000` decides). */
  bounced: number | null;
  screen_width: number | null;
  screen_height: number | null;
  event_count: number;
  page_url: string | null;
  page_title: string | null;
  referrer: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  /** JSON array of `{ type, element?, timeOffset }`. */
  events: string;
  /** 1: tracked with a test key; counted nowhere unless asked for (migration 0017). */
  test: number;
}

/** The columns of a page view whose values repeat, stored once in page_view_strings. */
export const pageViewStringColumns = [
  'page_url',
  'page_title',
  'referrer',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
] as const satisfies ReadonlyArray<keyof PageViewTable>;
export type PageViewStringColumn = (typeof pageViewStringColumns)[number];

/**
 * `page_views` as stored (migration 0022): each string column of PageViewTable as `<column>_id`, the
 * id of its value in page_view_strings (db/page-view-strings.ts reads and writes them).
 */
export type PageViewStorageTable = Omit<PageViewTable, PageViewStringColumn> & {
  [Column in PageViewStringColumn as `${Column}_id`]: number | null;
};

/**
 * A page view as `page_view_rows` holds it (migration 0040; db/page-view-rows.ts converts): 16-byte
 * values as bytes on SQLite, UUID text on PostgreSQL.
 */
export interface PageViewRowTable {
  project_num: number;
  day: string;
  rid: Uint8Array | string;
  article_num: number;
  created_ms: number;
  updated_ms: number;
  visitor: Uint8Array | string;
  session: Uint8Array | string;
  source: number;
  test: number;
  country: string | null;
  time_on_page_ms: number;
  scroll_depth_centi: number;
  exit_position: number | null;
  bounced: number | null;
  screen_width: number | null;
  screen_height: number | null;
  event_count: number;
  page_url_id: number | null;
  page_title_id: number | null;
  referrer_id: number | null;
  utm_source_id: number | null;
  utm_medium_id: number | null;
  utm_campaign_id: number | null;
  utm_term_id: number | null;
  utm_content_id: number | null;
  events: string | null;
  id_text: string | null;
  visitor_text: string | null;
  session_text: string | null;
}

/** A string of page views, once: found by the first 16 bytes of its SHA-256. */
export interface PageViewStringTable {
  id: Generated<number>;
  hash: Uint8Array;
  value: string;
  /** When a writer last read or inserted it, in Unix seconds (migration 0023). */
  used_at: number;
}

/** A project deleted at `requested_at` (Unix seconds): its page views' strings are to be swept. */
export interface PageViewStringSweepTable {
  requested_at: number;
}

export interface AnalyticsSaltTable {
  day: string;
  salt: string;
  created_at: string;
}

/** The visitor ids seen on a day, kept only while the day's salt lives. */
export interface AnalyticsDailyVisitorTable {
  project_id: string;
  day: string;
  visitor_id: string;
}

/** The sums of the page views of one day and article (see analytics/contribution.ts). */
export interface AnalyticsCounters {
  views: number;
  sdk_views: number;
  time_on_page_ms: number;
  scroll_depth_centi: number;
  bounced: number;
  engaged: number;
  reached25: number;
  reached50: number;
  reached75: number;
  reached90: number;
}

/** The counters of a whole project on one day, and the day's distinct visitors. */
export interface AnalyticsDailyTotalTable extends AnalyticsCounters {
  project_id: string;
  day: string;
  visitors: number;
}

/**
 * One row per article and day (migration 0024): the counters, the day's distinct visitors of
 * the article, its reach deciles, and its counts by hour and by reading time. A view since
 * migration 0042, read only: its rows are stored in analytics_article_days.
 */
export interface AnalyticsDailyArticleTable extends AnalyticsCounters, AnalyticsReach {
  project_id: string;
  day: string;
  article_id: string;
  visitors: number;
  /**
   * By hour of the day: `hour, views, visitors, time_on_page_ms, scroll_depth_centi` entries as
   * varints (analytics/rollups/packed-counts.ts; text before migration 0043).
   */
  hours: Uint8Array;
  /** By reading-time bucket (its lower bound in seconds): `seconds, views, deep_views` entries. */
  read_times: Uint8Array;
}

/** The rows of analytics_daily_articles as stored (migration 0042): the ids as their numbers. */
export type AnalyticsArticleDayTable = Omit<AnalyticsDailyArticleTable, 'project_id' | 'article_id'> & {
  project_num: number;
  article_num: number;
};

export interface AnalyticsDailyCountryTable {
  project_id: string;
  day: string;
  country: string;
  views: number;
}

/**
 * A project's number (migration 0039): given by a trigger when the project is inserted, never given
 * again; it stands for the project's id in rows that repeat it.
 */
export interface ProjectNumTable {
  num: Generated<number>;
  project_id: string;
}

/** An article's number (migration 0039), as a project's; kept while its project is. */
export interface ArticleNumTable {
  num: Generated<number>;
  article_id: string;
  project_id: string;
}

/** An article's tracked page views (migration 0008); no row: none yet. */
export interface ArticleViewsTable {
  article_id: string;
  project_id: string;
  view_count: number;
}

/** An article removed by an import's --prune, kept so that importing its slug again restores it. */
export interface RemovedArticleTable {
  project_id: string;
  slug: string;
  article_id: string;
  created_at: string;
  published_at: string | null;
  /** Its view count when it was removed. */
  view_count: number;
  /** The views of its daily rollups when it was removed. */
  rolled_up_views: number;
  removed_at: string;
}

/** The article as it was before a change replaced it (migration 0017). */
export interface ArticleRevisionTable {
  id: string;
  project_id: string;
  article_id: string;
  /** The version the article had while this copy was current. */
  version: number;
  /** What made the change that replaced it. */
  source: 'api' | 'import' | 'cli';
  created_at: string;
  /** JSON: the article's writable fields as the write API takes them. */
  snapshot: string;
}

/** The first answer to a POST with an `Idempotency-Key`, replayed for 24 hours. */
export interface IdempotencyKeyTable {
  key_id: string;
  idempotency_key: string;
  /** Hash of method, path and body: the same key with another request is refused. */
  request_hash: string;
  status_code: number;
  /** JSON `{ headers, body }`. */
  answer: string;
  created_at: string;
}

/** One event of the outbox, written in the transaction of the change it reports. */
export interface OutboxEventTable {
  id: string;
  project_id: string;
  type: string;
  /** JSON: the event's `data`. */
  data: string;
  created_at: string;
  /** When its deliveries were made (one per matching webhook); null: not yet. */
  dispatched_at: string | null;
}

export interface WebhookTable {
  id: string;
  project_id: string;
  url: string;
  /** `whsec_` and base64 of the signing key. */
  secret: string;
  /** JSON array of event types; empty: every event. */
  events: Generated<string>;
  description: string | null;
  created_at: string;
}

export interface WebhookDeliveryTable {
  id: string;
  webhook_id: string;
  event_id: string;
  project_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  duration_ms: number | null;
  created_at: string;
  updated_at: string;
}

/** A draft preview: its token (signed with the server secret `preview`) reads one article. */
export interface PreviewTable {
  id: string;
  project_id: string;
  article_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** Secrets of the server itself, shared by every instance on the database. */
export interface ServerSecretTable {
  name: string;
  value: string;
  created_at: string;
}

export interface Database {
  projects: ProjectTable;
  api_keys: ApiKeyTable;
  tags: TagTable;
  articles: ArticleTable;
  article_views: ArticleViewsTable;
  project_nums: ProjectNumTable;
  article_nums: ArticleNumTable;
  removed_articles: RemovedArticleTable;
  article_tags: ArticleTagTable;
  article_sets: ArticleSetTable;
  search_tokens: SearchTokenTable;
  article_variants: ArticleVariantTable;
  page_views: PageViewStorageTable;
  page_view_rows: PageViewRowTable;
  page_view_strings: PageViewStringTable;
  page_view_string_sweeps: PageViewStringSweepTable;
  analytics_salts: AnalyticsSaltTable;
  analytics_daily_visitors: AnalyticsDailyVisitorTable;
  analytics_daily_totals: AnalyticsDailyTotalTable;
  analytics_daily_articles: AnalyticsDailyArticleTable;
  analytics_article_days: AnalyticsArticleDayTable;
  analytics_daily_countries: AnalyticsDailyCountryTable;
  analytics_series: AnalyticsSeriesTable;
  analytics_breakdowns: AnalyticsBreakdownTable;
  analytics_visitor_sets: AnalyticsVisitorSetTable;
  analytics_visitor_entries: AnalyticsVisitorEntryTable;
  rollup_queue: RollupQueueTable;
  article_revisions: ArticleRevisionTable;
  idempotency_keys: IdempotencyKeyTable;
  outbox_events: OutboxEventTable;
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
  previews: PreviewTable;
  server_secrets: ServerSecretTable;
}

/**
 * What a query runs on: the Kysely instance of a database handle (`Db.kysely`) or a transaction of
 * it. Query functions name this parameter `executor`; `db` always means the handle (`Db`).
 */
export type Executor = Kysely<Database>;

/** A tracking write waiting to be rolled up: the measures after it, and before it for an update. */
export interface RollupQueueTable {
  seq: Generated<number>;
  page_view_id: string;
  project_id: string;
  day: string;
  /** 1: a new page view, 0: an update. */
  created: number;
  time_on_page_ms: number;
  scroll_depth_centi: number;
  exit_position: number | null;
  bounced: number | null;
  event_count: number;
  was_time_on_page_ms: number | null;
  was_scroll_depth_centi: number | null;
  was_exit_position: number | null;
  was_bounced: number | null;
  was_event_count: number | null;
}

/**
 * Views, visitors and sums of one hour or day of a project (`article_id` ''); in memory, of an
 * article too (stored in its rows of analytics_daily_articles).
 */
export interface AnalyticsSeriesTable {
  project_id: string;
  article_id: string;
  granularity: 'h' | 'd';
  bucket: string;
  views: number;
  visitors: number;
  time_on_page_ms: number;
  scroll_depth_centi: number;
}

export interface AnalyticsBreakdownTable {
  project_id: string;
  dimension: string;
  day: string;
  value: string;
  views: number;
  visitors: number;
  events: number;
}

/** The reach of an article's page views on one day, summed in memory (stored in analytics_daily_articles). */
export interface AnalyticsReadingTable extends AnalyticsReach {
  project_id: string;
  article_id: string;
  day: string;
}

/**
 * Page views whose furthest point (max of scroll depth and exit position) lies in [10·N, 10·N + 10)
 * percent of the text, as reachN, 100 in reach10.
 */
export interface AnalyticsReach {
  reach0: number;
  reach1: number;
  reach2: number;
  reach3: number;
  reach4: number;
  reach5: number;
  reach6: number;
  reach7: number;
  reach8: number;
  reach9: number;
  reach10: number;
}

/** Page views of an article and day by reading time, summed in memory (stored in analytics_daily_articles). */
export interface AnalyticsReadTimeTable {
  project_id: string;
  article_id: string;
  day: string;
  seconds: number;
  views: number;
  deep_views: number;
}

/**
 * The visitor sets as releases before migration 0041 kept them: still asked whether a visitor is
 * new until the cleanup has emptied them (two days), never written.
 */
export interface AnalyticsVisitorSetTable {
  project_id: string;
  day: string;
  scope: string;
  visitor_id: string;
}

/** An entry of a visitor set (db/visitor-entries.ts): a blob on SQLite, a uuid on PostgreSQL. */
export interface AnalyticsVisitorEntryTable {
  project_num: number;
  day: string;
  entry: Uint8Array | string;
}
