// Helpers every dialect shares: file:line warnings, HTML escaping and the fenced code block a
// highlight tag becomes.

import { renderMarkdown } from '../../markdown.ts';
import type { ImportProblem } from '../records.ts';

export interface Reporter {
  /** Records a warning at an offset of the text being expanded. */
  warn(offset: number, kind: string, message: string): void;
}

/** A reporter whose lines count from the body's first line in the file. */
export function reporterFor(
  text: string,
  file: string,
  firstBodyLine: number,
  warnings: ImportProblem[],
): Reporter {
  return {
    warn(offset, kind, message) {
      let line = firstBodyLine;
      for (
        let index = text.indexOf('\n');
        index !== -1 && index < offset;
        index = text.indexOf('\n', index + 1)
      ) {
        line += 1;
      }
      warnings.push({ file, line, message, kind });
    },
  };
}

const htmlEscapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => htmlEscapes[char]);
}

/**
 * Removes the blank lines before and after the code (the rest of the tag's lines, the indentation of an
 * end tag); the code's own indentation is part of it.
 */
export function trimLineBreaks(code: string): string {
  return code.replace(/^(?:[ \t]*\r?\n)+/, '').replace(/(?:\r?\n[ \t]*)+$/, '');
}

/** Removes the indentation every non-blank line shares (Hugo's .InnerDeindent). */
export function deindent(code: string): string {
  const lines = code.split('\n');
  const indents = lines.filter((line) => line.trim() !== '').map((line) => /^[ \t]*/.exec(line)![0]);
  if (indents.length === 0) return code;
  let common = indents[0];
  for (const indent of indents) {
    while (!indent.startsWith(common)) common = common.slice(0, -1);
  }
  return lines.map((line) => line.slice(Math.min(common.length, line.length))).join('\n');
}

/** A fenced code block whose fence is longer than any backtick run in the code, so the code cannot close it. */
export function fencedBlock(code: string, language: string): string {
  const longestRun = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  return `${fence}${language}\n${code}\n${fence}`;
}

/**
 * A block (a fenced code block, block HTML) placed after `before` and ahead of `after` on lines of its
 * own. When only indentation precedes it on its line (a list item), its other lines take that
 * indentation too, so that the block stays inside the item.
 */
export function placeBlock(before: string, block: string, after: string): string {
  const lineStart = before.slice(before.lastIndexOf('\n') + 1);
  const indented = /^[ \t]*$/.test(lineStart);
  const lead = before === '' || indented ? '' : '\n';
  const trail = after === '' || /^[ \t]*(\r?\n|$)/.test(after) ? '' : '\n';
  const body = indented && lineStart !== '' ? block.replace(/\n(?!\n)/g, `\n${lineStart}`) : block;
  return lead + body + trail;
}

/** Markdown rendered to HTML, a single paragraph without its <p> (Hugo's markdownify). */
export function markdownify(text: string): string {
  const html = renderMarkdown(text).trim();
  const single = /^<p>([\s\S]*)<\/p>$/.exec(html);
  return single && !single[1].includes('<p>') ? single[1] : html;
}
