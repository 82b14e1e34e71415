// A generator's configuration file (TOML, YAML or JSON) read into a plain record with the line of
// each key, and the small helpers the profiles share: does a path exist, a site URL without its
// trailing slash, a path segment as a Folio slug.
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseToml, TomlError } from 'smol-toml';
import { LineCounter, parseDocument } from 'yaml';
import { isObject, type Path } from '../check-kit.ts';
import { readText } from '../markdown-folder.ts';
import { tomlLocator } from '../markdown-file.ts';
import type { ImportProblem } from '../records.ts';
import { slugOfTagName } from '../../tag-slugs.ts';
import { stripBom, toPlain, yamlErrorProblems, yamlLocator } from '../yaml-lines.ts';

export interface ConfigFile {
  file: string;
  data: Record<string, unknown>;
  locate: (path: Path) => number;
}

export async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

export async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

/** The first of `names` that is a file under `root`, or null. */
export async function firstFile(root: string, names: readonly string[]): Promise<string | null> {
  for (const name of names) if (await isFile(join(root, ...name.split('/')))) return name;
  return null;
}

/** Reads a config file by its extension; a file that cannot be parsed is a problem with its line. */
export async function readConfigFile(
  root: string,
  file: string,
  problems: ImportProblem[],
): Promise<ConfigFile | null> {
  const raw = await readText(join(root, ...file.split('/')), file, problems);
  if (raw === null) return null;
  const text = stripBom(raw).replace(/\r\n?/g, '\n');
  if (file.endsWith('.toml')) {
    try {
      const data = parseToml(text) as Record<string, unknown>;
      return { file, data, locate: tomlLocator(text, 1) };
    } catch (error) {
      if (!(error instanceof TomlError)) throw error;
      const reason = error.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
      problems.push({ file, line: error.line, message: `invalid TOML: ${reason}` });
      return null;
    }
  }
  // JSON is YAML for the parser, which gives positions for both.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const errors = yamlErrorProblems(file, doc, lineCounter, 0);
  const plain = errors.length === 0 ? toPlain(file, doc) : {};
  if (errors.length > 0 || plain.problem) {
    problems.push(...errors, ...(plain.problem ? [plain.problem] : []));
    return null;
  }
  const data = isObject(plain.value) ? plain.value : {};
  return { file, data, locate: yamlLocator(doc, lineCounter, { lineOffset: 0 }) };
}

/**
 * The site's config: the first of `names` that exists, read; without one (a forced --format), or
 * one that cannot be parsed (its problem recorded), an empty config named after the first name,
 * so that the site reads with the generator's defaults.
 */
export async function openSiteConfig(
  root: string,
  names: readonly string[],
  problems: ImportProblem[],
): Promise<ConfigFile> {
  const found = await firstFile(root, names);
  const read = found === null ? null : await readConfigFile(root, found, problems);
  return read ?? { file: found ?? names[0], data: {}, locate: () => 1 };
}

/** `https://site.example/` → `https://site.example`; null for anything but an http(s) URL. */
export function siteUrlOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.href.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

/** A path segment (a URL's last part, a file name) as a Folio slug: `Noodles.html` → `noodles`; null when nothing is left. */
export function slugOfSegment(segment: string): string | null {
  const withoutExtension = segment.replace(/\.(html?|php|xml)$/i, '');
  const slug = slugOfTagName(decodeSafely(withoutExtension));
  return slug === 'tag' && !/tag/i.test(withoutExtension) ? null : slug;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The last non-empty segment of a path: `/2024/05/walk/` → `walk`. */
export function lastSegment(path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '');
  return segments.at(-1) ?? '';
}

/** A site path or URL made absolute against the site URL (`/a.jpg` → `https://site/a.jpg`); unchanged without one. */
export function absoluteOnSite(value: string, siteUrl: string | null): string {
  if (siteUrl === null || !value.startsWith('/') || value.startsWith('//')) return value;
  return `${siteUrl}${value}`;
}

const run = promisify(execFile);

/**
 * The time of a file's first (`created`) or last (`modified`) Git commit, as ISO 8601; null outside
 * a Git work tree or for a file not committed yet (Eleventy's `git Created`, Docusaurus's undated posts).
 */
export async function gitCommitTime(
  root: string,
  path: string,
  which: 'created' | 'modified',
): Promise<string | null> {
  const args = which === 'created' ? ['--diff-filter=A', '--follow', '-1'] : ['-1'];
  const out = await run('git', ['log', ...args, '--format=%at', '--', path], { cwd: root }).catch(() => ({
    stdout: '',
  }));
  const seconds = Number.parseInt(out.stdout.trim().split('\n')[0] ?? '', 10);
  return Number.isNaN(seconds) ? null : new Date(seconds * 1000).toISOString();
}
