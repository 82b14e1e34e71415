// The pieces of MDX syntax a body holds: ESM import/export blocks, {expressions} and JSX tags, each
// found by its extent in the text so that the expander can keep its line for warnings.

import type { Region } from './code-regions.ts';

/** ESM blocks: a line starting with `import` or `export` up to the next blank line (MDX reads them so). */
export function esmBlocks(text: string, code: Region[]): Region[] {
  const blocks: Region[] = [];
  const start = /^(?:import|export)(?=[\s{*])/gm;
  for (let match = start.exec(text); match; match = start.exec(text)) {
    if (code.some((region) => region.start <= match.index && match.index < region.end)) continue;
    const blank = /\n[ \t]*(?:\n|$)/g;
    blank.lastIndex = match.index;
    const end = blank.exec(text);
    const blockEnd = end ? end.index + 1 : text.length;
    blocks.push({ start: match.index, end: blockEnd });
    start.lastIndex = blockEnd;
  }
  return blocks;
}

/** The offset just past the `}` closing the `{` at `open` (strings, template literals and comments skipped), or -1. */
export function braceEnd(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index += 1) {
    const char = text[index];
    if (char === '"' || char === "'" || char === '`') {
      index = text.indexOf(char, index + 1);
      while (index !== -1 && text[index - 1] === '\\') index = text.indexOf(char, index + 1);
      if (index === -1) return -1;
    } else if (text.startsWith('/*', index)) {
      index = text.indexOf('*/', index + 2);
      if (index === -1) return -1;
      index += 1;
    } else if (char === '{') {
      depth += 1;
    } else if (char === '}') {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}

export interface JsxAttribute {
  name: string;
  /** A quoted value as written (quotes removed), or the source of a {value}; null for a bare attribute. */
  value: string | null;
  expression: boolean;
  spread: boolean;
}

export interface JsxTag {
  start: number;
  end: number;
  /** '' for a fragment (<> and </>). */
  name: string;
  closing: boolean;
  selfClosing: boolean;
  attributes: JsxAttribute[];
}

const tagName = /[A-Za-z][\w-]*(?:[.:][A-Za-z][\w-]*)*/y;
const attributeName = /[A-Za-z_:][\w:.-]*/y;

function skipSpace(text: string, index: number): number {
  while (index < text.length && /\s/.test(text[index])) index += 1;
  return index;
}

function readValue(text: string, index: number): { value: string; expression: boolean; end: number } | null {
  const quote = text[index];
  if (quote === '"' || quote === "'") {
    const close = text.indexOf(quote, index + 1);
    return close === -1 ? null : { value: text.slice(index + 1, close), expression: false, end: close + 1 };
  }
  if (quote !== '{') return null;
  const end = braceEnd(text, index);
  return end === -1 ? null : { value: text.slice(index + 1, end - 1).trim(), expression: true, end };
}

function readAttribute(text: string, index: number): { attribute: JsxAttribute; end: number } | null {
  if (text[index] === '{') {
    const end = braceEnd(text, index);
    if (end === -1) return null;
    const source = text.slice(index + 1, end - 1).trim();
    return { attribute: { name: '', value: source, expression: true, spread: true }, end };
  }
  attributeName.lastIndex = index;
  const name = attributeName.exec(text);
  if (!name) return null;
  let end = skipSpace(text, attributeName.lastIndex);
  if (text[end] !== '=') {
    return {
      attribute: { name: name[0], value: null, expression: false, spread: false },
      end: attributeName.lastIndex,
    };
  }
  const value = readValue(text, skipSpace(text, end + 1));
  if (!value) return null;
  end = value.end;
  return {
    attribute: { name: name[0], value: value.value, expression: value.expression, spread: false },
    end,
  };
}

/** The JSX tag starting at `start` (its "<"), or null when the text there is not one. */
export function parseJsxTag(text: string, start: number): JsxTag | null {
  let index = start + 1;
  const closing = text[index] === '/';
  if (closing) index += 1;
  tagName.lastIndex = index;
  const name = tagName.exec(text);
  if (!name && text[index] !== '>') return null;
  index = name ? tagName.lastIndex : index;
  const attributes: JsxAttribute[] = [];
  for (;;) {
    index = skipSpace(text, index);
    if (text[index] === '>')
      return { start, end: index + 1, name: name?.[0] ?? '', closing, selfClosing: false, attributes };
    if (text.startsWith('/>', index)) {
      return { start, end: index + 2, name: name?.[0] ?? '', closing, selfClosing: true, attributes };
    }
    if (closing || index >= text.length) return null;
    const attribute = readAttribute(text, index);
    if (!attribute) return null;
    attributes.push(attribute.attribute);
    index = attribute.end;
  }
}
