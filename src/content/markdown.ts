// The one markdown-it configuration shared by rendering, text statistics and anything else that reads Markdown,
// so every consumer sees the same token stream. Output HTML is unsanitised; sanitising is the caller's job.

import type { Token } from 'markdown-it';
import MarkdownIt from 'markdown-it';

// Default preset rather than 'commonmark' because authors rely on its GFM tables and strikethrough.
// Kept private so no consumer can register a plugin that silently changes what everyone else parses.
const markdownIt = new MarkdownIt('default', {
  html: true,
  linkify: false,
  typographer: false,
});

export function renderMarkdown(markdown: string): string {
  return markdownIt.render(markdown);
}

/** HTML of tokens parseMarkdown gave: rendering parses the text again otherwise. */
export function renderTokens(tokens: Token[]): string {
  return markdownIt.renderer.render(tokens, markdownIt.options, {});
}

export function parseMarkdown(markdown: string): Token[] {
  // A fresh env per call: markdown-it stores reference definitions there and they must not leak between documents.
  return markdownIt.parse(markdown, {});
}
