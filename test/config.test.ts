import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ConfigError,
  defaultLimits,
  defaultSizing,
  defaultWebhookConfig,
  loadConfig,
  redactUrl,
} from '../src/config.ts';

test('config: defaults when the environment is empty', () => {
  const config = loadConfig({});
  assert.deepEqual(
    { ...config },
    {
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: './data/folio.db',
      redisUrl: null,
      trustProxy: false,
      logLevel: 'info',
      geoipDatabase: null,
      analyticsRetentionDays: 400,
      limits: defaultLimits,
      sizing: {
        databasePoolSize: 10,
        workerIdleMs: 30_000,
        databasePoolMode: 'session',
        databaseListenUrl: null,
      },
      webhooks: defaultWebhookConfig,
    },
  );
  assert.ok(Object.isFrozen(config));
});

test('config: DATABASE_POOL_SIZE and WORKER_IDLE_MS size the instance, positive integers only', () => {
  const sessions = { databasePoolMode: 'session', databaseListenUrl: null };
  assert.deepEqual(defaultSizing, { databasePoolSize: 10, workerIdleMs: 30_000, ...sessions });
  const config = loadConfig({ DATABASE_POOL_SIZE: '3', WORKER_IDLE_MS: '5000' });
  assert.deepEqual({ ...config.sizing }, { databasePoolSize: 3, workerIdleMs: 5000, ...sessions });
  for (const [name, value] of [
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', 'ten'],
    ['WORKER_IDLE_MS', '-1'],
  ]) {
    assert.throws(
      () => loadConfig({ [name]: value }),
      (error: unknown) => error instanceof ConfigError && error.message.includes(name),
    );
  }
});

test('config: DATABASE_POOL_MODE=transaction (a pooler in transaction mode) needs DATABASE_LISTEN_URL, on PostgreSQL only', () => {
  const pooled = 'postgres://folio@pgbouncer:6432/folio';
  const direct = 'postgres://folio@db:5432/folio';
  const config = loadConfig({
    DATABASE_URL: pooled,
    DATABASE_POOL_MODE: 'transaction',
    DATABASE_LISTEN_URL: direct,
  });
  assert.equal(config.sizing.databasePoolMode, 'transaction');
  assert.equal(config.sizing.databaseListenUrl, direct);
  assert.equal(
    loadConfig({ DATABASE_URL: pooled, DATABASE_LISTEN_URL: direct }).sizing.databaseListenUrl,
    direct,
  );
  for (const [env, pattern] of [
    [{ DATABASE_URL: pooled, DATABASE_POOL_MODE: 'transaction' }, /needs DATABASE_LISTEN_URL/],
    [
      { DATABASE_URL: pooled, DATABASE_POOL_MODE: 'statement' },
      /DATABASE_POOL_MODE must be session or transaction/,
    ],
    [
      { DATABASE_URL: pooled, DATABASE_LISTEN_URL: 'db:5432' },
      /DATABASE_LISTEN_URL must be a postgres:\/\/ URL/,
    ],
    [{ DATABASE_URL: './data/x.db', DATABASE_POOL_MODE: 'transaction' }, /PostgreSQL only/],
    [{ DATABASE_URL: './data/x.db', DATABASE_LISTEN_URL: direct }, /PostgreSQL only/],
  ] as const) {
    assert.throws(
      () => loadConfig(env),
      (error: unknown) => error instanceof ConfigError && pattern.test(error.message),
      JSON.stringify(env),
    );
  }
});

test('config: ANALYTICS_RETENTION_DAYS is a whole number of days from 1 to 36500', () => {
  assert.equal(loadConfig({ ANALYTICS_RETENTION_DAYS: '30' }).analyticsRetentionDays, 30);
  assert.equal(loadConfig({ ANALYTICS_RETENTION_DAYS: ' 36500 ' }).analyticsRetentionDays, 36500);
  for (const value of ['0', '-1', '1.5', 'forever', '36501']) {
    assert.throws(
      () => loadConfig({ ANALYTICS_RETENTION_DAYS: value }),
      (error: unknown) => error instanceof ConfigError && /ANALYTICS_RETENTION_DAYS/.test(String(error)),
      value,
    );
  }
});

test('config: every variable is read and typed', () => {
  const config = loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    DATABASE_URL: 'postgres://u:p@db:5432/folio',
    REDIS_URL: 'redis://cache:6379',
    TRUST_PROXY: '10.0.0.0/8, 127.0.0.1',
    LOG_LEVEL: 'warn',
  });
  assert.equal(config.port, 8080);
  assert.equal(config.host, '0.0.0.0');
  assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/folio');
  assert.equal(config.redisUrl, 'redis://cache:6379');
  assert.deepEqual(config.trustProxy, ['10.0.0.0/8', '127.0.0.1']);
  assert.equal(config.logLevel, 'warn');
});

