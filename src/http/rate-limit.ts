// Fixed one-minute windows per bucket, counted in process memory or, when REDIS_URL is set, in
// Redis so that every instance of the service shares one budget.
import type { Redis } from 'ioredis';

export interface Hit {
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface RateLimitStore {
  hit(bucket: string, windowMs: number): Promise<Hit>;
  /** Shared stores: resolves when the store answers (readiness and metrics); absent in memory. */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();
  #lastSweep = Date.now();

  async hit(bucket: string, windowMs: number): Promise<Hit> {
    const now = Date.now();
    if (now - this.#lastSweep > windowMs) this.#sweep(now);
    let window = this.#windows.get(bucket);
    if (window === undefined || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowMs };
      this.#windows.set(bucket, window);
    }
    window.count++;
    return { count: window.count, resetMs: window.resetAt - now };
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [bucket, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(bucket);
  }

  async close(): Promise<void> {
    this.#windows.clear();
  }
}

// INCR and the expiry of a new window in one atomic step, so that no window lives forever.
const hitScript = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix = 'folio:rl:') {
    this.#redis = redis;
    this.#prefix = prefix;
    redis.defineCommand('folioHit', { numberOfKeys: 1, lua: hitScript });
  }

  async hit(bucket: string, windowMs: number): Promise<Hit> {
    const [count, ttl] = (await (this.#redis as any).folioHit(this.#prefix + bucket, windowMs)) as [
      number,
      number,
    ];
    return { count, resetMs: ttl };
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}
