// YAML helpers shared by the sources that hold YAML or JSON: field paths to source lines, parser
// errors as problems. JSON is (for our purposes) YAML, so the YAML parser gives JSON node positions too.
import type { Document, Scalar } from 'yaml';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { ImportProblem } from './records.ts';
import type { Path } from './check-kit.ts';

/** Maps a field path to the line of its key (or list item) in the YAML source, falling back to the nearest known ancestor. */
export function yamlLocator(
  doc: Document,
  lineCounter: LineCounter,
  options: { lineOffset: number; rootLine?: number },
): (path: Path) => number {
  const lineAt = (offset: number) => lineCounter.linePos(offset).line + options.lineOffset;
  return (path) => {
    let node: unknown = doc.contents;
    let line = options.rootLine ?? 1;
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
        if (!pair) break;
        const keyRange = (pair.key as Scalar).range;
        if (keyRange) line = lineAt(keyRange[0]);
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment] as { range?: number[] | null } | undefined;
        if (!item) break;
        if (item.range) line = lineAt(item.range[0]);
        node = item;
      } else {
        break;
      }
    }
    return line;
  };
}

export function yamlErrorProblems(
  file: string,
  doc: Document,
  lineCounter: LineCounter,
  lineOffset: number,
): ImportProblem[] {
  const problems: ImportProblem[] = [];
  for (const error of doc.errors) {
    const line = lineCounter.linePos(error.pos[0]).line + lineOffset;
    const message = `invalid YAML: ${error.message.split('\n')[0]}`;
    if (!problems.some((p) => p.line === line && p.message === message))
      problems.push({ file, line, message });
  }
  return problems;
}

export function toPlain(file: string, doc: Document): { value?: unknown; problem?: ImportProblem } {
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return {
      problem: { file, line: 1, message: `invalid YAML: ${(error as Error).message.split('\n')[0]}` },
    };
  }
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Line lookups into a JSON text, parsed for positions only when a line is first asked for. */
export function lazyJsonLocator(text: string): (path: Path) => number {
  let locate: ((path: Path) => number) | undefined;
  return (path) => {
    if (locate === undefined) {
      const lineCounter = new LineCounter();
      const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
      locate = doc.errors.length > 0 ? () => 1 : yamlLocator(doc, lineCounter, { lineOffset: 0 });
    }
    return locate(path);
  };
}
