// `folio webhooks`: add (the secret shown once), list, remove, and a webhook's delivery log. The
// target is checked as the API checks it (WEBHOOK_ALLOW_PRIVATE of this command's environment).
import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../config.ts';
import { requireProject } from '../projects/service.ts';
import {
  AddressPolicy,
  createWebhook,
  deleteWebhook,
  eventFilters,
  listWebhooks,
  projectOfWebhook,
  webhookDeliveries,
} from '../webhooks/public.ts';
import type { CliTools } from './tools.ts';

export function webhookCommands(program: Command, tools: CliTools): void {
  const { jsonOption, withDatabase, print } = tools;
  const webhooks = program
    .command('webhooks')
    .description("add, list and remove a project's webhooks; show their deliveries");

  jsonOption(webhooks.command('add').description('add a webhook; its signing secret is shown only this once'))
    .requiredOption('--project <slug>', 'project slug')
    .argument('<url>', 'http:// or https:// URL that receives the events')
    .addOption(
      new Option('--event <type...>', 'an event type to send (repeatable; default every event)').choices([
        ...eventFilters,
      ]),
    )
    .option('--description <text>', 'what the webhook is for')
    .action(
      async (
        url: string,
        options: { project: string; event?: string[]; description?: string; json: boolean },
      ) => {
        const policy = new AddressPolicy(loadConfig().webhooks.allowPrivate);
        const created = await withDatabase(async (db) =>
          createWebhook(
            db,
            (await requireProject(db, options.project)).id,
            { url, events: options.event ?? [], description: options.description ?? null },
            policy,
          ),
        );
        print(
          options,
          created,
          `${created.secret}\n\nWebhook ${created.id} → ${created.url} (${eventsText(created.events)}). Store the secret now: it is not shown again.`,
        );
      },
    );

  jsonOption(webhooks.command('list').description("list a project's webhooks (without secrets)"))
    .requiredOption('--project <slug>', 'project slug')
    .action(async (options: { project: string; json: boolean }) => {
      const rows = await withDatabase(async (db) =>
        listWebhooks(db, (await requireProject(db, options.project)).id),
      );
      print(
        options,
        rows,
        rows.length
          ? rows
              .map((row) =>
                [
                  row.id,
                  row.url,
                  eventsText(row.events),
                  row.description ?? '',
                  `created ${row.createdAt}`,
                ].join('\t'),
              )
              .join('\n')
          : 'No webhooks.',
      );
    });

  jsonOption(webhooks.command('remove').description('remove a webhook and its delivery log'))
    .argument('<webhookId>', 'the id shown by webhooks list')
    .action(async (id: string, options: { json: boolean }) => {
      await withDatabase(async (db) => deleteWebhook(db, await projectOfWebhook(db, id), id));
      print(options, { id, removed: true }, `Removed ${id}.`);
    });
  deliveriesCommand(webhooks, tools);
}

function eventsText(events: readonly string[]): string {
  return events.length ? events.join(', ') : 'every event';
}

function positive(value: string, name: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError(`${name} must be a whole number from 1`);
  return Number(value);
}

function deliveriesCommand(webhooks: Command, { jsonOption, withDatabase, print }: CliTools): void {
  jsonOption(webhooks.command('deliveries').description("a webhook's deliveries, newest first"))
    .argument('<webhookId>', 'the id shown by webhooks list')
    .option('--page <n>', 'page (default 1)', (value) => positive(value, '--page'))
    .option('--limit <n>', 'deliveries per page, up to 100 (default 20)', (value) =>
      positive(value, '--limit'),
    )
    .action(async (id: string, options: { page?: number; limit?: number; json: boolean }) => {
      const page = await withDatabase(async (db) =>
        webhookDeliveries(
          db,
          await projectOfWebhook(db, id),
          id,
          options.page ?? 1,
          Math.min(options.limit ?? 20, 100),
        ),
      );
      print(
        options,
        page,
        page.data.length
          ? page.data
              .map((entry) =>
                [
                  entry.createdAt,
                  entry.eventId,
                  entry.eventType ?? '?',
                  entry.status,
                  `${entry.attempts} attempt${entry.attempts === 1 ? '' : 's'}`,
                  entry.lastStatusCode ?? '-',
                  entry.durationMs === null ? '' : `${entry.durationMs} ms`,
                  entry.lastError ?? '',
                  entry.nextAttemptAt ? `next ${entry.nextAttemptAt}` : '',
                ].join('\t'),
              )
              .join('\n') + `\n(page ${page.meta.page} of ${page.meta.totalPages}, ${page.meta.total} in all)`
          : 'No deliveries.',
      );
    });
}
