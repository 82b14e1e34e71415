// Small sites written on the fly for the rules of the site readers: a Markdown file with front
// matter, a folder of files read as the CLI reads it, and lookups into what was read.
import assert from 'node:assert/strict';
import { readContentSource } from '../../../../src/content/import/read-source.ts';
import type { ContentSource, ReadOptions } from '../../../../src/content/import/records.ts';
import { makeContentFolder } from '../../../helpers.ts';

/** A Markdown file: the front-matter lines between `---` fences, then the body. */
export const post = (lines: string[], body = 'Body.') => `---\n${lines.join('\n')}\n---\n\n${body}\n`;

/** The files (paths with `/`) written to a temporary folder and read; removeContentFolders deletes it. */
export async function site(files: Record<string, string>, options: ReadOptions = {}): Promise<ContentSource> {
  return readContentSource(await makeContentFolder(files), options);
}

export function article(source: ContentSource, file: string) {
  const found = source.articles.find((a) => a.file === file);
  assert.ok(found, `${file} is not among the articles`);
  return found;
}

/** The file's warnings as `kind line`. */
export const warningsOf = (source: ContentSource, file: string) =>
  (source.warnings ?? []).filter((w) => w.file === file).map((w) => `${w.kind} ${w.line}`);
