// Prometheus metrics at /metrics (prom-client, the ecosystem's client). Labels are bounded: the
// route pattern (never the URL), the method and the status code; no key, slug or query value ever
// becomes a label. Each app has a registry of its own, so that tests can build many apps.
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, type Metric, Registry } from 'prom-client';
import type { Db } from '../db/database.ts';
import type { RateLimitStore } from './rate-limit.ts';
import { pingWithin } from './ops-routes.ts';
import type { WriteBatches } from './write-batches.ts';
import { routeOf } from './route-of.ts';

export interface MetricsOptions {
  db: Db;
  rateLimits: RateLimitStore;
  /** The page-view writer's batches (analytics'; app.ts subscribes). */
  writeBatches: WriteBatches;
  /** The features' own metrics, each registered on the app's registry (the cleanup's, say). */
  sources: Array<(registry: Registry) => void>;
}

/**
 * Counts every request (its hook must be added before the routes) and returns the registry, which
 * metricsRoute serves.
 */
export function registerMetrics(app: FastifyInstance, options: MetricsOptions): AppMetrics {
  const registry = new Registry();
  const countHit = countRequests(app, registry);
  const stopBatches = countWriteBatches(registry, options.writeBatches);
  app.addHook('onClose', async () => stopBatches());
  watchDatabase(registry, options.db);
  watchRateLimitStore(registry, options.rateLimits);
  for (const register of options.sources) register(registry);
  return { registry, countHit };
}

export interface AppMetrics {
  registry: Registry;
  /** Counts a GET the hit path (hit-path.ts) answered from the answer cache, as the hook below counts one. */
  countHit: CountHit;
}

type CountHit = (route: string | undefined, statusCode: number, seconds: number) => void;

/** Requests by method, route pattern and status, and the answer cache's hits and misses. */
function countRequests(app: FastifyInstance, registry: Registry): CountHit {
  new Counter({
    name: 'folio_http_requests_total',
    help: 'Requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const tally of tallies.all()) this.inc(tally.labels, tally.count);
    },
  });
  const tallies = new RequestTallies(
    'folio_http_request_duration_seconds',
    'Time from the request to its answer, by method, route pattern and status',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  );
  registry.registerMetric(tallies as unknown as Metric);
  const cacheResults = { hit: 0, miss: 0 };
  new Counter({
    name: 'folio_answer_cache_requests_total',
    help: 'Cacheable GETs by answer-cache result (hit or miss); hit ratio = hit / (hit + miss)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ result: 'hit' }, cacheResults.hit);
      this.inc({ result: 'miss' }, cacheResults.miss);
    },
  });

  // Callback style: no promise per request on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeOf(request);
    tallies.observe(request.method, route.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    if (request.method === 'GET' && route.config.cache === true && request.auth) {
      if (request.answerCacheKey !== null) cacheResults.miss++;
      else if (reply.statusCode === 200 || reply.statusCode === 304) cacheResults.hit++;
    }
    done();
  });
  return (route, statusCode, seconds) => {
    tallies.observe('GET', route ?? 'unmatched', statusCode, seconds);
    cacheResults.hit++;
  };
}

/** The page-view writer's batches: outcomes, durations and sizes. Returns what stops counting. */
function countWriteBatches(registry: Registry, writeBatches: WriteBatches): () => void {
  const batches = new Counter({
    name: 'folio_page_view_write_batches_total',
    help: 'Group-commit batches of page-view writes, by outcome (committed or failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const batchDurations = new Histogram({
    name: 'folio_page_view_write_batch_duration_seconds',
    help: 'Time to apply and commit one batch of page-view writes',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const batchSizes = new Histogram({
    name: 'folio_page_view_write_batch_size',
    help: 'Writes per page-view batch',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [registry],
  });
  return writeBatches((batch) => {
    batches.inc({ outcome: batch.committed ? 'committed' : 'failed' });
    batchDurations.observe(batch.seconds);
    batchSizes.observe(batch.size);
  });
}

/** The pool, reachability and change notifications of the database. */
function watchDatabase(registry: Registry, db: Db): void {
  new Gauge({
    name: 'folio_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting requests); absent on SQLite',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const state = db.poolState();
      if (state === null) return;
      this.set({ state: 'total' }, state.total);
      this.set({ state: 'idle' }, state.idle);
      this.set({ state: 'waiting' }, state.waiting);
    },
  });
  new Gauge({
    name: 'folio_database_up',
    help: 'Whether the database can be reached (PostgreSQL; always 1 on SQLite, a file of the instance)',
    registers: [registry],
    collect() {
      this.set(db.health().up ? 1 : 0);
    },
  });
  new Counter({
    name: 'folio_database_outages_total',
    help: 'Times the database became unreachable since the process started',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(db.health().outages);
    },
  });
  new Gauge({
    name: 'folio_database_notifications_up',
    help: "Whether the database's change notifications are heard (PostgreSQL); absent on SQLite",
    registers: [registry],
    collect() {
      const hears = db.hearsChanges();
      if (hears !== null) this.set(hears ? 1 : 0);
    },
  });
}

function watchRateLimitStore(registry: Registry, rateLimits: RateLimitStore): void {
  new Gauge({
    name: 'folio_rate_limit_store_up',
    help: 'Whether the rate-limit store (redis or memory) answers a ping within 500 ms',
    labelNames: ['store'] as const,
    registers: [registry],
    async collect() {
      const store = rateLimits.ping === undefined ? 'memory' : 'redis';
      this.set({ store }, (await pingWithin(rateLimits, 500)) === null ? 1 : 0);
    },
  });
}

/** GET /metrics (after @fastify/swagger is registered, so that it is documented). */
export function metricsRoute(app: FastifyInstance, registry: Registry): void {
  app.get(
    '/metrics',
    {
      config: { access: 'none' },
      schema: {
        tags: ['Operations'],
        security: [],
        summary: 'Prometheus metrics',
        description:
          'Prometheus text exposition format. No key and no rate limit: expose it only to the scraper (e.g. keep the port off the public network or filter the path at the proxy). Labels carry route patterns, never URLs or key values, so their number stays bounded.',
        response: { 200: { type: 'string' } },
      },
    },
    async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    },
  );
}

interface Tally {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last is above every bound. */
  buckets: number[];
}

/**
 * The requests' histogram by method, route pattern and status, kept in plain objects and given to
 * the registry in prom-client's format when scraped. A prom-client child hashes and validates its
 * labels on every observe and inc: measured with wrk on the cached list, the two were a fifth of a
 * hit's CPU; here a request costs a map lookup and a few additions.
 */
class RequestTallies {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #bounds: number[];
  readonly #tallies = new Map<string, Tally>();

  constructor(name: string, help: string, bounds: number[]) {
    this.name = name;
    this.help = help;
    this.#bounds = bounds;
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let tally = this.#tallies.get(key);
    if (tally === undefined) {
      tally = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Array<number>(this.#bounds.length + 1).fill(0),
      };
      this.#tallies.set(key, tally);
    }
    tally.count++;
    tally.sum += seconds;
    let bucket = 0;
    while (bucket < this.#bounds.length && seconds > this.#bounds[bucket]) bucket++;
    tally.buckets[bucket]++;
  }

  all(): IterableIterator<Tally> {
    return this.#tallies.values();
  }

  /** What prom-client's registry reads of a metric (as Histogram#get gives it). */
  async get() {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const { labels, count, sum, buckets } of this.#tallies.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, index) => {
        cumulative += buckets[index];
        values.push({
          labels: { ...labels, le: bound },
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      });
      values.push({ labels: { ...labels, le: '+Inf' }, value: count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}
