// Sliding-window rate limits: a request is allowed when fewer than `limit` requests were allowed
// in the last `windowMs`, so no window of that length ever lets more than the budget through (fixed
// windows let twice the budget through across a boundary). Counted in process memory or, when
// REDIS_URL is set, in Redis so that every instance shares one budget; a Redis that fails or
// hangs is replaced by this instance's memory until it answers again.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface Decision {
  allowed: boolean;
  /** Requests still allowed now, this one counted. */
  remaining: number;
  /**
   * Milliseconds until the oldest counted request leaves the window, i.e. until one more request
   * is allowed; the whole window when nothing is counted.
   */
  resetMs: number;
}

export interface RateLimitStore {
  /**
   * Counts a request of `bucket` when fewer than `limit` were allowed in the last `windowMs`; a
   * store in memory answers at once, without a promise.
   */
  consume(bucket: string, limit: number, windowMs: number): Decision | Promise<Decision>;
  /** Called when a shared store becomes unavailable (with the error) and when it is back. */
  onStateChange?(listener: (available: boolean, error?: unknown) => void): void;
  /** Shared stores: resolves when the store answers (readiness and metrics); absent in memory. */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The allowed requests of each bucket in the last window, oldest first, as runs: `times[i]` a
 * millisecond and `counts[i]` the requests allowed in it, so that a busy key (a million a minute)
 * keeps one entry per millisecond instead of one per request. Expired runs are skipped by moving
 * `head` and dropped in one slice once they are half the arrays (amortised O(1) per request).
 */
interface SlidingLog {
  times: number[];
  counts: number[];
  head: number;
  /** Requests counted in the runs from `head` on. */
  count: number;
}

export class MemoryRateLimitStore implements RateLimitStore {
  readonly #logs = new Map<string, SlidingLog>();
  #lastSweep = Date.now();

  /** Synchronous: the auth hook answers without a promise when the store is this one. */
  consume(bucket: string, limit: number, windowMs: number): Decision {
    const now = Date.now();
    if (now - this.#lastSweep > windowMs) this.#sweep(now, windowMs);
    let log = this.#logs.get(bucket);
    if (log === undefined) {
      log = { times: [], counts: [], head: 0, count: 0 };
      this.#logs.set(bucket, log);
    }
    const cutoff = now - windowMs;
    while (log.head < log.times.length && log.times[log.head] <= cutoff) {
      log.count -= log.counts[log.head];
      log.head++;
    }
    if (log.head >= 32 && log.head * 2 >= log.times.length) {
      log.times = log.times.slice(log.head);
      log.counts = log.counts.slice(log.head);
      log.head = 0;
    }
    const allowed = log.count < limit;
    if (allowed) {
      const last = log.times.length - 1;
      if (last >= log.head && log.times[last] === now) log.counts[last]++;
      else {
        log.times.push(now);
        log.counts.push(1);
      }
      log.count++;
    }
    return {
      allowed,
      remaining: Math.max(0, limit - log.count),
      resetMs: log.count === 0 ? windowMs : log.times[log.head] + windowMs - now,
    };
  }

  #sweep(now: number, windowMs: number): void {
    this.#lastSweep = now;
    for (const [bucket, log] of this.#logs) {
      if (log.count === 0 || log.times[log.times.length - 1] <= now - windowMs) {
        this.#logs.delete(bucket);
      }
    }
  }

  async close(): Promise<void> {
    this.#logs.clear();
  }
}

// The same sliding log as a sorted set per bucket, in one atomic step. Times are Redis's own clock,
// so instances whose clocks differ still share one timeline; members are unique per request.
const consumeScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
local reset = window
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {allowed, count, reset}
`;

export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #instance = randomBytes(6).toString('hex');
  #sequence = 0;

  // `rl2`: the fixed windows of earlier versions were strings under `folio:rl:`; a sorted-set
  // command on one of those would fail during a rolling upgrade.
  constructor(redis: Redis, prefix = 'folio:rl2:') {
    this.#redis = redis;
    this.#prefix = prefix;
    redis.defineCommand('folioConsume', { numberOfKeys: 1, lua: consumeScript });
  }

  async consume(bucket: string, limit: number, windowMs: number): Promise<Decision> {
    const member = `${this.#instance}:${++this.#sequence}`;
    const [allowed, count, reset] = (await (this.#redis as any).folioConsume(
      this.#prefix + bucket,
      windowMs,
      limit,
      member,
    )) as [number, number, number];
    return { allowed: allowed === 1, remaining: Math.max(0, limit - count), resetMs: reset };
  }

  /** Resolves when Redis answers (within the client's command timeout). */
  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}

/** How often a store that failed is asked again whether it is back. */
const probeEveryMs = 1000;

/**
 * Redis while it answers; this instance's memory while it does not (refused, or frozen past the
 * client's command timeout), so that limits still hold, per instance, instead of vanishing. Once
 * unavailable, requests no longer wait on Redis: one PING a second finds out when it is back.
 */
export class ResilientRateLimitStore implements RateLimitStore {
  readonly #shared: RedisRateLimitStore;
  readonly #local = new MemoryRateLimitStore();
  readonly #listeners: Array<(available: boolean, error?: unknown) => void> = [];
  #available = true;
  #lastProbe = 0;
  #closed = false;

  constructor(shared: RedisRateLimitStore) {
    this.#shared = shared;
  }

  /** Whether the counters are the shared ones (Redis) rather than this instance's. */
  get available(): boolean {
    return this.#available;
  }

  onStateChange(listener: (available: boolean, error?: unknown) => void): void {
    this.#listeners.push(listener);
  }

  async consume(bucket: string, limit: number, windowMs: number): Promise<Decision> {
    if (this.#available) {
      try {
        return await this.#shared.consume(bucket, limit, windowMs);
      } catch (error) {
        this.#setAvailable(false, error);
      }
    } else {
      this.#probe();
    }
    return this.#local.consume(bucket, limit, windowMs);
  }

  /** Redis itself, whatever the counters fall back to: readiness says when it cannot be reached. */
  ping(): Promise<void> {
    return this.#shared.ping();
  }

  #probe(): void {
    const now = Date.now();
    if (now - this.#lastProbe < probeEveryMs) return;
    this.#lastProbe = now;
    this.#shared.ping().then(
      () => this.#setAvailable(true),
      () => {},
    );
  }

  #setAvailable(available: boolean, error?: unknown): void {
    if (this.#available === available || this.#closed) return;
    this.#available = available;
    this.#lastProbe = Date.now();
    for (const listener of this.#listeners) listener(available, error);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#shared.close();
    await this.#local.close();
  }
}
