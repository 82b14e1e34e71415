// `folio export`: a project's content as a folder `folio import` reads back, or with --analytics its
// raw page views as NDJSON. Both read one snapshot of the database and write nothing to it.
import { Command } from 'commander';
import { ConfigError } from '../config.ts';
import type { CliTools } from './tools.ts';

export function exportCommand(tools: CliTools): Command {
  return tools
    .jsonOption(
      new Command('export').description(
        "write a project's articles (Markdown with YAML front matter), tags.yaml and project.yaml into a new folder that folio import reads; with --analytics, its raw page views as NDJSON into a new file",
      ),
    )
    .requiredOption('--project <slug>', 'project slug')
    .argument('<path>', 'a folder that does not exist yet or is empty; with --analytics, a new file')
    .option('--analytics', 'export the raw page views (one JSON object a line) instead of the content')
    .option('--from <day>', 'with --analytics: first UTC day, YYYY-MM-DD (default: the oldest kept)')
    .option('--to <day>', 'with --analytics: last UTC day, YYYY-MM-DD (default: the newest)')
    .action(async (dir: string, options: ExportOptions) => {
      if (options.analytics) return exportAnalytics(tools, dir, options);
      if (options.from !== undefined || options.to !== undefined)
        throw new ConfigError('--from and --to go with --analytics');
      // Loaded here, not at start: `folio serve` builds this command too, and never runs it.
      const { exportContent } = await import('../content/export.ts');
      const summary = await tools.withDatabase((db) => exportContent(db, options.project, dir));
      const lossy =
        summary.lossy.length > 0
          ? ` ${summary.lossy.length} article(s) hold carriage returns, written as plain line ends: ${summary.lossy.join(', ')}.`
          : '';
      tools.print(
        { json: options.json === true },
        { dir, ...summary },
        `Exported ${summary.articles} articles and ${summary.tags} tags of '${options.project}' to ${dir}.${lossy}`,
      );
    });
}

interface ExportOptions {
  json?: boolean;
  project: string;
  analytics?: boolean;
  from?: string;
  to?: string;
}

async function exportAnalytics(tools: CliTools, file: string, options: ExportOptions): Promise<void> {
  const days = { from: dayOption('--from', options.from), to: dayOption('--to', options.to) };
  if (days.from !== null && days.to !== null && days.from > days.to)
    throw new ConfigError(`--from ${days.from} is after --to ${days.to}`);
  const { exportPageViews } = await import('./page-view-export.ts');
  const { pageViews } = await tools.withDatabase((db) => exportPageViews(db, options.project, file, days));
  tools.print(
    { json: options.json === true },
    { file, pageViews, ...days },
    `Exported ${pageViews} page views of '${options.project}' to ${file}.`,
  );
}

function dayOption(name: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
    throw new ConfigError(`${name} must be a UTC day, YYYY-MM-DD, got '${value}'`);
  return value;
}
