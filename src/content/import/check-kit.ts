// The generic kit of the import checks: where a unit's problems and warnings go (Ctx), how a field
// path is shown and located, and checks of one value (text, date, boolean, unknown keys) that
// report what is wrong in words an author can act on. The rules of articles and tags use it.
import { DATE_FORMS, parseDate } from './dates.ts';
import type { ImportProblem } from './records.ts';

export type Path = readonly (string | number)[];

/** Where problems and warnings of one unit (a file, or one entry of a JSON file) go, and how a field path maps to a line. */
export interface Ctx {
  file: string;
  problems: ImportProblem[];
  warnings: ImportProblem[];
  /** Unknown fields are problems rather than warnings. */
  strict: boolean;
  locate: (path: Path) => number;
  /** Locating parses a whole file for positions (JSON): lines are found only for a problem or warning. */
  costlyLocate?: boolean;
}

/**
 * A line as a function, made apart from the functions that hold a file's parsed document: a
 * closure keeps every variable that any closure of its function uses, and an outcome is kept until
 * the last file of a source is read.
 */
export const lineOf = (line: number) => () => line;

export function report(ctx: Ctx, path: Path, message: string): void {
  ctx.problems.push({ file: ctx.file, line: ctx.locate(path), message });
}

/** A warning, with its `kind` for the import summary's count by kind when the caller gives one. */
export function warn(ctx: Ctx, path: Path, message: string, kind?: string): void {
  const warning: ImportProblem = { file: ctx.file, line: ctx.locate(path), message };
  if (kind !== undefined) warning.kind = kind;
  ctx.warnings.push(warning);
}

export function formatPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Database columns count characters, not UTF-16 code units. */
export function charLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

export function sortByLine(problems: ImportProblem[]): ImportProblem[] {
  return problems.sort((a, b) => a.line - b.line);
}

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0];
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j];
      previous[j] = Math.min(
        previous[j] + 1,
        previous[j - 1] + 1,
        diagonal + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return previous[b.length];
}

/**
 * Reports (strict) or warns about each key of `value` not in `allowed`, suggesting the nearest
 * allowed name; the `unlisted` ones are accepted but left out of the list of expected fields.
 */
export function checkUnknownKeys(
  ctx: Ctx,
  value: Record<string, unknown>,
  base: Path,
  allowed: readonly string[],
  unlisted: ReadonlySet<string> = new Set(),
): void {
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    const suggestion = allowed
      .map((name) => ({ name, distance: editDistance(key, name) }))
      .filter((c) => c.distance <= 2)
      .sort((a, b) => a.distance - b.distance)[0];
    const hint = suggestion
      ? ` (did you mean "${suggestion.name}"?)`
      : ` (expected one of: ${allowed.filter((name) => !unlisted.has(name)).join(', ')})`;
    const message = `unknown field ${JSON.stringify(formatPath([...base, key]))}${hint}`;
    if (ctx.strict) report(ctx, [...base, key], message);
    else warn(ctx, [...base, key], `${message}: ignored`);
  }
}

/** Optional free text: absent, null or blank all mean "not given". */
export function optionalText(ctx: Ctx, value: unknown, path: Path, maxLength?: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    report(ctx, path, `${formatPath(path)} must be a string or null, got ${describe(value)}`);
    return null;
  }
  const trimmed = value.trim();
  if (trimmed === '') return null;
  return withinLength(ctx, trimmed, path, maxLength);
}

/** The trimmed text, after reporting it when it is longer than `maxLength` characters. */
function withinLength(ctx: Ctx, trimmed: string, path: Path, maxLength: number | undefined): string {
  if (maxLength !== undefined && charLength(trimmed) > maxLength) {
    report(
      ctx,
      path,
      `${formatPath(path)} must be at most ${maxLength} characters, got ${charLength(trimmed)}`,
    );
  }
  return trimmed;
}

export function requiredText(ctx: Ctx, value: unknown, path: Path, maxLength?: number): string | null {
  if (value === undefined) {
    report(ctx, path, `missing required field ${JSON.stringify(formatPath(path))}`);
    return null;
  }
  if (typeof value !== 'string') {
    report(ctx, path, `${formatPath(path)} must be a non-empty string, got ${describe(value)}`);
    return null;
  }
  const trimmed = value.trim();
  if (trimmed === '') {
    report(ctx, path, `${formatPath(path)} must not be empty`);
    return null;
  }
  return withinLength(ctx, trimmed, path, maxLength);
}

/** A date; a string without an offset is read in `timeZone` (a site's zone), else UTC. */
export function optionalDate(ctx: Ctx, value: unknown, path: Path, timeZone?: string): string | null {
  if (value === undefined || value === null) return null;
  // smol-toml's dates keep the text's form: a local date-time has no offset, to be read in the site's zone.
  if (
    value instanceof Date &&
    timeZone !== undefined &&
    typeof (value as { isLocal?: unknown }).isLocal === 'function'
  ) {
    return optionalDate(ctx, value.toISOString(), path, timeZone);
  }
  if (value instanceof Date) {
    // TOML and YAML dates arrive parsed; a TOML date without an offset is read as UTC.
    if (Number.isNaN(value.getTime())) {
      report(ctx, path, `${formatPath(path)} is not a valid date`);
      return null;
    }
    return new Date(value.getTime()).toISOString();
  }
  if (typeof value !== 'string') {
    report(ctx, path, `${formatPath(path)} must be a date string (${DATE_FORMS}), got ${describe(value)}`);
    return null;
  }
  const iso = parseDate(value, timeZone);
  if (iso === null) {
    report(
      ctx,
      path,
      `${formatPath(path)} must be a valid date (${DATE_FORMS}), got ${JSON.stringify(value)}`,
    );
  }
  return iso;
}

export function booleanField(ctx: Ctx, data: Record<string, unknown>, name: string): boolean | null {
  const value = data[name];
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value;
  report(ctx, [name], `${name} must be true or false, got ${describe(value)}`);
  return null;
}
