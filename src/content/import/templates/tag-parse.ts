// Finds Liquid and Nunjucks delimiters in a body: tags {% name args %}, outputs {{ expression }} and
// Nunjucks comments {# … #}, with their whitespace control dashes ({%- … -%}).

import { codeRegions, regionAt } from './code-regions.ts';

export type TagDialect = 'liquid' | 'nunjucks';

export interface TagToken {
  start: number;
  end: number;
  type: 'tag' | 'output' | 'comment';
  /** A tag's name (`highlight`, `endraw`); empty for outputs and comments. */
  name: string;
  /** A tag's arguments or an output's expression, trimmed. */
  source: string;
  /** `{%-`: the whitespace before the tag is removed. */
  trimBefore: boolean;
  /** `-%}`: the whitespace after the tag is removed. */
  trimAfter: boolean;
}

const closers: Record<string, string> = { '{%': '%}', '{{': '}}', '{#': '#}' };

/** The offset of a delimiter's closer outside quoted strings, or -1. */
function closerAt(text: string, from: number, close: string): number {
  let quote = '';
  for (let index = from; index < text.length; index += 1) {
    const char = text[index];
    if (quote !== '') {
      if (char === quote) quote = '';
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (text.startsWith(close, index)) {
      return index;
    }
  }
  return -1;
}

function parseToken(text: string, start: number): TagToken | null {
  const open = text.slice(start, start + 2);
  const close = closers[open];
  // Comments hold prose, quotes included: their end is the first closer.
  const closeAt = open === '{#' ? text.indexOf(close, start + 2) : closerAt(text, start + 2, close);
  if (closeAt === -1) return null;
  let inner = text.slice(start + 2, closeAt);
  const trimBefore = inner.startsWith('-');
  const trimAfter = inner.endsWith('-');
  inner = inner.slice(trimBefore ? 1 : 0, trimAfter ? -1 : undefined).trim();
  const end = closeAt + 2;
  if (open === '{#') return { start, end, type: 'comment', name: '', source: inner, trimBefore, trimAfter };
  if (open === '{{') return { start, end, type: 'output', name: '', source: inner, trimBefore, trimAfter };
  const head = /^([A-Za-z_]\w*)\s*([\s\S]*)$/.exec(inner);
  if (!head) return null;
  return { start, end, type: 'tag', name: head[1], source: head[2].trim(), trimBefore, trimAfter };
}

/** Tags whose text is kept literally wherever they stand, code included (how code shows template syntax). */
export const literalTags = new Set(['raw', 'endraw', 'verbatim', 'endverbatim']);

export interface TagScan {
  tokens: TagToken[];
  /** Offsets of delimiters that open nothing valid (reported, left as written). */
  malformed: number[];
}

export function scanTags(text: string, dialect: TagDialect): TagScan {
  const regions = codeRegions(text);
  const tokens: TagToken[] = [];
  const malformed: number[] = [];
  const opener = dialect === 'nunjucks' ? /\{[%{#]/g : /\{[%{]/g;
  for (let match = opener.exec(text); match; match = opener.exec(text)) {
    const inCode = regionAt(regions, match.index) !== undefined;
    const token = parseToken(text, match.index);
    if (token && (!inCode || (token.type === 'tag' && literalTags.has(token.name)))) {
      tokens.push(token);
      opener.lastIndex = token.end;
    } else if (!token && !inCode) {
      malformed.push(match.index);
    }
  }
  return { tokens, malformed };
}
