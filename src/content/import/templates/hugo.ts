// Hugo shortcodes expanded as Hugo's embedded templates render them; any other name is the site's own
// template or unknown, reported with its line, its inner text kept when it has a closer.

import type { Reporter } from './common.ts';
import { deindent, escapeHtml, fencedBlock, markdownify, placeBlock, trimLineBreaks } from './common.ts';
import { figureHtml, gistHtml, vimeoHtml, youtubeHtml } from './hugo-embeds.ts';
import type { ShortcodeToken } from './hugo-parse.ts';
import { scanShortcodes } from './hugo-parse.ts';
import type { TemplateContext } from './expand.ts';

interface State {
  text: string;
  tokens: ShortcodeToken[];
  next: number;
  context: TemplateContext;
  reporter: Reporter;
}

// Built-ins that never take inner content: a closer after them is not theirs.
const singleBuiltins = new Set([
  'figure',
  'youtube',
  'vimeo',
  'vimeo_simple',
  'gist',
  'ref',
  'relref',
  'param',
  'x',
  'x_simple',
  'twitter',
  'twitter_simple',
  'instagram',
  'instagram_simple',
]);

/** The index of the token closing `opener` (same name, nesting counted), or -1. */
function findCloser(state: State, opener: ShortcodeToken): number {
  if (opener.selfClosing || singleBuiltins.has(opener.name)) return -1;
  let depth = 0;
  for (let index = state.next; index < state.tokens.length; index += 1) {
    const token = state.tokens[index];
    if (token.name !== opener.name || token.literal !== undefined) continue;
    if (!token.closing && !token.selfClosing) depth += 1;
    else if (token.closing && depth === 0) return index;
    else if (token.closing) depth -= 1;
  }
  return -1;
}

function highlight(state: State, opener: ShortcodeToken, body: string): string {
  const language = opener.args.named.get('lang') ?? opener.args.positional[0] ?? '';
  const options = opener.args.named.get('options') ?? opener.args.positional[1] ?? '';
  // Chroma's options are comma-separated key=value pairs; hl_lines may hold spaces ("hl_lines=2 3").
  for (const option of options.split(/\s*,\s*/).filter((entry) => entry !== '')) {
    state.reporter.warn(
      opener.start,
      'shortcode-option-dropped',
      `highlight option ${option} has no Markdown equivalent; the code block is kept without it`,
    );
  }
  return fencedBlock(deindent(trimLineBreaks(body)), language);
}

function reference(state: State, token: ShortcodeToken): string {
  const kind = token.name === 'ref' ? 'ref' : 'relref';
  const written = token.args.named.get('path') ?? token.args.positional[0] ?? '';
  const hash = written.indexOf('#');
  const target = hash === -1 ? written : written.slice(0, hash);
  const fragment = hash === -1 ? '' : written.slice(hash);
  if (target === '') return fragment;
  const resolved = state.context.resolveRef(target, kind);
  if (resolved === null) {
    state.reporter.warn(
      token.start,
      'unknown-link',
      `${kind} "${written}" matches no article; the target is kept as written`,
    );
    return written;
  }
  return resolved + fragment;
}

function missingArgument(state: State, token: ShortcodeToken): string {
  state.reporter.warn(
    token.start,
    'unknown-shortcode',
    `${token.name} needs an argument it was not given; removed`,
  );
  return '';
}

/** A shortcode without inner content, as its embedded template renders it. */
function renderSingle(state: State, token: ShortcodeToken): string {
  const options = state.context.options ?? {};
  switch (token.name) {
    case 'youtube':
      return youtubeHtml(token.args, options) ?? missingArgument(state, token);
    case 'vimeo':
    case 'vimeo_simple':
      return vimeoHtml(token.args, options) ?? missingArgument(state, token);
    case 'gist':
      return gistHtml(token.args) ?? missingArgument(state, token);
    case 'figure': {
      const src = token.args.named.get('src');
      const absolute = src !== undefined && /^([a-z][a-z\d+.-]*:|\/\/)/i.test(src);
      const resolved =
        src && !absolute && state.context.resolveResource ? state.context.resolveResource(src) : src;
      return figureHtml(token.args, resolved) ?? missingArgument(state, token);
    }
    case 'ref':
    case 'relref':
      return reference(state, token);
    case 'param':
      return param(state, token);
    case 'x':
    case 'x_simple':
    case 'twitter':
    case 'twitter_simple':
    case 'instagram':
    case 'instagram_simple':
      return socialLink(state, token);
    case 'highlight':
    case 'details':
    case 'comment':
      state.reporter.warn(
        token.start,
        'unknown-shortcode',
        `${token.name} has no closing /${token.name}; removed`,
      );
      return '';
    case 'qr':
      state.reporter.warn(token.start, 'unknown-shortcode', 'qr draws its image at build time; removed');
      return '';
    default:
      reportUnknown(state, token, false);
      return '';
  }
}

/** param: the page's or site's parameter, when the reader gave it (options.variables). */
function param(state: State, token: ShortcodeToken): string {
  const name = token.args.named.get('name') ?? token.args.positional[0] ?? '';
  const value = state.context.options?.variables?.[name];
  if (value !== undefined && value !== null) return String(value);
  state.reporter.warn(
    token.start,
    'unknown-shortcode',
    `param ${name} is not a parameter the import knows; removed`,
  );
  return '';
}

