// The shapes of the webhook endpoints (TypeBox): what a webhook is, its creation body, its log.
import { Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../http/schema-helpers.ts';
import { eventFilters } from './events.ts';

/** The longest target URL a webhook may have. */
export const maxUrlLength = 2048;

export const Webhook = Type.Object(
  {
    id: Type.String(),
    url: Type.String({ description: 'Where each event is POSTed.' }),
    events: Type.Array(Type.String(), {
      description: 'The event types (or families, `article.*`, `tag.*`) sent to it; empty: every event.',
    }),
    description: Nullable(Type.String()),
    createdAt: Timestamp,
  },
  { $id: 'Webhook' },
);

export const CreatedWebhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  createdAt: Timestamp,
  secret: Type.String({
    description: '`whsec_` and the base64 of the signing key. Shown only in this answer: store it now.',
  }),
});

export const WebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: maxUrlLength, description: 'An http:// or https:// URL.' }),
    events: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), {
        maxItems: 20,
        description: `Event types to send, among ${eventFilters.map((filter) => `\`${filter}\``).join(', ')}; absent or empty: every event.`,
      }),
    ),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  },
  // Not `false`, which the validator would strip silently: an unknown field is a 400 naming it.
  { additionalProperties: Type.Never() },
);

export const WebhookParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const DeliveryQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

export const Delivery = Type.Object({
  id: Type.String(),
  eventId: Type.String({ description: 'The event id, sent as `webhook-id` (the same on every retry).' }),
  eventType: Nullable(Type.String()),
  status: StringEnum(['pending', 'delivered', 'failed'] as const, {
    description:
      '`pending` (waiting for its first attempt or a retry), `delivered` (a 2xx answer) or `failed` (retries exhausted)',
  }),
  attempts: Type.Integer({ description: 'Attempts made so far (one in flight included).' }),
  lastStatusCode: Nullable(Type.Integer(), {
    description: "The last attempt's HTTP status; null when none came.",
  }),
  lastError: Nullable(Type.String(), { description: 'Why the last attempt failed; null once delivered.' }),
  durationMs: Nullable(Type.Integer(), { description: 'How long the last attempt took.' }),
  nextAttemptAt: Nullable(Timestamp, { description: 'When a pending delivery is tried next.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const DeliveryPage = Type.Object({
  data: Type.Array(Delivery),
  meta: Type.Object({
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer(),
    totalPages: Type.Integer({ description: 'ceil(total / limit)' }),
  }),
});
