// `folio keys`: create (kind, scopes, test keys, rate limit, origins), list and revoke API keys.
import { type Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { ApiKeyTable, KeyScope } from '../db/schema.ts';
import { keyScopes } from '../projects/keys.ts';
import { listApiKeys } from '../projects/queries.ts';
import { createApiKey, keyView, requireProject, revokeApiKey } from '../projects/service.ts';
import { CliError, type CliTools } from './tools.ts';

interface CreateOptions {
  json: boolean;
  project: string;
  kind: 'secret' | 'public';
  name?: string;
  rateLimit?: number;
  origin?: string[];
  scope?: KeyScope[];
  test?: boolean;
}

export function keyCommands(program: Command, tools: CliTools): void {
  const { jsonOption, withDatabase, print } = tools;
  const keys = program.command('keys').description('create, list and revoke API keys');

  jsonOption(keys.command('create').description('create a key; it is shown only this once'))
    .requiredOption('--project <slug>', 'project slug')
    .addOption(
      new Option(
        '--kind <kind>',
        'secret: the endpoints of its scopes, from servers; public: tracking and published content, from browsers',
      )
        .choices(['secret', 'public'])
        .default('secret'),
    )
    .option(
      '--scope <names>',
      "a secret key's scopes, comma-separated or repeated: read (content and SEO), analytics (statistics, insights, CSV, tracking), write (content writes, revisions, webhooks, previews); default read,analytics",
      collectScopes,
    )
    .option(
      '--test',
      'a key for tests of a site (e.g. Playwright): headless browsers are counted, and its views are marked and counted nowhere unless includeTest=true is asked for',
    )
    .option('--name <name>', 'a name to recognise the key by')
    .option('--rate-limit <perMinute>', 'requests per minute (default 100)', parseInteger)
    .option('--origin <url...>', 'allowed browser origin of a public key (repeatable)')
    .action(async (options: CreateOptions) => {
      if (options.scope !== undefined && options.kind !== 'secret') {
        throw new CliError('--scope applies to secret keys only: a public key has no scopes');
      }
      const { key, row } = await withDatabase((db) =>
        createApiKey(db, options.project, {
          kind: options.kind,
          name: options.name,
          rateLimit: options.rateLimit ?? null,
          origins: options.origin ?? [],
          scopes: options.scope,
          test: options.test === true,
        }),
      );
      print(
        options,
        { ...keyView(row), key },
        `${key}\n\nKey ${row.id} (${kindText(row)}). Store it now: it is not shown again.`,
      );
    });

  jsonOption(keys.command('list').description("list a project's keys, with their scopes"))
    .requiredOption('--project <slug>', 'project slug')
    .action(async (options: { json: boolean; project: string }) => {
      const rows = await withDatabase(async (db) =>
        listApiKeys(db.kysely, (await requireProject(db, options.project)).id),
      );
      print(
        options,
        rows.map(keyView),
        rows.length
          ? rows
              .map((row) =>
                [
                  row.id,
                  kindText(row),
                  `${row.prefix}…`,
                  row.name,
                  `created ${row.created_at}`,
                  `last used ${row.last_used_at ?? 'never'}`,
                  row.revoked_at ? `REVOKED ${row.revoked_at}` : 'active',
                ].join('\t'),
              )
              .join('\n')
          : 'No keys.',
      );
    });

  jsonOption(keys.command('revoke').description('revoke a key; it is refused from the next request on'))
    .argument('<keyId>', 'the key id shown by keys list')
    .action(async (keyId: string, options: { json: boolean }) => {
      const row = await withDatabase((db) => revokeApiKey(db, keyId));
      print(options, keyView(row), `Revoked ${row.id}.`);
    });
}

/** `secret: read, analytics`, `public`, and `test` when it is a test key. */
function kindText(row: ApiKeyTable): string {
  const view = keyView(row);
  const kind = view.scopes === null ? view.kind : `${view.kind}: ${view.scopes.join(', ')}`;
  return view.test ? `${kind}; test` : kind;
}

/** `--scope read,write --scope analytics` → each name once, in the order of `keyScopes`. */
function collectScopes(value: string, previous: KeyScope[] | undefined): KeyScope[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !keyScopes.includes(name as KeyScope));
  if (unknown.length > 0 || names.length === 0) {
    throw new InvalidArgumentError(
      `${unknown.length > 0 ? unknown.map((name) => `'${name}'`).join(', ') + (unknown.length > 1 ? ' are not scopes' : ' is not a scope') : 'no scope given'}: --scope takes ${keyScopes.join(', ')}`,
    );
  }
  const all = new Set([...(previous ?? []), ...names]);
  return keyScopes.filter((scope) => all.has(scope));
}

function parseInteger(value: string): number {
  if (!/^\d+$/.test(value))
    throw new CommanderError(1, 'folio.invalidArgument', `'${value}' is not a whole number`);
  return Number(value);
}
