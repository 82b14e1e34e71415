// PostgreSQL's LISTEN/NOTIFY as a cheap "has anything changed?" signal shared by every instance.
// Triggers (migration 0003) notify `folio_keys` when a project or an API key changes (a content
// import bumps its project's version, so it notifies too) and `folio_views` with "project slug …"
// for the articles that got page views; `folio_outbox` (migration 0038) when a webhook event was
// written (outboxStamp). While the listening connection is up, a read cached
// since the last `folio_keys` notification is exact without asking the database; while it is
// down (or not yet up) `stamp()` is null and every caller asks the database, as before. A lost
// connection is opened again, LISTEN included, after a delay that grows from 0.1 s to 5 s.
// Listening counts only once a notification sent through the pool has been heard: behind a pooler
// in transaction mode, LISTEN lands on a server connection that other clients then use, so nothing
// is heard, and a cache trusting the silence would keep a revoked key. Until then every caller asks
// the database, and a warning says what to set.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { backoffDelay } from './database-health.ts';
import { mayChangeKeys } from './key-writes.ts';
import { postgresDriver } from './postgres-driver.ts';

/**
 * An article's view count as a roll-up committed it, and the content version of its project then
 * (the slug named that article at that version).
 */
export interface NotifiedViewCount {
  count: number;
  contentVersion: string;
}

export type ViewsListener = (
  projectId: string | null,
  slug: string | null,
  notified?: NotifiedViewCount,
) => void;

const firstReconnectMs = 100;
const maxReconnectMs = 5000;
/** How long the first notification, sent through the pool, may take to be heard. */
const probeTimeoutMs = 5000;
/** A connection that heard nothing is tried again after this long. */
const deafRetryMs = 60_000;

class NothingHeardError extends Error {}

export class PostgresChangeListener {
  readonly #url: string;
  readonly #connectTimeoutMs: number | undefined;
  readonly #onLost: (() => void) | undefined;
  #client: pg.Client | null = null;
  /** The pool whose writes count at once (watchLocalWrites), through which the probe is sent. */
  #pool: pg.Pool | null = null;
  #warnedDeaf = false;
  #listening = false;
  #starting = false;
  #started = false;
  #closed = false;
  #generation = 0;
  #outboxGeneration = 0;
  #failures = 0;
  #timer: NodeJS.Timeout | null = null;
  readonly #views = new Set<ViewsListener>();
  readonly #barriers = new Map<string, () => void>();
  readonly #probeTimeoutMs: number;

  /**
   * `connectTimeoutMs`: how long a connection may take (a host that never answers); `onLost`: called
   * when the connection fails or is lost (the database may be down); `probeTimeoutMs`: how long a
   * notification sent through the pool may take to be heard before the connection counts as deaf.
   */
  constructor(
    url: string,
    options: { connectTimeoutMs?: number; onLost?: () => void; probeTimeoutMs?: number } = {},
  ) {
    this.#url = url;
    this.#probeTimeoutMs = options.probeTimeoutMs ?? probeTimeoutMs;
    this.#connectTimeoutMs = options.connectTimeoutMs;
    this.#onLost = options.onLost;
  }

  /** Whether notifications are being heard now. */
  get listening(): boolean {
    return this.#listening;
  }

