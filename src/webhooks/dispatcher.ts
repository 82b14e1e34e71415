// The webhook dispatcher, one per app, running in every instance and never on a request's path: it
// announces scheduled publications whose time has come, fans new outbox events out into one
// delivery per matching webhook, and claims and sends due deliveries (a few at once), recording
// each attempt and scheduling its retry. Instances share the work through the database alone:
// a claim is a lease, so that two instances never send the same attempt at once, and an attempt
// cut by a crash is made again once its lease ends (at least once; receivers dedupe by
// `webhook-id`). It wakes on its poll interval, at the next due attempt or publication it knows,
// and at once when nudged (a write answered by this instance). Woken by its poll alone, it asks the
// database for events and deliveries only when the outbox's stamp moved (an event was written,
// whichever process wrote it: migration 0038), or when it has not asked for outboxRescanMs: an idle
// instance, or one tracking page views, sends no statement for webhooks it was not told of.
import { randomUUID } from 'node:crypto';
import type { WebhookConfig } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Executor } from '../db/schema.ts';
import { AddressPolicy, type HostLookup, TargetRefusedError } from './addresses.ts';
import { matches } from './events.ts';
import {
  attemptPlan,
  type ClaimedDelivery,
  claimDueDeliveries,
  earliestUnannounced,
  hasPendingEvents,
  insertDeliveries,
  lockPendingEvents,
  markDispatched,
  type NewDelivery,
  nextAttemptAt,
  pruneOld,
  recordAttempt,
  webhooksOfProjects,
} from './queries.ts';
import { retryDelayMs } from './retries.ts';
import { type AttemptResult, postEvent } from './sender.ts';
import { signedHeaders } from './signature.ts';

/** The settings of config.ts (WEBHOOK_TIMEOUT_MS, WEBHOOK_POLL_MS, WEBHOOK_RETRY_DELAYS, WEBHOOK_ALLOW_PRIVATE). */
export type WebhookSettings = WebhookConfig;

/** Announces the due publications through `executor` (content's announceDuePublications). */
export type AnnounceDue = (executor: Executor, now: Date) => Promise<unknown>;

export interface DispatcherOptions {
  settings: WebhookSettings;
  announce: AnnounceDue;
  /** Host resolution (tests stub it). */
  lookup?: HostLookup;
  /** True while the instance drains: no attempt starts. */
  draining?: () => boolean;
  log?: { warn(details: object, message: string): void };
}

/** Attempts in flight at once per instance. */
const concurrency = 16;
/** Events fanned out per transaction. */
const fanOutBatch = 200;
/** Without news, the scheduled publications are looked for this often (another instance, the CLI). */
const publicationRescanMs = 15_000;
/**
 * Without news (the outbox's stamp unmoved, no nudge, no attempt known due), events and deliveries are
 * asked for this often: what no stamp tells of, such as the retries another instance scheduled
 * before it stopped, or a lease it left.
 */
const outboxRescanMs = 15_000;
/** Finished deliveries and their events are kept this long in the log. */
const logKeptMs = 30 * 86_400_000;
const pruneEveryMs = 3_600_000;

export class WebhookDispatcher {
  readonly #db: Db;
  readonly #settings: WebhookSettings;
  readonly #announce: AnnounceDue;
  readonly #policy: AddressPolicy;
  readonly #draining: () => boolean;
  readonly #log: DispatcherOptions['log'];
  readonly #stop = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  #started = false;
  #cycle: Promise<void> | null = null;
  #again = false;
  #timer: NodeJS.Timeout | null = null;
  /** The earliest unannounced publication known, and when it was looked for. */
  #nextPublication: string | null = null;
  #publicationsScannedAt = -Infinity;
  #lastPrune = -Infinity;
  #failing = false;
  /** The outbox's stamp when events and deliveries were last asked for, and when that was. */
  #lookedStamp: string | null = null;
  #lookedAt = -Infinity;
  /** Asked for at the next wake whatever the stamp: nudged, an attempt ended, a step failed. */
  #mustLook = true;
  /** When the next delivery known is due (Infinity: none known). */
  #nextDueAt = Infinity;

  constructor(db: Db, options: DispatcherOptions) {
    this.#db = db;
    this.#settings = options.settings;
    this.#announce = options.announce;
    this.#policy = new AddressPolicy(options.settings.allowPrivate, options.lookup);
    this.#draining = options.draining ?? (() => false);
    this.#log = options.log;
  }

  get policy(): AddressPolicy {
    return this.#policy;
  }

