// `folio projects`: create, list, update (site URL, URL pattern, time zone, default author, logo)
// and delete (only with --yes, after saying what it removes).
import type { Command } from 'commander';
import type { Db } from '../db/database.ts';
import { listProjects } from '../projects/queries.ts';
import {
  createProject,
  defaultAuthorOf,
  deleteProject,
  type ProjectChanges,
  type ProjectContents,
  projectContents,
  projectView,
  requireProject,
  updateProject,
} from '../projects/service.ts';
import { CliError, type CliTools } from './tools.ts';

interface SettingOptions {
  name?: string;
  description?: string;
  siteUrl?: string;
  urlPattern?: string;
  timeZone?: string;
  author?: string;
  authorImage?: string;
  logoUrl?: string;
}

/** The site options create and update share. */
function settingOptions(command: Command): Command {
  return command
    .option('--site-url <url>', 'public URL of the blog (article URLs, SEO links)')
    .option(
      '--url-pattern <pattern>',
      "article paths: tokens :slug :year :month :day :section (default '/:slug')",
    )
    .option('--time-zone <zone>', "IANA time zone of the pattern's dates, e.g. Europe/Lisbon (default UTC)")
    .option('--author <name>', 'default author of imported articles that name none (else the project name)')
    .option('--author-image <url>', "the default author's picture")
    .option('--logo-url <url>', 'URL of the logo (JSON-LD publisher)');
}

/** An option given as '' clears its setting (null: none, or the default pattern and time zone). */
const cleared = (value: string | undefined) =>
  value === undefined ? undefined : value === '' ? null : value;

/** The changes the options ask for; the author's picture alone changes the current default author's. */
async function changesOf(db: Db, slug: string, options: SettingOptions): Promise<ProjectChanges> {
  const changes: ProjectChanges = {
    name: options.name,
    description: options.description,
    siteUrl: cleared(options.siteUrl),
    urlPattern: cleared(options.urlPattern),
    timeZone: cleared(options.timeZone),
    logoUrl: cleared(options.logoUrl),
  };
  const image = cleared(options.authorImage);
  if (options.author !== undefined) {
    changes.defaultAuthor = options.author === '' ? null : { name: options.author, image: image ?? null };
  } else if (image !== undefined) {
    const current = defaultAuthorOf(await requireProject(db, slug));
    if (current === null) {
      throw new CliError('--author-image needs --author: the project has no default author');
    }
    changes.defaultAuthor = { ...current, image };
  }
  return changes;
}

function contentsText(contents: ProjectContents): string {
  return `${contents.articles} articles, ${contents.tags} tags, ${contents.keys} API keys and ${contents.pageViews} page views`;
}

export function projectCommands(program: Command, tools: CliTools): void {
  const projects = program.command('projects').description('create, list, update and delete projects');
  const { jsonOption, withDatabase, print } = tools;

  settingOptions(jsonOption(projects.command('create').description('create a project')))
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--slug <slug>', 'URL-friendly identifier')
    .option('--description <text>', 'one-line description', '')
    .option('--storage-limit <size>', "e.g. '500 MB'", '500 MB')
    .action(async (options) => {
      if (options.authorImage !== undefined && options.author === undefined)
        throw new CliError('--author-image needs --author: the picture is the default author’s');
      const row = await withDatabase((db) =>
        createProject(db, {
          name: options.name,
          slug: options.slug,
          description: options.description,
          siteUrl: options.siteUrl ?? null,
          logoUrl: options.logoUrl ?? null,
          urlPattern: options.urlPattern ?? null,
          timeZone: options.timeZone ?? null,
          defaultAuthor: options.author ? { name: options.author, image: options.authorImage ?? null } : null,
          storageLimit: options.storageLimit,
        }),
      );
      print(options, projectView(row), `Created project '${row.slug}' (${row.id}).`);
    });

  jsonOption(projects.command('list').description('list projects')).action(
    async (options: { json: boolean }) => {
      const rows = await withDatabase((db) => listProjects(db.kysely));
      print(
        options,
        rows.map(projectView),
        rows.length
          ? rows.map((row) => `${row.slug}\t${row.name}\t${row.id}`).join('\n')
          : 'No projects yet.',
      );
    },
  );

  settingOptions(
    jsonOption(
      projects
        .command('update')
        .description("change a project's settings: only the options given; an empty value ('') clears one"),
    ),
  )
    .argument('<slug>', 'the project')
    .option('--name <name>', 'display name')
    .option('--description <text>', 'one-line description')
    .option(
      '--revisions-kept <n>',
      'revisions kept per article (0 to 1000, default 50); the oldest beyond go',
    )
    .action(async (slug: string, options: SettingOptions & { json: boolean; revisionsKept?: string }) => {
      const revisionsKept = options.revisionsKept === undefined ? undefined : Number(options.revisionsKept);
      const row = await withDatabase(async (db) =>
        updateProject(db, slug, { ...(await changesOf(db, slug, options)), revisionsKept }),
      );
      print(options, projectView(row), `Updated project '${row.slug}'.`);
    });

  jsonOption(projects.command('delete').description('delete a project and everything of it (needs --yes)'))
    .argument('<slug>', 'the project')
    .option('--yes', 'really delete')
    .action(async (slug: string, options: { json: boolean; yes?: boolean }) => {
      if (options.yes !== true) {
        const contents = await withDatabase((db) => projectContents(db, slug));
        throw new CliError(
          `Deleting project '${slug}' would delete ${contentsText(contents)}, for good. Run again with --yes to delete it.`,
          { wouldDelete: contents },
        );
      }
      const contents = await withDatabase((db) => deleteProject(db, slug));
      print(options, { deleted: slug, ...contents }, `Deleted project '${slug}': ${contentsText(contents)}.`);
    });
}
