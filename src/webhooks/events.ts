// The event types a webhook may subscribe to, and which subscriptions an event matches.
import type { OutboxEventType } from '../db/outbox-events.ts';

export const eventTypes = [
  'article.published',
  'article.updated',
  'article.unpublished',
  'article.deleted',
  'tag.created',
  'tag.updated',
  'tag.deleted',
  'import.completed',
] as const satisfies readonly OutboxEventType[];

/** What a webhook's `events` may hold: a type, or a family of them (`article.*`, `tag.*`). */
export const eventFilters: readonly string[] = [...eventTypes, 'article.*', 'tag.*'];

/** Whether an event of `type` goes to a webhook subscribed to `filters` (none: every event). */
export function matches(filters: readonly string[], type: string): boolean {
  if (filters.length === 0) return true;
  return filters.some((filter) =>
    filter.endsWith('.*') ? type.startsWith(filter.slice(0, -1)) : filter === type,
  );
}
