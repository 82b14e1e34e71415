// Reads a content source, whatever its format: a static site's folder (Hugo, Jekyll … as their
// generator publishes them, sites/formats.ts), Folio's own folder of Markdown files, Folio's JSON
// file, or a Ghost JSON export (told apart by its `db` list). Throws an ImportValidationError
// listing every problem, each with its file and line; reads nothing into a database.
import { stat } from 'node:fs/promises';
import type { StreamedSource } from './digest.ts';
import { readJsonFile } from './json-file.ts';
import { readMarkdownFolder, streamMarkdownFolder } from './markdown-folder.ts';
import { type ContentSource, ImportValidationError, type ReadOptions } from './records.ts';
import { detectProfile, profileByName } from './sites/formats.ts';
import { readSite } from './sites/pipeline.ts';

/** The source with every article in memory. */
export async function readContentSource(path: string, options: ReadOptions = {}): Promise<ContentSource> {
  return (await read(path, options, 'articles')) as ContentSource;
}

/**
 * The source checked whole; a Folio folder's or JSON file's articles are read again from it as
 * they are written (a site folder and a Ghost export are held whole).
 */
export async function openContentSource(
  path: string,
  options: ReadOptions = {},
): Promise<ContentSource | StreamedSource> {
  return read(path, options, 'digests');
}

async function read(
  path: string,
  options: ReadOptions,
  keep: 'articles' | 'digests',
): Promise<ContentSource | StreamedSource> {
  const info = await stat(path).catch(() => null);
  if (info === null) {
    throw new ImportValidationError([
      { file: path, line: 1, message: 'content source not found: no such file or folder' },
    ]);
  }
  // An unknown format name is refused before anything is read, whatever the path holds.
  if (options.format !== undefined) profileByName(options.format);
  if (info.isDirectory()) {
    const profile = await detectProfile(path, options);
    if (profile !== undefined) return readSite(path, profile, options);
    return keep === 'articles' ? readMarkdownFolder(path, options) : streamMarkdownFolder(path, options);
  }
  const result = await readJsonFile(path, options, keep);
  if (!result.source) throw new ImportValidationError(result.problems);
  return result.source;
}
