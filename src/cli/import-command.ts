// `folio import`: reads a content source (a folder of any supported generator, a JSON file, a
// Ghost export), imports it, and reports: counts, warnings by kind, files skipped with reasons.
import { setFlagsFromString } from 'node:v8';
import { Option, type Command } from 'commander';
// The import pipeline (its parsers: YAML, TOML, acorn, Turndown) is loaded by the command's action
// only: `folio serve` builds this command too, and never runs it.
import type { ImportSummary } from '../content/import.ts';
import { type FileReport, formatProblem } from '../content/import/records.ts';
import { isHttpUrl } from '../projects/service.ts';
import { CliError, type CliTools } from './tools.ts';

/** The layouts `--format` names (the readers refuse any other). */
export const importFormats = [
  'folio',
  'hugo',
  'jekyll',
  'eleventy',
  'astro',
  'nextjs',
  'docusaurus',
] as const;

interface ImportCliOptions {
  project: string;
  json: boolean;
  prune?: boolean;
  dryRun?: boolean;
  strict?: boolean;
  siteUrl?: string;
  format?: string;
}

/** `default-author 5, unknown-shortcode 1`: the warnings' kinds by name. */
export function warningsLine(byKind: Record<string, number>): string {
  return Object.keys(byKind)
    .sort()
    .map((kind) => `${kind} ${byKind[kind]}`)
    .join(', ');
}

/** What became of the source's files: counts by kind, and each skipped one with its reason. */
export function filesText(files: FileReport[] | undefined): string {
  if (files === undefined || files.length === 0) return '';
  const counts = new Map<string, number>();
  for (const file of files) counts.set(file.kind, (counts.get(file.kind) ?? 0) + 1);
  const kinds = [...counts].map(([kind, count]) => `${kind} ${count}`).join(', ');
  const skipped = files
    .filter((file) => file.kind !== 'post' && file.kind !== 'draft')
    .map((file) => `\n  ${file.kind}: ${file.file}${file.reason ? ` (${file.reason})` : ''}`)
    .join('');
  return `\nfiles: ${files.length} (${kinds})${skipped}`;
}

function changeLists(summary: ImportSummary): string {
  const { changes } = summary;
  // A real import lists the articles whose previous version it kept (GET …/revisions).
  if (!summary.dryRun) return changes.revised.length > 0 ? `\n  revised: ${changes.revised.join(', ')}` : '';
  return [
    ['would add', changes.created],
    ['would change', changes.updated],
    ['would remove', changes.removed],
    ['would remove tags', changes.tagsRemoved],
  ]
    .filter(([, names]) => names.length > 0)
    .map(([label, names]) => `\n  ${label}: ${(names as string[]).join(', ')}`)
    .join('');
}

function summaryText(summary: ImportSummary, files: FileReport[] | undefined): string {
  const counts = `${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.removed} removed; ${summary.tagsCreated} tags created, ${summary.tagsUpdated} updated, ${summary.tagsRemoved} removed; storage ${summary.storageUsed}.`;
  const settings =
    summary.settingsApplied.length > 0
      ? `\nproject settings taken from the site: ${summary.settingsApplied.join(', ')}`
      : '';
  const count = summary.warnings.length;
  const warnings =
    count > 0 ? ` ${count} warning(s).\nwarnings: ${warningsLine(summary.warningsByKind)}` : '';
  return `${summary.dryRun ? 'Dry run (nothing written): ' : ''}${counts}${warnings}${settings}${filesText(files)}${changeLists(summary)}`;
}

export function importCommand(program: Command, tools: CliTools): void {
  tools
    .jsonOption(
      program
        .command('import')
        .description(
          'import a content folder (Folio, Hugo, Jekyll, Eleventy, Astro, Next.js, Docusaurus), a JSON file or a Ghost export',
        ),
    )
    .requiredOption('--project <slug>', 'project slug')
    .argument('<path>', 'site or content folder, Folio JSON file or Ghost JSON export')
    .option('--prune', 'remove articles whose files are gone, and tags left without articles')
    .option('--dry-run', 'validate and list what would change, write nothing')
    .option('--strict', 'refuse the import on any warning (each is then reported as a problem)')
    .option('--site-url <url>', "the blog's public URL, for sources without one (Ghost exports, starters)")
    .addOption(
      new Option('--format <name>', 'the site layout to read, instead of detecting it').choices(
        importFormats,
      ),
    )
    .action(async (path: string, options: ImportCliOptions) => {
      const strict = options.strict === true;
      if (options.siteUrl !== undefined && !isHttpUrl(options.siteUrl))
        throw new CliError(`--site-url '${options.siteUrl}' is not an absolute http(s) URL`);
      const [{ openContentSource }, { importContent }, { createProgress }] = await Promise.all([
        import('../content/import/read-source.ts'),
        import('../content/import.ts'),
        import('./progress.ts'),
      ]);
      // A batch job: V8 would otherwise let the garbage of each batch (parsed Markdown, rendered
      // rows) grow to up to four times what is live before collecting it; a quarter more is
      // enough (measured on 20,000 articles: peak RSS 600 to 450 MB, the same time).
      setFlagsFromString('--heap-growing-percent=25');
      const progress = createProgress(!options.json);
      const source = await openContentSource(path, {
        strict,
        format: options.format,
        siteUrl: options.siteUrl,
        // Without a bar nothing is counted: a JSON file's articles are counted in a pass of their own.
        ...(progress.enabled && { onProgress: (done, total) => progress.update('reading', done, total) }),
      }).finally(progress.stop);
      const summary = await tools
        .withDatabase((db) =>
          importContent(db, options.project, source, {
            prune: options.prune === true,
            dryRun: options.dryRun === true,
            strict,
            siteUrl: options.siteUrl,
            onProgress: (done, total) => progress.update('importing', done, total),
          }),
        )
        .finally(() => {
          progress.stop();
          if ('close' in source) source.close?.();
        });
      if (!options.json)
        for (const warning of summary.warnings) process.stderr.write(`warning: ${formatProblem(warning)}\n`);
      tools.print(options, { ...summary, files: source.files ?? [] }, summaryText(summary, source.files));
    });
}
