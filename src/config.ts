// One typed, validated, frozen configuration read from the environment. Anything invalid stops the
// process at start with a message naming the variable, never later at the first request.
import { isIP } from 'node:net';

export type TrustProxy = boolean | number | string[];

export interface Config {
  readonly port: number;
  readonly host: string;
  /** A `postgres://` URL, or a file path for the embedded SQLite database. */
  readonly databaseUrl: string;
  readonly redisUrl: string | null;
  readonly trustProxy: TrustProxy;
  readonly logLevel: string;
  /** Path to an MMDB country database that replaces the bundled one. */
  readonly geoipDatabase: string | null;
  /** Days raw page views are kept (ANALYTICS_RETENTION_DAYS); their rollups stay forever. */
  readonly analyticsRetentionDays: number;
  readonly limits: Limits;
  readonly sizing: Sizing;
  readonly webhooks: WebhookConfig;
}

/** Webhook delivery (README, webhooks). */
export interface WebhookConfig {
  /** WEBHOOK_TIMEOUT_MS: one delivery attempt, connection to the end of the answer. */
  readonly timeoutMs: number;
  /**
   * WEBHOOK_POLL_MS: how soon an instance takes up the events others wrote (told by the outbox's
   * stamp, without a query) and the deliveries it knows due; without news it asks every 15 s.
   */
  readonly pollMs: number;
  /** WEBHOOK_RETRY_DELAYS: the delays before each retry (`5s,5m,30m,2h,5h,10h,14h`), then failed. */
  readonly retryDelaysMs: readonly number[];
  /**
   * WEBHOOK_ALLOW_PRIVATE: `true` lets webhooks reach loopback, private and other non-public
   * addresses; a comma-separated list of addresses and CIDR ranges allows those only; default none.
   */
  readonly allowPrivate: boolean | readonly string[];
}

export const defaultWebhookConfig: WebhookConfig = Object.freeze({
  timeoutMs: 10_000,
  pollMs: 1_000,
  retryDelaysMs: Object.freeze([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000]),
  allowPrivate: false,
});

/** How much of the machine an instance holds: connections and threads (README, sizing). */
export interface Sizing {
  /**
   * DATABASE_POOL_SIZE: PostgreSQL connections of the instance's pool, opened as the work needs
   * them (one more listens for change notifications). A page-view batch holds one while it writes.
   */
  readonly databasePoolSize: number;
  /**
   * WORKER_IDLE_MS: SQLite, how long a worker thread (the two read lanes, the task thread, the
   * checkpointer) waits for work before it ends, giving its memory back; the next piece of work
   * starts it again.
   */
  readonly workerIdleMs: number;
  /**
   * DATABASE_POOL_MODE: `session` (PostgreSQL itself, or PgBouncer in session mode) or
   * `transaction` (a pooler in transaction mode: no named prepared statements; needs
   * DATABASE_LISTEN_URL).
   */
  readonly databasePoolMode: 'session' | 'transaction';
  /**
   * DATABASE_LISTEN_URL: where the change listener (LISTEN, one connection per instance) connects:
   * PostgreSQL itself or a session-mode pool; default DATABASE_URL.
   */
  readonly databaseListenUrl: string | null;
}

export const defaultSizing: Sizing = Object.freeze({
  databasePoolSize: 10,
  workerIdleMs: 30_000,
  databasePoolMode: 'session',
  databaseListenUrl: null,
});

/** Timeouts and caps that keep a slow client or a hung dependency from taking the service down. */
export interface Limits {
  /** REQUEST_TIMEOUT_MS: time to receive a whole request, body included (408 after). */
  readonly requestTimeoutMs: number;
  /** HEADERS_TIMEOUT_MS: time to receive the request headers. */
  readonly headersTimeoutMs: number;
  /** IDLE_TIMEOUT_MS: an open socket that sends nothing for this long is closed. */
  readonly idleTimeoutMs: number;
  /** MAX_CONNECTIONS: open connections per instance; more are refused at once. */
  readonly maxConnections: number;
  /**
   * MAX_CONNECTIONS_PER_IP: open connections from one peer address (the socket's, the only one known
   * before a request is read); more are closed at once. Peers trusted by TRUST_PROXY are exempt.
   */
  readonly maxConnectionsPerIp: number;
  /** SHUTDOWN_TIMEOUT_MS: on SIGTERM, time given to requests in flight before they are cut. */
  readonly shutdownTimeoutMs: number;
  /** DATABASE_CONNECT_TIMEOUT_MS: PostgreSQL, wait for a connection. */
  readonly databaseConnectTimeoutMs: number;
  /** DATABASE_QUERY_TIMEOUT_MS: PostgreSQL, one query; SQLite, the wait for another process's write lock. */
  readonly databaseQueryTimeoutMs: number;
  /**
   * SEARCH_CONCURRENCY: PostgreSQL, searches running at once per instance, each on a connection of
   * the pool; the others wait their turn, so that the pool keeps connections for other requests.
   */
  readonly searchConcurrency: number;
  /** SEARCH_TIMEOUT_MS: PostgreSQL, one statement of a search, which is then answered 503. */
  readonly searchTimeoutMs: number;
}

