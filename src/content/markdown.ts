// The one markdown-it configuration shared by rendering, text statistics and anything else that reads Markdown,
// so every consumer sees the same token stream. Output HTML is unsanitised; sanitising is the caller's job.

import { createRequire } from 'node:module';
import type { Token } from 'markdown-it';
import type MarkdownItClass from 'markdown-it';

type MarkdownIt = InstanceType<typeof MarkdownItClass>;
let shared: MarkdownIt | undefined;

/**
 * Loaded on first use: only imports, writes and feeds render Markdown, and markdown-it is a
 * megabyte of heap that a server answering reads from stored HTML never needs.
 */
function markdownIt(): MarkdownIt {
  if (shared !== undefined) return shared;
  const MarkdownIt = createRequire(import.meta.url)('markdown-it') as typeof MarkdownItClass;
  // Default preset rather than 'commonmark' because authors rely on its GFM tables and strikethrough.
  // Kept private so no consumer can register a plugin that silently changes what everyone else parses.
  shared = new MarkdownIt('default', { html: true, linkify: false, typographer: false });
  return shared;
}

export function renderMarkdown(markdown: string): string {
  return markdownIt().render(markdown);
}

/** HTML of tokens parseMarkdown gave: rendering parses the text again otherwise. */
export function renderTokens(tokens: Token[]): string {
  const renderer = markdownIt();
  return renderer.renderer.render(tokens, renderer.options, {});
}

export function parseMarkdown(markdown: string): Token[] {
  // A fresh env per call: markdown-it stores reference definitions there and they must not leak between documents.
  return markdownIt().parse(markdown, {});
}
