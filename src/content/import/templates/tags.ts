// Liquid (Jekyll, Eleventy) and Nunjucks (Eleventy) tags expanded as the generators render them at
// build time, as far as a post's body decides it alone: raw text, highlight blocks, link and post_url,
// variables the body sets. Control flow, includes and the site's own tags depend on the site's data or
// templates: reported with their line, their tags removed and the text between them kept.

import type { Region } from './code-regions.ts';
import type { Reporter } from './common.ts';
import { escapeHtml, fencedBlock, placeBlock, trimLineBreaks } from './common.ts';
import type { TemplateContext } from './expand.ts';
import { evaluate, NotEvaluable, valueText } from './tag-expressions.ts';
import type { Variables } from './tag-expressions.ts';
import type { TagDialect, TagToken } from './tag-parse.ts';
import { scanTags } from './tag-parse.ts';

interface State {
  text: string;
  tokens: TagToken[];
  next: number;
  dialect: TagDialect;
  context: TemplateContext;
  reporter: Reporter;
  variables: Variables;
  /** Text kept literally (raw bodies, highlight code): delimiters inside are not errors. */
  literal: Region[];
}

interface Rendered {
  text: string;
  /** Where the text after the construct starts, when it spans past the token (a block with its end tag). */
  end?: number;
  /** The construct's last tag asks for the whitespace after it to be removed. */
  trimAfter?: boolean;
  /** A fenced code block: placed on lines of its own. */
  block?: boolean;
}

const logicTags = new Set([
  'if',
  'unless',
  'case',
  'for',
  'tablerow',
  'cycle',
  'increment',
  'decrement',
  'echo',
  'liquid',
  'macro',
  'call',
  'filter',
  'block',
  'asyncEach',
  'asyncAll',
  'ifAsync',
]);
// Branch and loop tags inside logic: removed with it, reported once at its opening tag.
const branchTags = new Set(['else', 'elsif', 'elif', 'elseif', 'when', 'break', 'continue', 'empty']);
const includeTags = new Set(['include', 'include_relative', 'render', 'import', 'from', 'extends']);

/** The end tag of a block whose body is not template code (raw, comment, highlight), found in the text itself. */
function endTag(state: State, from: number, names: string): RegExpExecArray | null {
  const end = new RegExp(`\\{%(-?)\\s*end(?:${names})\\s*(-?)%\\}`, 'g');
  end.lastIndex = from;
  return end.exec(state.text);
}

function skipTokensBefore(state: State, offset: number): void {
  while (state.next < state.tokens.length && state.tokens[state.next].start < offset) state.next += 1;
}

function unclosed(state: State, token: TagToken): Rendered {
  state.reporter.warn(
    token.start,
    'unknown-shortcode',
    `${token.name} has no end${token.name}; the tag is removed`,
  );
  return { text: '' };
}

function literalBlock(state: State, token: TagToken, names: string, keep: boolean): Rendered {
  const end = endTag(state, token.end, names);
  if (!end) return unclosed(state, token);
  skipTokensBefore(state, end.index + end[0].length);
  state.literal.push({ start: token.end, end: end.index });
  return {
    text: keep ? state.text.slice(token.end, end.index) : '',
    end: end.index + end[0].length,
    trimAfter: end[2] === '-',
  };
}

/** Liquid runs inside a highlight block in Jekyll; only {% raw %} matters there, since the rest is kept as code. */
function withoutRawMarkers(code: string): string {
  return code.replace(/\{%-?\s*(?:end)?(?:raw|verbatim)\s*-?%\}/g, '');
}

function highlight(state: State, token: TagToken): Rendered {
  const end = endTag(state, token.end, 'highlight');
  if (!end) return unclosed(state, token);
  skipTokensBefore(state, end.index + end[0].length);
  state.literal.push({ start: token.end, end: end.index });
  const words = (token.source.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? []).map((word) =>
    word.replace(/^"([^"]*)"$|^'([^']*)'$/, '$1$2'),
  );
  // Eleventy's syntaxhighlight takes "js 1,3" or "js/1,3": the language, then lines to highlight.
  const [language = '', ...rest] = words.flatMap((word, index) =>
    index === 0 ? word.split(/[\s/]+/) : [word],
  );
  for (const option of rest.filter((entry) => entry !== '')) {
    state.reporter.warn(
      token.start,
      'shortcode-option-dropped',
      `highlight option ${option} has no Markdown equivalent; the code block is kept without it`,
    );
  }
  const code = trimLineBreaks(withoutRawMarkers(state.text.slice(token.end, end.index)));
  return {
    text: fencedBlock(code, language),
    end: end.index + end[0].length,
    trimAfter: end[2] === '-',
    block: true,
  };
}

