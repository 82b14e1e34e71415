// Docusaurus admonitions (:::tip Title … :::, and :::tip[Title] since v3), also Starlight's asides in
// Astro: the fixtures hold none, so the choice is ours. The block becomes a div with the type as its
// class and its title first, and the Markdown inside stays Markdown (blank lines around it let a
// Markdown renderer read it inside the HTML block), so nothing is lost and a front end can style it.

import { fencedBlocks } from './code-regions.ts';
import { escapeHtml, markdownify } from './common.ts';

const types = new Set([
  'note',
  'tip',
  'info',
  'warning',
  'danger',
  'caution',
  'important',
  'success',
  'secondary',
]);
const opening = /^[ \t]*(:{3,})([a-z]+)(?:\[([^\]]*)\]|[ \t]+(.*?))?[ \t]*(?:\{[^}]*\})?[ \t]*$/;
const closing = /^[ \t]*(:{3,})[ \t]*$/;

function openingHtml(type: string, title: string | undefined): string {
  const heading = title?.trim()
    ? markdownify(title.trim())
    : escapeHtml(type.charAt(0).toUpperCase() + type.slice(1));
  return `<div class="admonition admonition-${type}">\n<p class="admonition-title">${heading}</p>\n`;
}

/** Admonition blocks outside code turned into HTML; a fence that is never closed is left as written. */
export function expandAdmonitions(text: string): string {
  if (!text.includes(':::')) return text;
  const code = fencedBlocks(text);
  const lines = text.split('\n');
  const open: Array<{ line: number; colons: number }> = [];
  const replacements = new Map<number, string>();
  let offset = 0;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index];
    const inCode = code.some((region) => region.start <= offset && offset < region.end);
    offset += line.length + 1;
    if (inCode) continue;
    const start = opening.exec(line);
    if (start && types.has(start[2])) {
      replacements.set(index, openingHtml(start[2], start[3] ?? start[4]));
      open.push({ line: index, colons: start[1].length });
      continue;
    }
    const end = closing.exec(line);
    if (end && open.length > 0 && open[open.length - 1].colons === end[1].length) {
      open.pop();
      replacements.set(index, '\n</div>');
    }
  }
  for (const unclosed of open) replacements.delete(unclosed.line);
  return lines.map((line, index) => replacements.get(index) ?? line).join('\n');
}
