// SQL of the webhooks feature: endpoints, the outbox's fan-out into deliveries, and the claiming
// and recording of delivery attempts. Each function takes an executor (the handle's Kysely or a
// transaction); the same SQL runs on both databases, but for PostgreSQL's row locks.
import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor, WebhookDeliveryTable, WebhookTable } from '../db/schema.ts';

export type WebhookRow = Selectable<WebhookTable>;
export type NewDelivery = Insertable<WebhookDeliveryTable>;

export async function insertWebhook(executor: Executor, row: WebhookRow): Promise<void> {
  await executor.insertInto('webhooks').values(row).execute();
}

export async function countWebhooks(executor: Executor, projectId: string): Promise<number> {
  const row = await executor
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function listWebhookRows(executor: Executor, projectId: string): Promise<WebhookRow[]> {
  return executor
    .selectFrom('webhooks')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findWebhookRow(
  executor: Executor,
  projectId: string,
  id: string,
): Promise<WebhookRow | undefined> {
  return executor
    .selectFrom('webhooks')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Deletes the webhook and (by cascade) its deliveries; whether it existed. */
export async function deleteWebhookRow(executor: Executor, projectId: string, id: string): Promise<boolean> {
  const result = await executor
    .deleteFrom('webhooks')
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export interface DeliveryLogRow {
  id: string;
  event_id: string;
  type: string | null;
  status: WebhookDeliveryTable['status'];
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  duration_ms: number | null;
  created_at: string;
  updated_at: string;
}

/** A page of a webhook's deliveries, newest first, and how many there are. */
export async function deliveryPage(
  executor: Executor,
  webhookId: string,
  limit: number,
  offset: number,
): Promise<{ rows: DeliveryLogRow[]; total: number }> {
  const rows = await executor
    .selectFrom('webhook_deliveries')
    .leftJoin('outbox_events', 'outbox_events.id', 'webhook_deliveries.event_id')
    .select([
      'webhook_deliveries.id',
      'webhook_deliveries.event_id',
      'outbox_events.type',
      'webhook_deliveries.status',
      'webhook_deliveries.attempts',
      'webhook_deliveries.next_attempt_at',
      'webhook_deliveries.last_status_code',
      'webhook_deliveries.last_error',
      'webhook_deliveries.duration_ms',
      'webhook_deliveries.created_at',
      'webhook_deliveries.updated_at',
    ])
    .where('webhook_deliveries.webhook_id', '=', webhookId)
    .orderBy('webhook_deliveries.created_at', 'desc')
    .orderBy('webhook_deliveries.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const count = await executor
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('webhook_id', '=', webhookId)
    .executeTakeFirstOrThrow();
  return { rows, total: Number(count.count) };
}

export interface PendingEvent {
  id: string;
  project_id: string;
  type: string;
}

/**
 * The oldest events not yet fanned out. PostgreSQL: locked, skipping those another instance is
 * fanning out (each event is fanned out by one transaction; the unique delivery per webhook and
 * event would make a second one harmless anyway).
 */
export async function lockPendingEvents(
  executor: Executor,
  limit: number,
  rowLocks: boolean,
): Promise<PendingEvent[]> {
  return pendingEvents(executor, limit, rowLocks).execute();
}

/** lockPendingEvents's query: in the order of the pending events' index (migration 0044), unsorted. */
export function pendingEvents(executor: Executor, limit: number, rowLocks: boolean) {
  return executor
    .selectFrom('outbox_events')
    .select(['id', 'project_id', 'type'])
    .where('dispatched_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .$if(rowLocks, (query) => query.forUpdate().skipLocked());
}

export async function webhooksOfProjects(
  executor: Executor,
  projectIds: readonly string[],
): Promise<Pick<WebhookRow, 'id' | 'project_id' | 'events'>[]> {
  if (projectIds.length === 0) return [];
  return executor
    .selectFrom('webhooks')
    .select(['id', 'project_id', 'events'])
    .where('project_id', 'in', projectIds)
    .execute();
}

export async function insertDeliveries(executor: Executor, rows: readonly NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await executor
    .insertInto('webhook_deliveries')
    .values([...rows])
    .onConflict((conflict) => conflict.columns(['webhook_id', 'event_id']).doNothing())
    .execute();
}

export async function markDispatched(
  executor: Executor,
  eventIds: readonly string[],
  at: string,
): Promise<void> {
  if (eventIds.length === 0) return;
  await executor
    .updateTable('outbox_events')
    .set({ dispatched_at: at })
    .where('id', 'in', [...eventIds])
    .execute();
}

export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  attempts: number;
}

/**
 * Claims up to `limit` due deliveries for one attempt each: their attempt count grows and their
 * next attempt moves to `leaseUntil`, so that no other instance takes them meanwhile; an instance
 * that dies mid-attempt leaves them due again at the lease's end (at least once). PostgreSQL skips
 * the rows another instance is claiming; SQLite's writes take turns.
 */
export async function claimDueDeliveries(
  executor: Executor,
  now: string,
  leaseUntil: string,
  limit: number,
  rowLocks: boolean,
): Promise<ClaimedDelivery[]> {
  return executor
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      next_attempt_at: leaseUntil,
      updated_at: now,
    }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(limit)
        .$if(rowLocks, (query) => query.forUpdate().skipLocked()),
    )
    .returning(['id', 'webhook_id', 'event_id', 'attempts'])
    .execute();
}

export interface AttemptPlan {
  url: string;
  secret: string;
  type: string;
  data: string;
  created_at: string;
}

/** What an attempt sends: its webhook's URL and secret, its event. Undefined once either is gone. */
export async function attemptPlan(
  executor: Executor,
  delivery: Pick<ClaimedDelivery, 'webhook_id' | 'event_id'>,
): Promise<AttemptPlan | undefined> {
  return executor
    .selectFrom('webhooks')
    .innerJoin('outbox_events', (join) => join.on('outbox_events.id', '=', delivery.event_id))
    .select([
      'webhooks.url',
      'webhooks.secret',
      'outbox_events.type',
      'outbox_events.data',
      'outbox_events.created_at',
    ])
    .where('webhooks.id', '=', delivery.webhook_id)
    .executeTakeFirst();
}

/**
 * Records an attempt's outcome, unless the delivery was claimed again since (its lease ran out
 * while this attempt hung): the newer attempt's record wins.
 */
export async function recordAttempt(
  executor: Executor,
  claimed: Pick<ClaimedDelivery, 'id' | 'attempts'>,
  outcome: Pick<
    WebhookDeliveryTable,
    'status' | 'next_attempt_at' | 'last_status_code' | 'last_error' | 'duration_ms' | 'updated_at'
  >,
): Promise<void> {
  await executor
    .updateTable('webhook_deliveries')
    .set(outcome)
    .where('id', '=', claimed.id)
    .where('attempts', '=', claimed.attempts)
    .execute();
}

/** The next moment a pending delivery is due (its lease's end for one in flight), or null. */
export async function nextAttemptAt(executor: Executor): Promise<string | null> {
  const row = await executor
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('next'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return (row?.next as string | null | undefined) ?? null;
}

export async function hasPendingEvents(executor: Executor): Promise<boolean> {
  const row = await executor
    .selectFrom('outbox_events')
    .select('id')
    .where('dispatched_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The earliest publication time of a published article not yet announced for it, in any project:
 * due now when it is past, else the moment the scheduler must wake. Null: nothing to announce.
 */
export async function earliestUnannounced(executor: Executor): Promise<string | null> {
  const row = await earliestUnannouncedQuery(executor).executeTakeFirst();
  return (row?.next as string | null | undefined) ?? null;
}

/** The terms of the index of unannounced articles (migration 0035), the status written out. */
export function earliestUnannouncedQuery(executor: Executor) {
  return executor
    .selectFrom('articles')
    .select((eb) => eb.fn.min('published_at').as('next'))
    .where('status', '=', sql.lit('published'))
    .where('published_at', 'is not', null)
    .where((eb) =>
      eb.or([
        eb('announced_published_at', 'is', null),
        eb('announced_published_at', '<>', eb.ref('published_at')),
      ]),
    );
}

/** Deletes what the log no longer needs: finished deliveries and fanned-out events older than `before`. */
export async function pruneOld(executor: Executor, before: string): Promise<void> {
  await executor
    .deleteFrom('webhook_deliveries')
    .where('status', '<>', 'pending')
    .where('updated_at', '<', before)
    .execute();
  await executor
    .deleteFrom('outbox_events')
    .where('dispatched_at', '<', before)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries')
            .select(sql`1`.as('one'))
            .whereRef('webhook_deliveries.event_id', '=', 'outbox_events.id'),
        ),
      ),
    )
    .execute();
}
