// The small part of Liquid and Nunjucks expressions a post body can hold on its own: literals, variables
// the body itself sets, and the common string filters. Anything else depends on the site's data at build
// time and is reported by the caller.

import type { TagDialect } from './tag-parse.ts';

export type Value = string | number | boolean | null;

export type Variables = Map<string, Value>;

/** Thrown for what cannot be evaluated at import; the message says what. */
export class NotEvaluable extends Error {}

function capitalizeFirst(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1);
}

type Filter = (value: Value, args: Value[]) => Value;

const text = (value: Value): string => (value === null ? '' : String(value));

const shared: Record<string, Filter> = {
  replace: (value, [from, to]) => text(value).split(text(from)).join(text(to)),
  default: (value, [fallback]) => (value === null || value === '' || value === false ? fallback : value),
  append: (value, [suffix]) => text(value) + text(suffix),
  prepend: (value, [prefix]) => text(prefix) + text(value),
  escape: (value) =>
    text(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
};

const liquidFilters: Record<string, Filter> = {
  ...shared,
  upcase: (value) => text(value).toUpperCase(),
  downcase: (value) => text(value).toLowerCase(),
  capitalize: (value) => capitalizeFirst(text(value)),
  strip: (value) => text(value).trim(),
  lstrip: (value) => text(value).trimStart(),
  rstrip: (value) => text(value).trimEnd(),
  size: (value) => text(value).length,
};

const nunjucksFilters: Record<string, Filter> = {
  ...shared,
  upper: (value) => text(value).toUpperCase(),
  lower: (value) => text(value).toLowerCase(),
  capitalize: (value) => capitalizeFirst(text(value).toLowerCase()),
  title: (value) => text(value).replace(/\S+/g, (word) => capitalizeFirst(word.toLowerCase())),
  trim: (value) => text(value).trim(),
  length: (value) => text(value).length,
  safe: (value) => value,
  string: (value) => text(value),
  d: (value, args) => shared.default(value, args),
  e: (value, args) => shared.escape(value, args),
};

const literal =
  /^\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(-?\d+(?:\.\d+)?)|(true|false|nil|null|none|None))\s*$/;

function evaluatePrimary(source: string, variables: Variables): Value {
  const match = literal.exec(source);
  if (match) {
    if (match[1] !== undefined || match[2] !== undefined)
      return (match[1] ?? match[2]).replace(/\\(.)/g, '$1');
    if (match[3] !== undefined) return Number(match[3]);
    return match[4] === 'true' ? true : match[4] === 'false' ? false : null;
  }
  // Dotted names (site.baseurl) are looked up whole: the reader gives them so (options.variables).
  const written = source.trim();
  const name = written.replace(/\[\s*["']([^"']+)["']\s*\]/g, '.$1');
  if (!/^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*$/.test(name)) {
    throw new NotEvaluable(`${written} is not a value the import can compute`);
  }
  if (variables.has(name)) return variables.get(name)!;
  throw new NotEvaluable(`${written} is the site's data at build time`);
}

/** Splits on a separator outside quotes and parentheses. */
function splitOutside(source: string, separator: string): string[] {
  const parts: string[] = [];
  let quote = '';
  let depth = 0;
  let from = 0;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index];
    if (quote) {
      if (char === quote) quote = '';
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === separator && depth === 0) {
      parts.push(source.slice(from, index));
      from = index + 1;
    }
  }
  parts.push(source.slice(from));
  return parts;
}

function filterCall(source: string, dialect: TagDialect): { name: string; args: string[] } {
  const trimmed = source.trim();
  const liquid = /^([A-Za-z_]\w*)\s*(?::([\s\S]*))?$/.exec(trimmed);
  const nunjucks = /^([A-Za-z_]\w*)\s*(?:\(([\s\S]*)\))?$/.exec(trimmed);
  const match = dialect === 'liquid' ? liquid : nunjucks;
  if (!match) throw new NotEvaluable(`the filter ${trimmed} is not understood`);
  return {
    name: match[1],
    args: match[2] === undefined || match[2].trim() === '' ? [] : splitOutside(match[2], ','),
  };
}

/** An output's value: a literal or a variable the body set, through its filters. */
export function evaluate(source: string, variables: Variables, dialect: TagDialect): Value {
  const [primary, ...filters] = splitOutside(source, '|');
  let value = evaluatePrimary(primary, variables);
  const known = dialect === 'liquid' ? liquidFilters : nunjucksFilters;
  for (const filter of filters) {
    const { name, args } = filterCall(filter, dialect);
    if (!Object.hasOwn(known, name))
      throw new NotEvaluable(`the filter ${name} is not one the import can apply`);
    value = known[name](
      value,
      args.map((arg) => evaluatePrimary(arg, variables)),
    );
  }
  return value;
}

export function valueText(value: Value): string {
  return text(value);
}
