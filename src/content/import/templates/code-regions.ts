// Where a Markdown body holds code (fenced blocks and inline code spans): template syntax there is shown,
// not run, so every dialect skips these regions except for its escape forms.

export interface Region {
  start: number;
  end: number;
}

interface Line {
  start: number;
  end: number;
  text: string;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline + 1;
    lines.push({ start, end, text: text.slice(start, newline === -1 ? text.length : newline) });
    if (newline === -1) break;
    start = end;
  }
  return lines;
}

// Any indentation is accepted (fences nested in list items and JSX are indented); an indented
// "fence" that CommonMark would read as an indented code block is code either way.
const openingFence = /^\s*(`{3,}|~{3,})(.*)$/;

function closesFence(text: string, fence: string): boolean {
  const match = /^\s*(`{3,}|~{3,})\s*$/.exec(text);
  return match !== null && match[1][0] === fence[0] && match[1].length >= fence.length;
}

/** Fenced code blocks, each from its opening fence line to the end of its closing one (or of the text). */
export function fencedBlocks(text: string): Region[] {
  const regions: Region[] = [];
  const lines = splitLines(text);
  for (let index = 0; index < lines.length; index += 1) {
    const match = openingFence.exec(lines[index].text);
    if (!match || (match[1][0] === '`' && match[2].includes('`'))) continue;
    let close = index + 1;
    while (close < lines.length && !closesFence(lines[close].text, match[1])) close += 1;
    const last = lines[Math.min(close, lines.length - 1)];
    regions.push({ start: lines[index].start, end: last.end });
    index = close;
  }
  return regions;
}

/** Inline code spans (a backtick run closed by a run of the same length, within one paragraph). */
function inlineSpans(text: string, from: number, to: number): Region[] {
  const regions: Region[] = [];
  const runs = /`+/g;
  runs.lastIndex = from;
  for (let match = runs.exec(text); match && match.index < to; match = runs.exec(text)) {
    const closing = new RegExp(`(?<!\`)${match[0]}(?!\`)`, 'g');
    closing.lastIndex = match.index + match[0].length;
    const close = closing.exec(text);
    const paragraphEnd = text.slice(match.index, close?.index ?? match.index).search(/\n[ \t]*\n/);
    if (!close || close.index >= to || paragraphEnd !== -1) continue;
    regions.push({ start: match.index, end: close.index + match[0].length });
    runs.lastIndex = close.index + match[0].length;
  }
  return regions;
}

/** Every code region of a Markdown text, in order. */
export function codeRegions(text: string): Region[] {
  const regions: Region[] = [];
  let from = 0;
  for (const block of fencedBlocks(text)) {
    regions.push(...inlineSpans(text, from, block.start), block);
    from = block.end;
  }
  regions.push(...inlineSpans(text, from, text.length));
  return regions;
}

/** The region holding an offset, if any (regions sorted, as codeRegions returns them). */
export function regionAt(regions: Region[], offset: number): Region | undefined {
  return regions.find((region) => region.start <= offset && offset < region.end);
}