function link(state: State, token: TagToken): Rendered {
  const kind = token.name === 'link' ? 'link' : 'post_url';
  const target = token.source.replace(/^["']|["']$/g, '');
  const resolved = state.context.resolveRef(target, kind);
  if (resolved !== null) return { text: resolved };
  state.reporter.warn(
    token.start,
    'unknown-link',
    `${kind} ${target} matches no article; the target is kept as written`,
  );
  return { text: target };
}

/** jekyll-gist's tag: {% gist [user/]id [file] %} → its script tag. */
function gist(state: State, token: TagToken): Rendered {
  const [id, file] = token.source.split(/\s+/).map((word) => word.replace(/^["']|["']$/g, ''));
  if (!id) {
    state.reporter.warn(token.start, 'unknown-shortcode', 'gist needs a gist id; removed');
    return { text: '' };
  }
  const query = file ? `?file=${encodeURIComponent(file)}` : '';
  return {
    text: `<script src="https://gist.github.com/${escapeHtml(id)}.js${escapeHtml(query)}"> </script>`,
  };
}

function reportExpression(state: State, offset: number, source: string, error: unknown): void {
  if (!(error instanceof NotEvaluable)) throw error;
  state.reporter.warn(offset, 'template-expression', `${source}: ${error.message}; removed`);
}

/** The index of the token ending a block tag (nesting counted), or -1. */
function blockEnd(state: State, token: TagToken): number {
  let depth = 0;
  for (let index = state.next; index < state.tokens.length; index += 1) {
    const name = state.tokens[index].name;
    if (name === token.name) depth += 1;
    else if (name === `end${token.name}` && depth === 0) return index;
    else if (name === `end${token.name}`) depth -= 1;
  }
  return -1;
}

/** assign / set (an expression) and capture / set (a block): the body's own variables. */
function assignment(state: State, token: TagToken): Rendered {
  const inline = /^([A-Za-z_]\w*)\s*=\s*([\s\S]+)$/.exec(token.source);
  if (inline) {
    try {
      state.variables.set(inline[1], evaluate(inline[2], state.variables, state.dialect));
    } catch (error) {
      reportExpression(state, token.start, `${token.name} ${token.source}`, error);
    }
    return { text: '' };
  }
  const endIndex = blockEnd(state, token);
  if (endIndex === -1 || !/^[A-Za-z_]\w*$/.test(token.source)) return unclosed(state, token);
  const endToken = state.tokens[endIndex];
  state.variables.set(token.source, renderRange(state, token.end, endToken.start));
  state.next = endIndex + 1;
  return { text: '', end: endToken.end, trimAfter: endToken.trimAfter };
}

function unknownTag(state: State, token: TagToken): Rendered {
  const paired = state.tokens.slice(state.next).some((later) => later.name === `end${token.name}`);
  const site = state.context.options?.siteShortcodes?.includes(token.name) ?? false;
  const engine = state.dialect === 'liquid' ? 'Liquid' : 'Nunjucks';
  const what = site ? `a shortcode of this site` : `neither a ${engine} tag nor a shortcode of this site`;
  const kept = paired ? 'its tags are removed and the text between them kept' : 'removed';
  state.reporter.warn(
    token.start,
    site ? 'site-shortcode' : 'unknown-shortcode',
    `${token.name} is ${what}; ${kept}`,
  );
  return { text: '' };
}

function renderTag(state: State, token: TagToken): Rendered {
  const { name } = token;
  if (name === 'raw' || name === 'verbatim') return literalBlock(state, token, name, true);
  if (name === 'comment') return literalBlock(state, token, 'comment', false);
  if (name === 'highlight') return highlight(state, token);
  if (name === 'link' || name === 'post_url') return link(state, token);
  if (name === 'gist' && state.dialect === 'liquid') return gist(state, token);
  if (name === 'assign' || name === 'set' || name === 'capture') return assignment(state, token);
  if (branchTags.has(name) || name.startsWith('end')) return { text: '' };
  if (logicTags.has(name)) {
    state.reporter.warn(
      token.start,
      'template-logic',
      `${name} depends on the site's data at build time; its tags are removed and the text inside kept`,
    );
    return { text: '' };
  }
  if (includeTags.has(name)) {
    state.reporter.warn(
      token.start,
      'unknown-shortcode',
      `${name} ${token.source} is a template of the site; removed`,
    );
    return { text: '' };
  }
  return unknownTag(state, token);
}

function renderToken(state: State, token: TagToken): Rendered {
  if (token.type === 'comment') return { text: '' };
  if (token.type === 'tag') return renderTag(state, token);
  try {
    return { text: valueText(evaluate(token.source, state.variables, state.dialect)) };
  } catch (error) {
    reportExpression(state, token.start, `{{ ${token.source} }}`, error);
    return { text: '' };
  }
}

function renderRange(state: State, from: number, to: number): string {
  let output = '';
  let cursor = from;
  while (state.next < state.tokens.length && state.tokens[state.next].start < to) {
    const token = state.tokens[state.next];
    output += state.text.slice(cursor, token.start);
    if (token.trimBefore) output = output.trimEnd();
    state.next += 1;
    const rendered = renderToken(state, token);
    cursor = rendered.end ?? token.end;
    if (rendered.trimAfter ?? token.trimAfter)
      while (cursor < to && /\s/.test(state.text[cursor])) cursor += 1;
    if (rendered.block) {
      output += placeBlock(output, rendered.text, state.text.slice(cursor, to));
    } else {
      output += rendered.text;
    }
  }
  return output + state.text.slice(cursor, to);
}

export function expandTags(
  text: string,
  dialect: TagDialect,
  context: TemplateContext,
  reporter: Reporter,
): string {
  const { tokens, malformed } = scanTags(text, dialect);
  const state: State = {
    text,
    tokens,
    next: 0,
    dialect,
    context,
    reporter,
    variables: new Map(Object.entries(context.options?.variables ?? {})),
    literal: [],
  };
  const output = renderRange(state, 0, text.length);
  for (const offset of malformed) {
    if (state.literal.some((region) => region.start <= offset && offset < region.end)) continue;
    reporter.warn(
      offset,
      'unknown-shortcode',
      'a template delimiter that opens no valid tag; kept as written',
    );
  }
  return output;
}
