// Whether PostgreSQL can be reached, as this process sees it. A lost or refused connection makes
// it check at once with a connection of its own; while that check fails the database is down:
// requests are refused at once (503) instead of each trying to connect, and the check is retried
// with a growing, jittered delay, so that a fleet does not storm a database that is coming back.
// The first check that succeeds brings it up again. Listeners hear each change once.
import { postgresDriver } from './postgres-driver.ts';

export interface HealthState {
  up: boolean;
  /** Why it is down (no host, port or credentials: /ready shows it to anyone); null while up. */
  reason: string | null;
  /** When the current state began (ms since the epoch). */
  since: number;
  /** Times it went down since the process started. */
  outages: number;
}

export type HealthListener = (state: HealthState) => void;

/** Refused without a connection attempt while the database is known to be down. */
export class DatabaseUnavailableError extends Error {
  // SQLSTATE connection_failure: whatever classifies database errors by code treats it so.
  readonly code = '08006';
}

const firstRetryMs = 100;
const maxRetryMs = 2000;

export class DatabaseHealth {
  readonly #probe: () => Promise<void>;
  readonly #listeners = new Set<HealthListener>();
  #state: HealthState = { up: true, reason: null, since: Date.now(), outages: 0 };
  #checking: Promise<void> | null = null;
  #failedChecks = 0;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  /** `probe` opens a connection of its own and runs a query; it rejects when it cannot. */
  constructor(probe: () => Promise<void>) {
    this.#probe = probe;
  }

  get up(): boolean {
    return this.#state.up;
  }

  state(): HealthState {
    return { ...this.#state };
  }

  onChange(listener: HealthListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A connection failed or was lost: checks now whether the database can still be reached. */
  suspect(): void {
    if (this.#state.up) void this.#check();
  }

  /** Checks now (or joins the check under way) and resolves with the state it found. */
  async checkNow(): Promise<HealthState> {
    await this.#check();
    return this.state();
  }

  /** Throws while the database is down, so that a request does not wait for a connection. */
  assertUp(): void {
    if (!this.#state.up) {
      throw new DatabaseUnavailableError(`the database is down: ${this.#state.reason}`);
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #check(): Promise<void> {
    if (this.#checking !== null) return this.#checking;
    if (this.#closed) return Promise.resolve();
    this.#checking = this.#probe().then(
      () => {
        this.#checking = null;
        this.#failedChecks = 0;
        if (this.#timer !== null) clearTimeout(this.#timer);
        this.#timer = null;
        this.#set(true, null);
      },
      (error: unknown) => {
        this.#checking = null;
        this.#failedChecks++;
        this.#set(false, reasonOf(error));
        this.#retryLater();
      },
    );
    return this.#checking;
  }

  #retryLater(): void {
    if (this.#closed || this.#timer !== null) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        void this.#check();
      },
      backoffDelay(this.#failedChecks, firstRetryMs, maxRetryMs),
    );
    // A CLI command that is done must not be kept alive by it.
    this.#timer.unref();
  }

  #set(up: boolean, reason: string | null): void {
    if (this.#state.up === up) {
      if (!up) this.#state.reason = reason;
      return;
    }
    this.#state = {
      up,
      reason,
      since: Date.now(),
      outages: this.#state.outages + (up ? 0 : 1),
    };
    for (const listener of this.#listeners) listener(this.state());
  }
}

/** Opens a connection of its own (never one of the pool, which may all be busy) and asks `select 1`. */
export async function probeConnection(url: string, timeoutMs: number): Promise<void> {
  const client = new (postgresDriver().Client)({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Errors that may mean the database can no longer be reached: a connection refused, lost, ended by
 * the server or timed out. Any other error is the query's own.
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && connectionCodes.has(code)) return true;
  const message = String((error as Error)?.message);
  return /^(Connection terminated|Client has encountered a connection error|Query read timeout)/.test(
    message,
  );
}

/**
 * The wait before attempt `failures + 1`: `firstMs` doubling up to `maxMs`, jittered by ±25% so
 * that the instances of a fleet do not all reconnect in the same millisecond.
 */
export function backoffDelay(failures: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** (failures - 1)) * (0.75 + Math.random() / 2);
}

const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  // admin_shutdown, crash_shutdown, cannot_connect_now, and the connection exceptions
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = String((error as Error)?.message);
  if (code === 'ECONNREFUSED') return 'The database cannot be reached (connection refused)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'The database cannot be reached (host not found)';
  if (code === '57P03') return 'The database cannot be reached (it is starting up or shutting down)';
  if (code === '57P01' || code === '57P02') return 'The database cannot be reached (it ended the session)';
  if (code === '28P01' || code === '28000') return 'The database refuses the credentials';
  if (/timeout/i.test(message)) return 'The database cannot be reached (no answer in time)';
  return 'The database cannot be reached';
}
