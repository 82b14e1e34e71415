// Finds Hugo shortcode calls in a body: {{< name args >}}, {{% name args %}}, their closers
// {{< /name >}}, self-closed calls {{< name />}}, and the comment form {{</* … */>}} that Hugo
// prints literally (how documentation shows a shortcode without running it).

import { codeRegions, regionAt } from './code-regions.ts';

export interface ShortcodeArgs {
  positional: string[];
  named: Map<string, string>;
}

export interface ShortcodeToken {
  start: number;
  end: number;
  name: string;
  closing: boolean;
  selfClosing: boolean;
  args: ShortcodeArgs;
  /** Set for the comment form: the text Hugo prints instead of running the shortcode. */
  literal?: string;
}

const argument = /\s*(?:([A-Za-z_][\w-]*)=)?(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`|([^\s"`]+))/y;

/** Parses the arguments of a call; null when they are not valid shortcode syntax. */
export function parseArgs(source: string): { args: ShortcodeArgs; selfClosing: boolean } | null {
  const args: ShortcodeArgs = { positional: [], named: new Map() };
  const selfClosing = /\/\s*$/.test(source);
  const body = selfClosing ? source.replace(/\/\s*$/, '') : source;
  argument.lastIndex = 0;
  while (body.slice(argument.lastIndex).trim() !== '') {
    const match = argument.exec(body);
    if (!match) return null;
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? match[4]);
    if (match[1]) args.named.set(match[1], value);
    else args.positional.push(value);
  }
  return { args, selfClosing };
}

/** The offset just past a call's closing delimiter, skipping quoted arguments; -1 when it is never closed. */
function callEnd(text: string, from: number, close: string): number {
  let index = from;
  while (index < text.length) {
    const char = text[index];
    if (char === '"' || char === '`') {
      let end = text.indexOf(char, index + 1);
      while (char === '"' && end !== -1 && text[end - 1] === '\\') end = text.indexOf('"', end + 1);
      if (end === -1) return -1;
      index = end + 1;
    } else if (text.startsWith(close, index)) {
      return index + close.length;
    } else if (char === '\n' && text[index + 1] === '\n') {
      return -1;
    } else {
      index += 1;
    }
  }
  return -1;
}

function commentForm(text: string, start: number, open: string, close: string): ShortcodeToken | null {
  const commentOpen = /^\{\{[<%]\s*\/\*/.exec(text.slice(start, start + 40));
  if (!commentOpen) return null;
  const commentClose = new RegExp(`\\*\\/\\s*${close === '>}}' ? '>' : '%'}\\}\\}`, 'g');
  commentClose.lastIndex = start + commentOpen[0].length;
  const match = commentClose.exec(text);
  if (!match) return null;
  const inner = text.slice(start + commentOpen[0].length, match.index);
  const literal = `${open}${inner}${close}`;
  const noArgs: ShortcodeArgs = { positional: [], named: new Map() };
  return {
    start,
    end: match.index + match[0].length,
    name: '',
    closing: false,
    selfClosing: true,
    args: noArgs,
    literal,
  };
}

/** One call starting at `start` (at its "{{"), or null when the text there is not a call. */
function parseCall(text: string, start: number): ShortcodeToken | null {
  const open = text.startsWith('{{<', start) ? '{{<' : '{{%';
  const close = open === '{{<' ? '>}}' : '%}}';
  const comment = commentForm(text, start, open, close);
  if (comment) return comment;
  const end = callEnd(text, start + 3, close);
  if (end === -1) return null;
  const inside = text.slice(start + 3, end - 3).trim();
  const head = /^(\/)?\s*([\w.-]+(?:\/[\w.-]+)*)/.exec(inside);
  if (!head) return null;
  const parsed = parseArgs(inside.slice(head[0].length));
  if (!parsed) return null;
  return {
    start,
    end,
    name: head[2],
    closing: head[1] === '/',
    selfClosing: parsed.selfClosing,
    args: parsed.args,
  };
}

export interface ScanResult {
  tokens: ShortcodeToken[];
  /** Offsets of "{{<" or "{{%" that open no valid call (reported, left as written). */
  malformed: number[];
}

/** Every call outside code, and the comment forms everywhere (they are how code shows a shortcode). */
export function scanShortcodes(text: string): ScanResult {
  const regions = codeRegions(text);
  const tokens: ShortcodeToken[] = [];
  const malformed: number[] = [];
  const opener = /\{\{[<%]/g;
  for (let match = opener.exec(text); match; match = opener.exec(text)) {
    const inCode = regionAt(regions, match.index) !== undefined;
    const token = parseCall(text, match.index);
    if (token && (!inCode || token.literal !== undefined)) {
      tokens.push(token);
      opener.lastIndex = token.end;
    } else if (!token && !inCode) {
      malformed.push(match.index);
    }
  }
  return { tokens, malformed };
}