test('config: TRUST_PROXY takes true, false and a hop count', () => {
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
});

test('config: every invalid variable is named in one error, and no password is shown', () => {
  assert.throws(
    () =>
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://root:secret@db/folio',
        REDIS_URL: 'http://cache',
        TRUST_PROXY: 'everyone',
        LOG_LEVEL: 'loud',
      }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      for (const name of ['PORT', 'DATABASE_URL', 'REDIS_URL', 'TRUST_PROXY', 'LOG_LEVEL']) {
        assert.match(error.message, new RegExp(name));
      }
      assert.doesNotMatch(error.message, /secret/);
      return true;
    },
  );
});

test('config: a port out of range is refused', () => {
  assert.throws(() => loadConfig({ PORT: '70000' }), /PORT must be an integer from 0 to 65535/);
});

test('config: redactUrl hides the password only', () => {
  assert.equal(redactUrl('postgres://folio:hunter2@db:5432/x'), 'postgres://folio:***@db:5432/x');
  assert.equal(redactUrl('postgres://db:5432/x'), 'postgres://db:5432/x');
});

test('config: timeouts and connection caps are read, and refused when not positive integers', () => {
  const config = loadConfig({
    REQUEST_TIMEOUT_MS: '2000',
    HEADERS_TIMEOUT_MS: '1000',
    IDLE_TIMEOUT_MS: '3000',
    MAX_CONNECTIONS: '50',
    MAX_CONNECTIONS_PER_IP: '7',
    SHUTDOWN_TIMEOUT_MS: '4000',
    DATABASE_CONNECT_TIMEOUT_MS: '200',
    DATABASE_QUERY_TIMEOUT_MS: '900',
    SEARCH_CONCURRENCY: '2',
    SEARCH_TIMEOUT_MS: '750',
  });
  assert.deepEqual(
    { ...config.limits },
    {
      requestTimeoutMs: 2000,
      headersTimeoutMs: 1000,
      idleTimeoutMs: 3000,
      maxConnections: 50,
      maxConnectionsPerIp: 7,
      shutdownTimeoutMs: 4000,
      databaseConnectTimeoutMs: 200,
      databaseQueryTimeoutMs: 900,
      searchConcurrency: 2,
      searchTimeoutMs: 750,
    },
  );
  assert.throws(
    () =>
      loadConfig({
        MAX_CONNECTIONS: '0',
        MAX_CONNECTIONS_PER_IP: 'many',
        REQUEST_TIMEOUT_MS: '1.5',
        HEADERS_TIMEOUT_MS: 'soon',
        SEARCH_CONCURRENCY: '0',
        SEARCH_TIMEOUT_MS: 'never',
      }),
    (error: Error) =>
      error instanceof ConfigError &&
      /MAX_CONNECTIONS must be a positive integer, got '0'/.test(error.message) &&
      /MAX_CONNECTIONS_PER_IP must be a positive integer, got 'many'/.test(error.message) &&
      /REQUEST_TIMEOUT_MS must be a positive integer/.test(error.message) &&
      /HEADERS_TIMEOUT_MS must be a positive integer/.test(error.message) &&
      /SEARCH_CONCURRENCY must be a positive integer, got '0'/.test(error.message) &&
      /SEARCH_TIMEOUT_MS must be a positive integer, got 'never'/.test(error.message),
  );
  assert.throws(
    () => loadConfig({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' }),
    /HEADERS_TIMEOUT_MS must not be greater than REQUEST_TIMEOUT_MS/,
  );
  // Searches would take every connection of the pool.
  assert.throws(
    () => loadConfig({ SEARCH_CONCURRENCY: '6', DATABASE_POOL_SIZE: '6' }),
    /SEARCH_CONCURRENCY \(6\) must be less than DATABASE_POOL_SIZE \(6\)/,
  );
  assert.equal(loadConfig({ SEARCH_CONCURRENCY: '5', DATABASE_POOL_SIZE: '6' }).limits.searchConcurrency, 5);
  // Unset, it follows a small pool down.
  assert.equal(loadConfig({ DATABASE_POOL_SIZE: '3' }).limits.searchConcurrency, 2);
  assert.equal(loadConfig({ DATABASE_POOL_SIZE: '1' }).limits.searchConcurrency, 1);
});
