// The real-blog fixtures' bodies and expectations, for running each file's body through expandTemplates
// the way a site reader does: the front matter cut off, the body's first line number passed on.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TemplateContext, TemplateDialect } from '../../../../src/content/import/templates/expand.ts';

export const fixturesRoot = fileURLToPath(new URL('../../fixtures/real-blogs/', import.meta.url));

export interface StringChecks {
  mustContain?: string[];
  mustNotContain?: string[];
}

export interface ExpectedFile {
  file: string;
  kind: string;
  path?: string | null;
  url?: string;
  content?: StringChecks;
  warnings?: Array<{ kind: string; at: string }>;
}

export interface Expected {
  files: ExpectedFile[];
}

export function readExpected(site: string): Expected {
  return JSON.parse(readFileSync(`${fixturesRoot}${site}/expected.json`, 'utf8')) as Expected;
}

/** A file's body after its front matter (--- YAML or +++ TOML) and the file line of the body's first line. */
export function readBody(site: string, file: string): { body: string; firstBodyLine: number } {
  const lines = readFileSync(`${fixturesRoot}${site}/${file}`, 'utf8').split('\n');
  if (lines[0] !== '---' && lines[0] !== '+++') return { body: lines.join('\n'), firstBodyLine: 1 };
  const close = lines.indexOf(lines[0], 1);
  return { body: lines.slice(close + 1).join('\n'), firstBodyLine: close + 2 };
}

/** ref and link give the article's URL, the others its path, looked up in expected.json as a reader would. */
export function resolverFor(expected: Expected): TemplateContext['resolveRef'] {
  return (target, kind) => {
    const name = target.replace(/\.(md|mdx|markdown)$/, '').replace(/^.*\//, '');
    const match = expected.files.find(
      (entry) => entry.path && (entry.file.includes(`/${name}.`) || entry.file.includes(`/${name}/index.`)),
    );
    if (!match?.path) return null;
    return kind === 'ref' && match.url ? match.url : match.path;
  };
}

/** Warnings of the kinds template expansion reports (the others are the site readers'). */
export const templateKinds = new Set([
  'unknown-shortcode',
  'site-shortcode',
  'shortcode-option-dropped',
  'unknown-link',
  'mdx-component',
  'mdx-expression',
  'template-expression',
]);

export function templateWarnings(entry: ExpectedFile): string[] {
  return (entry.warnings ?? [])
    .filter((warning) => templateKinds.has(warning.kind))
    .map((warning) => `${warning.kind} ${warning.at}`)
    .sort();
}

export function contextFor(
  site: string,
  entry: ExpectedFile,
  dialects: TemplateDialect[],
  firstBodyLine: number,
  extra: Partial<TemplateContext> = {},
): TemplateContext {
  const file = entry.file;
  const articleUrl = entry.url ?? '';
  return {
    file,
    firstBodyLine,
    dialects,
    resolveRef: resolverFor(readExpected(site)),
    resolveResource: (src) => new URL(src, articleUrl || 'https://example.invalid/').href,
    ...extra,
  };
}
