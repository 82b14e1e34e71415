// The webhook outbox: an event is written in the same transaction as the change it reports, so that
// a change committed is an event kept (a crash before delivery loses nothing) and a change rolled
// back is no event. The webhooks feature delivers what is written here.
import { randomUUID } from 'node:crypto';
import type { OutboxEventType } from './outbox-events.ts';
import type { Executor } from './schema.ts';

export type { OutboxEventType };

export interface OutboxEvent {
  projectId: string;
  type: OutboxEventType;
  /** The event's `data`, as the receiver gets it. */
  data: Record<string, unknown>;
}

/** Rows per INSERT: six parameters each, well under SQLite's 32,766 and PostgreSQL's 65,535. */
const eventsPerStatement = 500;

/** Writes the events through `executor` (the change's transaction), however many; returns their ids. */
export async function recordEvents(
  executor: Executor,
  events: readonly OutboxEvent[],
  at = new Date(),
): Promise<string[]> {
  if (events.length === 0) return [];
  const createdAt = at.toISOString();
  const rows = events.map((event) => ({
    id: `msg_${randomUUID().replaceAll('-', '')}`,
    project_id: event.projectId,
    type: event.type,
    data: JSON.stringify(event.data),
    created_at: createdAt,
    dispatched_at: null,
  }));
  for (let start = 0; start < rows.length; start += eventsPerStatement)
    await executor
      .insertInto('outbox_events')
      .values(rows.slice(start, start + eventsPerStatement))
      .execute();
  return rows.map((row) => row.id);
}
