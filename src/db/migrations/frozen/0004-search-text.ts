// What migration 0004 derives from an article: its search text (title, excerpt and the plain text
// of its Markdown, lower-cased), copied from content/ as it was when copied. Frozen: a later change
// to how content/ derives the text must not change what an old migration does.
import type { Token } from 'markdown-it';
import MarkdownIt from 'markdown-it';

// The markdown-it configuration content/ parsed with.
const markdownIt = new MarkdownIt('default', { html: true, linkify: false, typographer: false });

export function plainTextOf(markdown: string): string {
  // A fresh env per call: markdown-it stores reference definitions there.
  return plainTextOfTokens(markdownIt.parse(markdown, {}));
}

function plainTextOfTokens(tokens: Token[]): string {
  const blocks: string[] = [];
  for (const token of tokens) {
    let text = '';
    if (token.type === 'inline') {
      text = inlineText(token.children ?? []);
    } else if (token.type === 'fence' || token.type === 'code_block') {
      text = token.content.replace(/\n$/, '');
    }
    // Blocks are joined by newlines so words of adjacent paragraphs, cells or items never merge;
    // blocks that yield nothing (image-only paragraphs, html_block) are dropped to avoid blank lines.
    if (text.trim() !== '') blocks.push(text);
  }
  return blocks.join('\n');
}

function inlineText(children: Token[]): string {
  let text = '';
  let insideAutolink = false;
  for (const child of children) {
    switch (child.type) {
      case 'link_open':
        // The text of an autolink is its URL, which the contract excludes.
        insideAutolink = child.markup === 'autolink' || child.markup === 'linkify';
        break;
      case 'link_close':
        insideAutolink = false;
        break;
      case 'text':
      case 'text_special':
        if (!insideAutolink) text += child.content;
        break;
      case 'code_inline':
        text += child.content;
        break;
      case 'softbreak':
        text += ' ';
        break;
      case 'hardbreak':
        text += '\n';
        break;
      // image (alt text included), html_inline and emphasis markers contribute nothing.
    }
  }
  return text;
}

// Greek has two lower-case sigmas, σ and the word-final ς, which toLowerCase chooses by context:
// both sides are written with σ so that every form of the letter matches the others.
const FINAL_SIGMA = /ς/gu;

/**
 * A search term or stored text as compared: lower-cased, every sigma written σ, and a lone half of
 * a surrogate pair written U+FFFD, as both databases store it (so that the keys of the article
 * sets, built from this text, are the strings stored).
 */
function searchKey(text: string): string {
  return text.toLowerCase().replace(FINAL_SIGMA, 'σ').toWellFormed();
}

/**
 * The stored search text of an article. Fields are joined by a newline: a term never holds
 * whitespace, so it never matches across two fields. PostgreSQL cannot store a NUL: none is kept.
 */
export function searchTextOf(title: string, excerpt: string | null, plainText: string): string {
  return searchKey([title, excerpt ?? '', plainText].join('\n')).replaceAll('\u0000', '');
}