/**
 * x, twitter and instagram fetch their HTML from the network at build time (oEmbed), which an import
 * must not depend on: the post becomes a link to it, and the report says so.
 */
function socialLink(state: State, token: ShortcodeToken): string {
  const url = socialUrl(token);
  if (url === null) return missingArgument(state, token);
  state.reporter.warn(
    token.start,
    'embed-as-link',
    `${token.name} is rendered by Hugo from the network at build time; kept as a link to ${url}`,
  );
  return `<p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`;
}

function socialUrl(token: ShortcodeToken): string | null {
  const { named, positional } = token.args;
  if (token.name.startsWith('instagram')) {
    const id = named.get('id') ?? positional[0];
    return id ? `https://www.instagram.com/p/${encodeURIComponent(id)}/` : null;
  }
  const user = named.get('user') ?? positional[0];
  const id = named.get('id') ?? positional[1];
  return user && id ? `https://x.com/${encodeURIComponent(user)}/status/${encodeURIComponent(id)}` : null;
}

function reportUnknown(state: State, token: ShortcodeToken, paired: boolean): void {
  const site = state.context.options?.siteShortcodes?.includes(token.name) ?? false;
  const kept = paired ? 'its inner text is kept' : 'removed';
  state.reporter.warn(
    token.start,
    site ? 'site-shortcode' : 'unknown-shortcode',
    site
      ? `${token.name} is a shortcode of this site (layouts/_shortcodes); it cannot be rendered at import, ${kept}`
      : `${token.name} is neither a Hugo built-in nor a shortcode of this site; ${kept}`,
  );
}

function details(state: State, opener: ShortcodeToken, inner: string): string {
  const { named } = opener.args;
  const attribute = (name: string): string =>
    named.get(name) ? ` ${name}="${escapeHtml(named.get(name)!)}"` : '';
  const open = ['true', '1'].includes(named.get('open') ?? '') ? ' open' : '';
  const attributes = `${attribute('class')}${attribute('name')}${open}${attribute('title')}`;
  const summary = markdownify(named.get('summary') ?? 'Details');
  // Blank lines around the inner text let Markdown render it inside the HTML block.
  return `<details${attributes}>\n<summary>${summary}</summary>\n\n${inner.trim()}\n\n</details>`;
}

/** An inline shortcode's body is a Go template run at build time: nothing of it can be kept as text. */
function inlineShortcode(state: State, opener: ShortcodeToken): string {
  state.reporter.warn(
    opener.start,
    'unknown-shortcode',
    `${opener.name} is an inline shortcode, a Go template run at build time; removed`,
  );
  return '';
}

/** A shortcode with inner content; tokens inside the body are consumed here. */
function renderPaired(state: State, opener: ShortcodeToken, closerIndex: number): string {
  const closer = state.tokens[closerIndex];
  const body = state.text.slice(opener.end, closer.start);
  let result: string;
  if (opener.name === 'highlight') result = highlight(state, opener, body);
  else if (opener.name === 'comment') result = '';
  else if (opener.name === 'qr') result = renderSingle(state, opener);
  else if (opener.name.endsWith('.inline')) result = inlineShortcode(state, opener);
  else {
    const inner = renderRange(state, opener.end, closer.start);
    if (opener.name === 'details') result = details(state, opener, inner);
    else {
      reportUnknown(state, opener, true);
      result = inner;
    }
  }
  state.next = closerIndex + 1;
  return result;
}

const blockShortcodes = new Set(['highlight', 'details']);

function renderRange(state: State, from: number, to: number): string {
  let output = '';
  let cursor = from;
  while (state.next < state.tokens.length && state.tokens[state.next].start < to) {
    const token = state.tokens[state.next];
    output += state.text.slice(cursor, token.start);
    state.next += 1;
    cursor = token.end;
    if (token.literal !== undefined) {
      output += token.literal;
      continue;
    }
    if (token.closing) {
      state.reporter.warn(
        token.start,
        'unknown-shortcode',
        `closing /${token.name} without an opening ${token.name}; removed`,
      );
      continue;
    }
    const closerIndex = findCloser(state, token);
    const rendered =
      closerIndex === -1 ? renderSingle(state, token) : renderPaired(state, token, closerIndex);
    if (closerIndex !== -1) cursor = state.tokens[closerIndex].end;
    if (blockShortcodes.has(token.name)) {
      output += placeBlock(output, rendered, state.text.slice(cursor, to));
    } else {
      output += rendered;
    }
  }
  return output + state.text.slice(cursor, to);
}

export function expandHugo(text: string, context: TemplateContext, reporter: Reporter): string {
  const { tokens, malformed } = scanShortcodes(text);
  for (const offset of malformed) {
    reporter.warn(
      offset,
      'unknown-shortcode',
      'a shortcode delimiter that opens no valid shortcode call; kept as written',
    );
  }
  const state: State = { text, tokens, next: 0, context, reporter };
  return renderRange(state, 0, text.length);
}