  /** Once started, connects again now rather than at the end of its delay (the database is back). */
  reconnectNow(): void {
    if (!this.#started || this.#listening || this.#starting || this.#closed) return;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#start();
  }

  /**
   * Changes made through this process's own pool count at once, when the connection that made them
   * is released (after its commit), without waiting for their notification: a request that follows
   * an import or a revocation made here is answered from the database, not from a cache.
   */
  watchLocalWrites(pool: pg.Pool): void {
    this.#pool = pool;
    const wrote = new WeakSet<pg.PoolClient>();
    pool.on('connect', (client) => {
      const query = client.query as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = function (this: unknown, ...args: unknown[]) {
        const config = args[0] as string | { text?: unknown } | undefined;
        const text = typeof config === 'string' ? config : config?.text;
        if (typeof text === 'string' && mayChangeKeys(text)) wrote.add(client);
        return query.apply(this, args);
      };
    });
    pool.on('release', (_error: unknown, client: pg.PoolClient) => {
      if (!wrote.has(client)) return;
      wrote.delete(client);
      this.#generation++;
    });
  }

  /** A value that changes with every notified change; null while not listening (ask the database). */
  stamp(): string | null {
    if (this.#listening) return String(this.#generation);
    this.#start();
    return null;
  }

  /** Like stamp(), for the events written to the webhook outbox (`folio_outbox`, migration 0038). */
  outboxStamp(): string | null {
    if (this.#listening) return `${this.#generation}:${this.#outboxGeneration}`;
    this.#start();
    return null;
  }

  onViews(listener: ViewsListener): () => void {
    this.#start();
    this.#views.add(listener);
    return () => this.#views.delete(listener);
  }

  /**
   * Resolves once every change committed before the call has been notified to this listener:
   * notifications arrive in commit order, so it sends one of its own and waits for it.
   */
  async seen(): Promise<void> {
    if (!this.#listening || this.#client === null) return;
    const token = `sync:${randomUUID()}`;
    const arrived = new Promise<void>((resolve) => this.#barriers.set(token, resolve));
    await this.#client.query('select pg_notify($1, $2)', ['folio_keys', token]);
    await arrived;
  }

  #start(): void {
    if (this.#starting || this.#listening || this.#closed || this.#timer !== null) return;
    this.#starting = true;
    this.#started = true;
    const client = new (postgresDriver().Client)({
      connectionString: this.#url,
      connectionTimeoutMillis: this.#connectTimeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // `deaf`: connected, but nothing sent through the pool is heard: not a database outage, and
    // tried again only after a minute.
    const lost = (deaf = false) => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#listening = false;
      this.#generation++;
      for (const resolve of this.#barriers.values()) resolve();
      this.#barriers.clear();
      client.end().catch(() => {});
      if (this.#closed) return;
      if (!deaf) this.#onLost?.();
      this.#reconnectLater(deaf ? deafRetryMs : undefined);
    };
    client.on('error', () => lost());
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === 'folio_outbox') {
        this.#outboxGeneration++;
        return;
      }
      if (message.channel === 'folio_views') {
        const [projectId, ...tokens] = (message.payload ?? '').split(' ');
        for (const [slug, notified] of viewedArticles(tokens))
          for (const listener of this.#views) listener(projectId!, slug, notified);
        return;
      }
      // A barrier of seen() (this listener's own, or another instance's) changes nothing.
      const payload = message.payload ?? '';
      if (!payload.startsWith('sync:')) this.#generation++;
      const barrier = this.#barriers.get(payload);
      if (barrier !== undefined) {
        this.#barriers.delete(payload);
        barrier();
      }
    });
    this.#client = client;
    client
      .connect()
      .then(() => client.query('listen folio_keys; listen folio_views; listen folio_outbox'))
      .then(() => this.#probe(client))
      .then(() => {
        this.#starting = false;
        if (this.#client !== client || this.#closed) return;
        // Whatever changed while nobody listened: every cached read starts over.
        this.#generation++;
        this.#listening = true;
        this.#failures = 0;
        for (const listener of this.#views) listener(null, null);
        // Kept open in the background: it must not hold a finished process (the CLI) alive.
        streamOf(client)?.unref?.();
      })
      .catch((error: unknown) => {
        this.#starting = false;
        const deaf = error instanceof NothingHeardError;
        if (deaf) this.#warnDeaf();
        lost(deaf);
      });
  }

  /**
   * Sends a notification through the pool (another connection, as other instances' changes come)
   * and waits for this connection to hear it; rejects with NothingHeardError when it is not heard
   * within probeTimeoutMs of being sent. The time the pool takes to send it (a busy pool, a slow
   * server) does not count: that is no sign of a connection that cannot hear.
   */
  async #probe(client: pg.Client): Promise<void> {
    if (this.#pool === null || this.#closed) return;
    const token = `sync:probe:${randomUUID()}`;
    const heard = new Promise<void>((resolve) => this.#barriers.set(token, resolve));
    try {
      await this.#pool.query('select pg_notify($1, $2)', ['folio_keys', token]);
      let timer: NodeJS.Timeout | undefined;
      const deaf = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new NothingHeardError()), this.#probeTimeoutMs);
      });
      try {
        await Promise.race([heard, deaf]);
      } finally {
        clearTimeout(timer);
      }
    } finally {
      this.#barriers.delete(token);
    }
    if (this.#client !== client) throw new Error('the listening connection was lost');
  }

  #warnDeaf(): void {
    if (this.#warnedDeaf) return;
    this.#warnedDeaf = true;
    process.emitWarning(
      'change notifications sent through the pool are not heard by the listening connection (a connection pooler in transaction mode?): every request asks the database for keys, and view counts of other instances may lag; set DATABASE_LISTEN_URL to a session of PostgreSQL itself (README, "Behind PgBouncer")',
      { code: 'FOLIO_LISTEN_DEAF' },
    );
  }

  #reconnectLater(delayMs?: number): void {
    this.#failures++;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        this.#start();
      },
      delayMs ?? backoffDelay(this.#failures, firstReconnectMs, maxReconnectMs),
    );
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    // A probe or a seen() waiting for its notification ends now: nothing will be heard, and the
    // probe's timer would keep a process whose start failed alive for probeTimeoutMs.
    for (const resolve of this.#barriers.values()) resolve();
    this.#barriers.clear();
    const client = this.#client;
    this.#client = null;
    this.#listening = false;
    if (client === null) return;
    // Its socket was unref'd to run in the background: waited for now, the end of a socket that
    // nothing holds could otherwise let the process exit under the await (exit code 13, seen when a
    // server that failed to start closed on a loaded machine).
    streamOf(client)?.ref?.();
    await client.end().catch(() => {});
  }
}

function streamOf(client: pg.Client): { ref?: () => void; unref?: () => void } | undefined {
  return (client as unknown as { connection?: { stream?: { ref?: () => void; unref?: () => void } } })
    .connection?.stream;
}

/**
 * The articles of a `folio_views` payload after its project id: "slug slug … @version =count
 * =count …" (migration 0030), each slug with its count; slugs alone before it (0011), or one slug
 * (0003), without counts.
 */
export function viewedArticles(tokens: string[]): Array<[string, NotifiedViewCount | undefined]> {
  const slugs: string[] = [];
  const counts: number[] = [];
  let contentVersion: string | undefined;
  for (const token of tokens) {
    if (token.startsWith('=')) counts.push(Number(token.slice(1)));
    else if (token.startsWith('@')) contentVersion = token.slice(1);
    else if (token !== '') slugs.push(token);
  }
  const counted =
    contentVersion !== undefined && counts.length === slugs.length && counts.every(Number.isSafeInteger);
  return slugs.map((slug, i) => [
    slug,
    counted ? { count: counts[i], contentVersion: contentVersion! } : undefined,
  ]);
}
