// Reads a content source, whatever its format: a static site's folder (Hugo, Jekyll … as their
// generator publishes them, sites/formats.ts), Folio's own folder of Markdown files, Folio's JSON file, or a Ghost JSON export (told apart by its `db` list). Throws an
// ImportValidationError listing every problem, each with its file and line; reads nothing into a database.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ghostSource, isGhostExport } from './ghost.ts';
import { folioJsonSource, parseJson } from './json-file.ts';
import { readText } from './markdown-folder.ts';
import {
  type ContentSource,
  type ImportProblem,
  ImportValidationError,
  type ReadOptions,
} from './records.ts';
import { profileByName, readFolder } from './sites/formats.ts';
import { stripBom } from './yaml-lines.ts';

export async function readContentSource(path: string, options: ReadOptions = {}): Promise<ContentSource> {
  const info = await stat(path).catch(() => null);
  if (info === null) {
    throw new ImportValidationError([
      { file: path, line: 1, message: 'content source not found: no such file or folder' },
    ]);
  }
  // An unknown format name is refused before anything is read, whatever the path holds.
  if (options.format !== undefined) profileByName(options.format);
  if (info.isDirectory()) return readFolder(path, options);

  const problems: ImportProblem[] = [];
  const file = basename(path);
  const raw = await readText(path, file, problems);
  if (raw === null) throw new ImportValidationError(problems);
  const text = stripBom(raw);
  const parsed = parseJson(file, text);
  if (parsed.problem) throw new ImportValidationError([parsed.problem]);
  const result = isGhostExport(parsed.data)
    ? ghostSource(file, text, parsed.data, options)
    : folioJsonSource(file, text, parsed.data, options);
  if (!result.source) throw new ImportValidationError(result.problems);
  return result.source;
}