export const defaultLimits: Limits = Object.freeze({
  requestTimeoutMs: 10_000,
  headersTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  maxConnections: 4_096,
  // A sixteenth of the instance's connections: one client cannot hold them all, while a NAT of
  // dozens of browsers (six connections each) still fits.
  maxConnectionsPerIp: 256,
  shutdownTimeoutMs: 5_000,
  databaseConnectTimeoutMs: 500,
  databaseQueryTimeoutMs: 1_500,
  // Four of the pool's ten connections: a search takes milliseconds once its sets are read, so
  // four keep two cores busy while six connections stay free for everything else.
  searchConcurrency: 4,
  // Far above any search of 100,000 articles (under 0.5 s): only a runaway one is cut.
  searchTimeoutMs: 5_000,
});

export class ConfigError extends Error {}

/** The SQLite file used when DATABASE_URL is unset; the only one that gets the demo project. */
export const defaultDatabaseUrl = './data/folio.db';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const port = parsePort(env.PORT, problems);
  const host = env.HOST?.trim() || '127.0.0.1';
  const databaseUrl = env.DATABASE_URL?.trim() || defaultDatabaseUrl;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(databaseUrl) && !isPostgresUrl(databaseUrl)) {
    problems.push(`DATABASE_URL must be a postgres:// URL or a file path, got '${redactUrl(databaseUrl)}'`);
  }
  const redisUrl = env.REDIS_URL?.trim() || null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) {
    problems.push('REDIS_URL must be a redis:// or rediss:// URL');
  }
  const trustProxy = parseTrustProxy(env.TRUST_PROXY, problems);
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!logLevels.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${logLevels.join(', ')}`);
  const geoipDatabase = env.GEOIP_DATABASE?.trim() || null;
  let limits: Limits = Object.freeze({
    requestTimeoutMs: parseCount(env, 'REQUEST_TIMEOUT_MS', defaultLimits.requestTimeoutMs, problems),
    headersTimeoutMs: parseCount(env, 'HEADERS_TIMEOUT_MS', defaultLimits.headersTimeoutMs, problems),
    idleTimeoutMs: parseCount(env, 'IDLE_TIMEOUT_MS', defaultLimits.idleTimeoutMs, problems),
    maxConnections: parseCount(env, 'MAX_CONNECTIONS', defaultLimits.maxConnections, problems),
    maxConnectionsPerIp: parseCount(
      env,
      'MAX_CONNECTIONS_PER_IP',
      defaultLimits.maxConnectionsPerIp,
      problems,
    ),
    shutdownTimeoutMs: parseCount(env, 'SHUTDOWN_TIMEOUT_MS', defaultLimits.shutdownTimeoutMs, problems),
    databaseConnectTimeoutMs: parseCount(
      env,
      'DATABASE_CONNECT_TIMEOUT_MS',
      defaultLimits.databaseConnectTimeoutMs,
      problems,
    ),
    databaseQueryTimeoutMs: parseCount(
      env,
      'DATABASE_QUERY_TIMEOUT_MS',
      defaultLimits.databaseQueryTimeoutMs,
      problems,
    ),
    searchConcurrency: parseCount(env, 'SEARCH_CONCURRENCY', defaultLimits.searchConcurrency, problems),
    searchTimeoutMs: parseCount(env, 'SEARCH_TIMEOUT_MS', defaultLimits.searchTimeoutMs, problems),
  });
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    problems.push('HEADERS_TIMEOUT_MS must not be greater than REQUEST_TIMEOUT_MS');
  }
  const analyticsRetentionDays = parseRetentionDays(env.ANALYTICS_RETENTION_DAYS, problems);
  const sizing: Sizing = Object.freeze({
    databasePoolSize: parseCount(env, 'DATABASE_POOL_SIZE', defaultSizing.databasePoolSize, problems),
    workerIdleMs: parseCount(env, 'WORKER_IDLE_MS', defaultSizing.workerIdleMs, problems),
    ...parsePoolMode(env, databaseUrl, problems),
  });
  // Searches hold a pool connection each: as many as the pool would leave nothing for other
  // requests. Unset, it follows a small pool down (4, at most the pool less one, at least 1).
  if (env.SEARCH_CONCURRENCY === undefined || env.SEARCH_CONCURRENCY === '') {
    limits = Object.freeze({
      ...limits,
      searchConcurrency: Math.max(1, Math.min(limits.searchConcurrency, sizing.databasePoolSize - 1)),
    });
  } else if (limits.searchConcurrency >= sizing.databasePoolSize && sizing.databasePoolSize > 1) {
    problems.push(
      `SEARCH_CONCURRENCY (${limits.searchConcurrency}) must be less than DATABASE_POOL_SIZE (${sizing.databasePoolSize}), so that searches leave connections for other requests`,
    );
  }
  const webhooks = parseWebhookConfig(env, problems);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return Object.freeze({
    port,
    host,
    databaseUrl,
    redisUrl,
    trustProxy,
    logLevel,
    geoipDatabase,
    analyticsRetentionDays,
    limits,
    sizing,
    webhooks,
  });
}

function parseWebhookConfig(env: NodeJS.ProcessEnv, problems: string[]): WebhookConfig {
  const delaysText = env.WEBHOOK_RETRY_DELAYS?.trim() ?? '';
  let retryDelaysMs = defaultWebhookConfig.retryDelaysMs;
  if (delaysText !== '') {
    const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
    const parsed = delaysText.split(',').map((entry) => /^(\d+)(ms|s|m|h)$/.exec(entry.trim()));
    if (parsed.some((match) => match === null) || parsed.length > 20) {
      problems.push(
        `WEBHOOK_RETRY_DELAYS must be a comma-separated list of at most 20 durations such as 5s,5m,2h, got '${delaysText}'`,
      );
    } else retryDelaysMs = Object.freeze(parsed.map((match) => Number(match![1]) * units[match![2]!]!));
  }
  const allowText = env.WEBHOOK_ALLOW_PRIVATE?.trim() ?? '';
  let allowPrivate: boolean | readonly string[] = false;
  if (allowText === 'true') allowPrivate = true;
  else if (allowText !== '' && allowText !== 'false') {
    const entries = allowText.split(',').map((entry) => entry.trim());
    const bad = entries.filter((entry) => !isAddressOrRange(entry));
    if (bad.length > 0) {
      problems.push(
        `WEBHOOK_ALLOW_PRIVATE must be true, false, or a comma-separated list of addresses/CIDRs; bad: ${bad.join(', ')}`,
      );
    }
    allowPrivate = Object.freeze(entries);
  }
  return Object.freeze({
    timeoutMs: parseCount(env, 'WEBHOOK_TIMEOUT_MS', defaultWebhookConfig.timeoutMs, problems),
    pollMs: parseCount(env, 'WEBHOOK_POLL_MS', defaultWebhookConfig.pollMs, problems),
    retryDelaysMs,
    allowPrivate,
  });
}

/** An IP address, or a CIDR range of them. */
function isAddressOrRange(entry: string): boolean {
  const [network, prefix, extra] = entry.split('/');
  if (extra !== undefined || network === undefined) return false;
  const family = isIP(network);
  if (family === 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Hides the password of a URL so that it can be printed or logged. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

/** A positive integer setting (milliseconds or a count), or its default when unset. */
function parseCount(env: NodeJS.ProcessEnv, name: string, fallback: number, problems: string[]): number {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    problems.push(`${name} must be a positive integer, got '${value}'`);
  }
  return number;
}

function parsePoolMode(
  env: NodeJS.ProcessEnv,
  databaseUrl: string,
  problems: string[],
): Pick<Sizing, 'databasePoolMode' | 'databaseListenUrl'> {
  const mode = env.DATABASE_POOL_MODE?.trim() || defaultSizing.databasePoolMode;
  const listenUrl = env.DATABASE_LISTEN_URL?.trim() || null;
  if (mode !== 'session' && mode !== 'transaction') {
    problems.push(`DATABASE_POOL_MODE must be session or transaction, got '${mode}'`);
    return { databasePoolMode: 'session', databaseListenUrl: listenUrl };
  }
  if (listenUrl !== null && !isPostgresUrl(listenUrl))
    problems.push('DATABASE_LISTEN_URL must be a postgres:// URL');
  if (listenUrl !== null && !isPostgresUrl(databaseUrl))
    problems.push('DATABASE_LISTEN_URL applies to PostgreSQL only (DATABASE_URL is not a postgres:// URL)');
  if (mode === 'transaction' && !isPostgresUrl(databaseUrl))
    problems.push('DATABASE_POOL_MODE=transaction applies to PostgreSQL only');
  else if (mode === 'transaction' && listenUrl === null)
    problems.push(
      'DATABASE_POOL_MODE=transaction needs DATABASE_LISTEN_URL: LISTEN needs a session of its own (PostgreSQL itself, or a pooler in session mode)',
    );
  return { databasePoolMode: mode, databaseListenUrl: listenUrl };
}

function parsePort(value: string | undefined, problems: string[]): number {
  if (value === undefined || value.trim() === '') return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    problems.push(`PORT must be an integer from 0 to 65535, got '${value}'`);
  }
  return port;
}

function parseRetentionDays(value: string | undefined, problems: string[]): number {
  if (value === undefined || value.trim() === '') return 400;
  const days = Number(value);
  if (!/^\d+$/.test(value.trim()) || days < 1 || days > 36500) {
    problems.push(`ANALYTICS_RETENTION_DAYS must be a whole number of days from 1 to 36500, got '${value}'`);
  }
  return days;
}

export function parseTrustProxy(value: string | undefined, problems: string[]): TrustProxy {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  const address = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:]+)(\/\d{1,3})?$/i;
  const bad = entries.filter(
    (entry) => !address.test(entry) && !['loopback', 'linklocal', 'uniquelocal'].includes(entry),
  );
  if (bad.length > 0) {
    problems.push(
      `TRUST_PROXY must be true, false, a hop count, or a comma-separated list of addresses/CIDRs; bad: ${bad.join(', ')}`,
    );
  }
  return entries;
}
