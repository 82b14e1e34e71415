// One typed, validated, frozen configuration read from the environment. Anything invalid stops the
// process at start with a message naming the variable, never later at the first request.

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
}

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
  const analyticsRetentionDays = parseRetentionDays(env.ANALYTICS_RETENTION_DAYS, problems);
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
  });
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Hides the password of a URL so that it can be printed or logged. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
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
