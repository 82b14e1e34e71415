// MDX (Astro, Next.js, Docusaurus) turned into the Markdown it stands for: ESM import/export blocks are
// dropped, JSX that is plain HTML (lower-case tags) becomes HTML, components (Capitalised) are reported
// and their children kept, {expressions} reported and removed, {/* comments */} removed.
// A careful scanner rather than a full MDX parser (@mdx-js/mdx and its micromark/acorn stack): the body
// only needs its JSX and expressions found, not compiled, and a scanner keeps going where MDX would
// refuse the whole file (a stray "<" or "{" in prose), which the import must not do.

import type { Region } from './code-regions.ts';
import { codeRegions } from './code-regions.ts';
import type { Reporter } from './common.ts';
import { escapeHtml } from './common.ts';
import { expandAdmonitions } from './admonitions.ts';
import type { JsxAttribute, JsxTag } from './mdx-syntax.ts';
import { braceEnd, esmBlocks, parseJsxTag } from './mdx-syntax.ts';

const voidElements = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);
const attributeNames: Record<string, string> = { className: 'class', htmlFor: 'for' };

function isComponent(name: string): boolean {
  return name === '' || /^[A-Z]/.test(name) || name.includes('.');
}

/** A {value} attribute that is a plain literal, as HTML attribute text; null for anything else. */
function literalValue(source: string): string | null | false {
  const quoted = /^(["'`])([^]*)\1$/.exec(source);
  if (quoted && !(quoted[1] === '`' && quoted[2].includes('${'))) return quoted[2];
  if (/^-?\d+(\.\d+)?$/.test(source)) return source;
  if (source === 'true') return '';
  if (source === 'false') return false;
  return null;
}

// React leaves these numbers unitless; any other number is in pixels.
const unitless = new Set([
  'opacity',
  'zIndex',
  'fontWeight',
  'lineHeight',
  'flex',
  'flexGrow',
  'flexShrink',
  'order',
  'zoom',
]);

/** A JSX style object of literal values ({{ textAlign: 'center', maxWidth: 300 }}) as CSS; null otherwise. */
function styleCss(source: string): string | null {
  const object = /^\{([^{}]*)\}$/.exec(source.trim());
  if (!object) return null;
  const declarations: string[] = [];
  for (const entry of object[1].split(',').filter((part) => part.trim() !== '')) {
    const pair =
      /^\s*(?:([A-Za-z]\w*)|(["'])([\w-]+)\2)\s*:\s*(?:(["'])([^"']*)\4|(-?\d+(?:\.\d+)?))\s*$/.exec(entry);
    if (!pair) return null;
    const key = pair[1] ?? pair[3];
    const property = key.startsWith('--')
      ? key
      : key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    const value = pair[5] ?? (unitless.has(key) || pair[6] === '0' ? pair[6] : `${pair[6]}px`);
    declarations.push(`${property}: ${value}`);
  }
  return declarations.join('; ');
}

/** A JSX string as an HTML attribute value: JSX decodes entities in strings, so one written stays one. */
function attributeText(value: string): string {
  return value
    .replace(/&(?![a-zA-Z][a-zA-Z\d]*;|#\d+;|#x[\da-fA-F]+;)/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;');
}

function htmlAttribute(attribute: JsxAttribute, tag: JsxTag, reporter: Reporter): string {
  const name = attributeNames[attribute.name] ?? attribute.name;
  const css = attribute.name === 'style' && attribute.expression ? styleCss(attribute.value ?? '') : null;
  if (css !== null) return ` style="${escapeHtml(css)}"`;
  if (attribute.spread || (attribute.expression && literalValue(attribute.value ?? '') === null)) {
    const written = attribute.spread ? `{${attribute.value}}` : `${attribute.name}={${attribute.value}}`;
    reporter.warn(
      tag.start,
      'mdx-expression',
      `${written} on <${tag.name}> is a JavaScript expression; the attribute is removed`,
    );
    return '';
  }
  const value = attribute.expression ? literalValue(attribute.value ?? '') : attribute.value;
  if (value === false) return '';
  return value === null || value === '' ? ` ${name}` : ` ${name}="${attributeText(value as string)}"`;
}

function renderTag(tag: JsxTag, reporter: Reporter): string {
  if (isComponent(tag.name)) {
    if (!tag.closing && tag.name !== '') {
      const kept = tag.selfClosing ? 'removed' : 'its children are kept';
      reporter.warn(
        tag.start,
        'mdx-component',
        `${tag.name} is a component, not HTML: it cannot be rendered at import; ${kept}`,
      );
    }
    return '';
  }
  if (tag.closing) return `</${tag.name}>`;
  const attributes = tag.attributes.map((attribute) => htmlAttribute(attribute, tag, reporter)).join('');
  if (!tag.selfClosing) return `<${tag.name}${attributes}>`;
  return voidElements.has(tag.name)
    ? `<${tag.name}${attributes} />`
    : `<${tag.name}${attributes}></${tag.name}>`;
}

/** Names the body's own export lines give a literal value (`export const passes = 14;`). */
export type Exported = Map<string, string>;

function exportedLiterals(text: string, blocks: Region[]): Exported {
  const exported: Exported = new Map();
  const declaration = /^export\s+const\s+([A-Za-z_$][\w$]*)\s*=\s*(.+?);?\s*$/gm;
  for (const block of blocks) {
    for (const match of text.slice(block.start, block.end).matchAll(declaration)) {
      const value = literalValue(match[2].trim());
      if (typeof value === 'string' && match[2].trim() !== 'true') exported.set(match[1], value);
    }
  }
  return exported;
}

/**
 * An expression or comment in braces: comments vanish (Docusaurus's truncate marker becomes its Markdown
 * form); a name the body exports as a literal shows its value; any other expression is removed. Both
 * expressions are reported, since the page no longer computes them.
 */
function renderBraces(text: string, start: number, end: number, scan: Scan): string {
  const source = text.slice(start + 1, end - 1).trim();
  const comment = /^\/\*([^]*)\*\/$/.exec(source);
  if (comment) return comment[1].trim() === 'truncate' ? '<!-- truncate -->' : '';
  if (source === '') return '';
  // {' '} and {"text"} are how JSX writes literal text: nothing is lost in keeping it.
  const literal = literalValue(source);
  if (typeof literal === 'string' && source !== 'true') return literal;
  const value = scan.exported.get(source);
  if (value !== undefined) {
    scan.reporter.warn(
      start,
      'mdx-expression',
      `{${source}} is a JavaScript expression; replaced by ${value}, its value on a dropped export line`,
    );
    return value;
  }
  scan.reporter.warn(start, 'mdx-expression', `{${source}} is a JavaScript expression; removed`);
  return '';
}

interface Scan {
  reporter: Reporter;
  exported: Exported;
}

interface Piece {
  text: string;
  end: number;
}

function pieceAt(text: string, index: number, scan: Scan): Piece | null {
  const char = text[index];
  if (char === '{') {
    const end = braceEnd(text, index);
    return end === -1 ? null : { text: renderBraces(text, index, end, scan), end };
  }
  if (char === '<') {
    const tag = parseJsxTag(text, index);
    return tag ? { text: renderTag(tag, scan.reporter), end: tag.end } : null;
  }
  return null;
}

/** The code regions (kept as written) and ESM blocks (dropped), in order. */
function specialRegions(text: string, code: Region[], esm: Region[]): Array<Region & { drop: boolean }> {
  const regions = [
    ...code.map((region) => ({ ...region, drop: false })),
    ...esm.map((region) => ({ ...region, drop: true })),
  ];
  return regions.sort((a, b) => a.start - b.start);
}

function expandProse(text: string, from: number, to: number, scan: Scan): { output: string; end: number } {
  let output = '';
  let index = from;
  while (index < to) {
    const char = text[index];
    if (char === '\\' && index + 1 < text.length) {
      output += text.slice(index, index + 2);
      index += 2;
      continue;
    }
    const piece = char === '{' || char === '<' ? pieceAt(text, index, scan) : null;
    output += piece ? piece.text : char;
    index = piece ? piece.end : index + 1;
  }
  // A tag or expression may run past `to` (into what looked like code): the caller resumes after it.
  return { output, end: index };
}

export function expandMdx(text: string, reporter: Reporter): string {
  const code = codeRegions(text);
  const esm = esmBlocks(text, code);
  const scan: Scan = { reporter, exported: exportedLiterals(text, esm) };
  let output = '';
  let index = 0;
  for (const region of specialRegions(text, code, esm)) {
    if (region.end <= index) continue;
    const prose = expandProse(text, index, Math.max(index, region.start), scan);
    output += prose.output;
    if (prose.end < region.end)
      output += region.drop ? '' : text.slice(Math.max(prose.end, region.start), region.end);
    index = Math.max(prose.end, region.end);
  }
  output += expandProse(text, index, text.length, scan).output;
  return expandAdmonitions(output);
}
