// Webhook endpoints of a project: creating one (its URL checked, its secret made and shown once),
// listing, deleting, and reading its delivery log.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { ConflictError, type FieldIssue, NotFoundError, ValidationError } from '../errors.ts';
import { type AddressPolicy, TargetRefusedError } from './addresses.ts';
import { eventFilters } from './events.ts';
import {
  countWebhooks,
  deleteWebhookRow,
  type DeliveryLogRow,
  deliveryPage,
  findWebhookRow,
  insertWebhook,
  listWebhookRows,
  type WebhookRow,
} from './queries.ts';
import { maxUrlLength } from './schemas.ts';
import { generateSecret } from './signature.ts';

export const maxWebhooksPerProject = 50;

export interface WebhookInput {
  url: string;
  events?: string[];
  description?: string | null;
}

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  createdAt: string;
}

export function webhookView(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    createdAt: row.created_at,
  };
}

/** The URL as a webhook target: http(s), no credentials, its host allowed by the policy. */
export async function checkTarget(text: string, policy: AddressPolicy, field = 'url'): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ValidationError([{ field, message: 'must be an absolute http:// or https:// URL' }]);
  }
  const issues: FieldIssue[] = [];
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    issues.push({ field, message: `must be an http:// or https:// URL, not ${url.protocol}` });
  } else if (url.username !== '' || url.password !== '') {
    issues.push({ field, message: 'must not carry a user name or password (sign with the secret instead)' });
  } else if (text.length > maxUrlLength) {
    issues.push({ field, message: `must be at most ${maxUrlLength} characters` });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  try {
    await policy.resolve(url);
  } catch (error) {
    if (error instanceof TargetRefusedError) throw new ValidationError([{ field, message: error.message }]);
    throw error;
  }
  return url;
}

function checkEvents(events: readonly string[]): string[] {
  const issues = events.flatMap((event, index) =>
    eventFilters.includes(event)
      ? []
      : [
          {
            field: `events.${index}`,
            message: `unknown event type '${event}'; one of ${eventFilters.join(', ')}`,
          },
        ],
  );
  if (issues.length > 0) throw new ValidationError(issues);
  return [...new Set(events)];
}

export async function createWebhook(
  db: Db,
  projectId: string,
  input: WebhookInput,
  policy: AddressPolicy,
  now = new Date(),
): Promise<WebhookView & { secret: string }> {
  const events = checkEvents(input.events ?? []);
  const url = await checkTarget(input.url, policy);
  const row: WebhookRow = {
    id: `wh_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
    project_id: projectId,
    url: url.href,
    secret: generateSecret(),
    events: JSON.stringify(events),
    description: input.description ?? null,
    created_at: now.toISOString(),
  };
  await db.kysely.transaction().execute(async (trx) => {
    if ((await countWebhooks(trx, projectId)) >= maxWebhooksPerProject) {
      throw new ConflictError(`A project has at most ${maxWebhooksPerProject} webhooks; delete one first`);
    }
    await insertWebhook(trx, row);
  });
  return { ...webhookView(row), secret: row.secret };
}

export async function listWebhooks(db: Db, projectId: string): Promise<WebhookView[]> {
  return (await listWebhookRows(db.kysely, projectId)).map(webhookView);
}

export async function deleteWebhook(db: Db, projectId: string, id: string): Promise<void> {
  if (!(await deleteWebhookRow(db.kysely, projectId, id))) throw new NotFoundError('Webhook not found');
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string | null;
  status: DeliveryLogRow['status'];
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  durationMs: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

function deliveryView(row: DeliveryLogRow): DeliveryView {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.type,
    status: row.status,
    attempts: Number(row.attempts),
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function webhookDeliveries(
  db: Db,
  projectId: string,
  webhookId: string,
  page: number,
  limit: number,
): Promise<{
  data: DeliveryView[];
  meta: { page: number; limit: number; total: number; totalPages: number };
}> {
  if ((await findWebhookRow(db.kysely, projectId, webhookId)) === undefined) {
    throw new NotFoundError('Webhook not found');
  }
  const { rows, total } = await deliveryPage(db.kysely, webhookId, limit, (page - 1) * limit);
  return { data: rows.map(deliveryView), meta: { page, limit, total, totalPages: Math.ceil(total / limit) } };
}

/** The project a webhook belongs to (the CLI names webhooks by id alone). */
export async function projectOfWebhook(db: Db, id: string): Promise<string> {
  const row = await db.kysely
    .selectFrom('webhooks')
    .select('project_id')
    .where('id', '=', id)
    .executeTakeFirst();
  if (row === undefined) throw new NotFoundError('Webhook not found');
  return row.project_id;
}