  start(): void {
    if (this.#started || this.#stop.signal.aborted) return;
    this.#started = true;
    this.#wake();
  }

  /** Something may have changed (a write committed here): look now rather than at the next poll. */
  nudge(): void {
    // A change may schedule a publication: look for those again too.
    this.#publicationsScannedAt = -Infinity;
    this.#mustLook = true;
    this.#wake();
  }

  #wake(): void {
    if (!this.#started || this.#stop.signal.aborted) return;
    if (this.#cycle !== null) {
      this.#again = true;
      return;
    }
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#cycle = this.#run().finally(() => {
      this.#cycle = null;
      if (this.#stop.signal.aborted) return;
      if (this.#again) {
        this.#again = false;
        this.#wake();
      }
    });
  }

  /** Stops: no attempt starts from now on; attempts in flight are cut (their lease ends, they are made again). */
  async stop(): Promise<void> {
    this.#stop.abort();
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#cycle;
    await Promise.all(this.#inFlight);
  }

  async #run(): Promise<void> {
    let wakeInMs = this.#settings.pollMs;
    try {
      const now = new Date();
      const nowMs = now.getTime();
      // Read before asking: an event written meanwhile moves it again, and is asked for next time.
      const stamp = this.#db.outboxStamp();
      // Null: nothing tells of events (PostgreSQL while not listening), so every poll asks.
      const moved = stamp !== null && stamp !== this.#lookedStamp;
      const look = stamp === null || moved || this.#mustLook || nowMs - this.#lookedAt >= outboxRescanMs;
      if (look) {
        // A change elsewhere (another instance, the CLI) may have scheduled a publication; without a
        // stamp, publications keep to their own rescan, as before.
        if (moved) this.#publicationsScannedAt = -Infinity;
        this.#mustLook = false;
        this.#lookedStamp = stamp;
        this.#lookedAt = nowMs;
      }
      wakeInMs = Math.min(wakeInMs, await this.#announceDue(now));
      if (look) await this.#fanOut();
      if (look || nowMs >= this.#nextDueAt) {
        const dueInMs = await this.#sendDue();
        this.#nextDueAt = nowMs + dueInMs;
        wakeInMs = Math.min(wakeInMs, dueInMs);
      } else wakeInMs = Math.min(wakeInMs, this.#nextDueAt - nowMs);
      await this.#prune(now);
      if (this.#failing) this.#log?.warn({}, 'webhook dispatcher: the database answers again');
      this.#failing = false;
    } catch (error) {
      // The database may be down: try again at the next poll, saying so once.
      if (!this.#failing) this.#log?.warn({ err: error }, 'webhook dispatcher: a step failed; retrying');
      this.#failing = true;
      this.#mustLook = true;
    }
    if (this.#stop.signal.aborted) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        this.#wake();
      },
      Math.max(5, Math.min(this.#settings.pollMs, wakeInMs)),
    );
    this.#timer.unref();
  }

  /** Announces the publications whose time has come; returns ms until the next one it knows of. */
  async #announceDue(now: Date): Promise<number> {
    const nowMs = now.getTime();
    const known = this.#nextPublication === null ? Infinity : Date.parse(this.#nextPublication);
    if (known > nowMs && nowMs - this.#publicationsScannedAt < publicationRescanMs) return known - nowMs;
    let next = await earliestUnannounced(this.#db.kysely);
    if (next !== null && Date.parse(next) <= nowMs) {
      await this.#db.kysely.transaction().execute((trx) => this.#announce(trx, now));
      next = await earliestUnannounced(this.#db.kysely);
    }
    this.#nextPublication = next;
    this.#publicationsScannedAt = nowMs;
    return next === null ? Infinity : Math.max(0, Date.parse(next) - nowMs);
  }

  /** Makes one delivery per matching webhook of every event not yet fanned out. */
  async #fanOut(): Promise<void> {
    const rowLocks = this.#db.dialect === 'postgres';
    while (!this.#stop.signal.aborted && (await hasPendingEvents(this.#db.kysely))) {
      const count = await this.#db.kysely.transaction().execute(async (trx) => {
        const events = await lockPendingEvents(trx, fanOutBatch, rowLocks);
        const projects = [...new Set(events.map((event) => event.project_id))];
        const hooks = await webhooksOfProjects(trx, projects);
        const at = new Date().toISOString();
        const deliveries: NewDelivery[] = [];
        for (const event of events) {
          for (const hook of hooks) {
            if (hook.project_id !== event.project_id) continue;
            if (!matches(JSON.parse(hook.events) as string[], event.type)) continue;
            deliveries.push({
              id: `whd_${randomUUID().replaceAll('-', '')}`,
              webhook_id: hook.id,
              event_id: event.id,
              project_id: event.project_id,
              status: 'pending',
              attempts: 0,
              next_attempt_at: at,
              last_status_code: null,
              last_error: null,
              duration_ms: null,
              created_at: at,
              updated_at: at,
            });
          }
        }
        for (let start = 0; start < deliveries.length; start += 500) {
          await insertDeliveries(trx, deliveries.slice(start, start + 500));
        }
        await markDispatched(
          trx,
          events.map((event) => event.id),
          at,
        );
        return events.length;
      });
      // Another instance holds the rest (PostgreSQL): it fans them out.
      if (count < fanOutBatch) break;
    }
  }

  /** Claims and starts the due deliveries there is room for; returns ms until the next one is due. */
  async #sendDue(): Promise<number> {
    const next = await nextAttemptAt(this.#db.kysely);
    if (next === null) return Infinity;
    const nowMs = Date.now();
    const room = concurrency - this.#inFlight.size;
    // Full: each attempt that ends wakes the dispatcher.
    if (room <= 0) return Infinity;
    if (Date.parse(next) > nowMs) return Date.parse(next) - nowMs;
    if (this.#draining() || this.#stop.signal.aborted) return Infinity;
    const now = new Date(nowMs);
    // An instance that dies mid-attempt leaves the delivery to the others once this has passed.
    const leaseUntil = new Date(nowMs + 2 * this.#settings.timeoutMs + 1_000).toISOString();
    const claimed = await claimDueDeliveries(
      this.#db.kysely,
      now.toISOString(),
      leaseUntil,
      room,
      this.#db.dialect === 'postgres',
    );
    for (const delivery of claimed) {
      const attempt: Promise<void> = this.#attempt(delivery)
        .catch((error: unknown) => this.#log?.warn({ err: error }, 'webhook delivery: recording failed'))
        .finally(() => {
          this.#inFlight.delete(attempt);
          // Its retry, if any, is due at a time only the database knows now.
          this.#mustLook = true;
          this.#wake();
        });
      this.#inFlight.add(attempt);
    }
    // More may be due than there was room for; others, locked by another instance, soon free.
    return claimed.length === room ? Infinity : claimed.length === 0 ? 100 : this.#settings.pollMs;
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const plan = await attemptPlan(this.#db.kysely, delivery);
    // The webhook was deleted meanwhile (its deliveries with it).
    if (plan === undefined) return;
    const url = new URL(plan.url);
    // Exactly these bytes are signed and sent.
    const body = `{"type":${JSON.stringify(plan.type)},"timestamp":${JSON.stringify(plan.created_at)},"data":${plan.data}}`;
    let result: AttemptResult;
    try {
      // Checked again at every attempt: the host may resolve elsewhere now.
      const address = await this.#policy.resolve(url);
      const timestamp = Math.floor(Date.now() / 1000);
      result = await postEvent(
        url,
        address,
        signedHeaders(plan.secret, delivery.event_id, timestamp, body),
        body,
        {
          timeoutMs: this.#settings.timeoutMs,
          signal: this.#stop.signal,
        },
      );
    } catch (error) {
      if (!(error instanceof TargetRefusedError)) throw error;
      result = { statusCode: null, error: `refused: ${error.message}`, durationMs: 0 };
    }
    // Cut by this instance's stop: the lease ends and the attempt is made again, here or elsewhere.
    if (this.#stop.signal.aborted) return;
    const at = new Date();
    const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const delay = delivered ? null : retryDelayMs(delivery.attempts, this.#settings.retryDelaysMs);
    await recordAttempt(this.#db.kysely, delivery, {
      status: delivered ? 'delivered' : delay === null ? 'failed' : 'pending',
      next_attempt_at: delay === null ? null : new Date(at.getTime() + delay).toISOString(),
      last_status_code: result.statusCode,
      last_error: result.error === null ? null : result.error.slice(0, 500),
      duration_ms: result.durationMs,
      updated_at: at.toISOString(),
    });
  }

  async #prune(now: Date): Promise<void> {
    if (now.getTime() - this.#lastPrune < pruneEveryMs) return;
    this.#lastPrune = now.getTime();
    await pruneOld(this.#db.kysely, new Date(now.getTime() - logKeptMs).toISOString());
  }
}
