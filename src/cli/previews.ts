// `folio preview`: create a draft preview token (printed with a ready `?preview=` URL when the
// project has a site URL), list a project's previews, and revoke one.
import type { Command } from 'commander';
import { createPreview, listPreviews, type PreviewView, revokePreview } from '../content/previews.ts';
import { parseExpiresIn } from '../content/preview-tokens.ts';
import { requireProject } from '../projects/service.ts';
import { CliError, type CliTools } from './tools.ts';

function previewLine(preview: PreviewView): string {
  const revoked = preview.revokedAt === null ? '' : ` ${preview.revokedAt}`;
  return [
    preview.id,
    preview.articleSlug,
    `expires ${preview.expiresAt}`,
    `${preview.status}${revoked}`,
  ].join('\t');
}

export function previewCommands(program: Command, tools: CliTools): void {
  const { jsonOption, withDatabase, print } = tools;
  const preview = program
    .command('preview')
    .description(
      'share a draft: signed, expiring, revocable tokens that read one article, whatever its status',
    );

  jsonOption(
    preview.command('create').description('create a preview token of an article; it is shown only this once'),
  )
    .requiredOption('--project <slug>', 'project slug')
    .requiredOption('--slug <slug>', "the article's slug")
    .option(
      '--expires <duration>',
      'how long it reads the article: 30m, 12h, 7d, 2w or seconds; 1m to 90d',
      '7d',
    )
    .action(async (options: { project: string; slug: string; expires: string; json: boolean }) => {
      const seconds = parseExpiresIn(options.expires, '--expires');
      if (typeof seconds !== 'number') throw new CliError(`${seconds.field} ${seconds.message}`);
      const created = await withDatabase(async (db) =>
        createPreview(db, await requireProject(db, options.project), options.slug, { expiresIn: seconds }),
      );
      const url = created.url === undefined ? '' : `\n\n${created.url}`;
      print(
        options,
        created,
        `${created.token}${url}\n\nPreview ${created.id} of '${created.articleSlug}', until ${created.expiresAt}. ` +
          'Store the token now: it is not shown again. Revoke it with: folio preview revoke ' +
          created.id,
      );
    });

  jsonOption(preview.command('list').description("list a project's previews (never their tokens)"))
    .requiredOption('--project <slug>', 'project slug')
    .option('--slug <slug>', "only this article's")
    .action(async (options: { project: string; slug?: string; json: boolean }) => {
      const previews = await withDatabase(async (db) =>
        listPreviews(db, await requireProject(db, options.project), options.slug),
      );
      print(options, previews, previews.length ? previews.map(previewLine).join('\n') : 'No previews.');
    });

  jsonOption(
    preview
      .command('revoke')
      .description('revoke a preview; its token reads nothing from the next request on'),
  )
    .argument('<previewId>', 'the preview id shown by preview create or list')
    .action(async (id: string, options: { json: boolean }) => {
      const revoked = await withDatabase((db) => revokePreview(db, null, id));
      print(options, revoked, `Revoked ${revoked.id} (${revoked.articleSlug}).`);
    });
}
