// Derives an article's plain text, word and character counts, image count, reading time and summary
// from its Markdown. The plain text is what a reader sees: no Markdown syntax, link URLs, image
// paths or HTML tags; the reading time is words at 275 a minute plus 12 s for the first image,
// one second less for each next one down to 3 s.
import type { Token } from 'markdown-it';
import { parseMarkdown } from './markdown.ts';

export interface TextStats {
  plainText: string;
  wordCount: number;
  characterCount: number;
  imageCount: number;
  readTimeMinutes: number;
}

const WORDS_PER_MINUTE = 275;
const FIRST_IMAGE_SECONDS = 12;
const MIN_IMAGE_SECONDS = 3;

// Ideographs, kana and Hangul syllables are words on their own because those scripts do not separate words
// with spaces. Trailing combining marks (e.g. variation selectors) belong to the character they modify.
// Everything else is a run of letters, digits, marks, apostrophes and hyphens, minus those CJK characters.
const WORD_PATTERN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]\p{M}*|[[\p{L}\p{N}\p{M}'’\-]--[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]]+/gv;
const CJK_START = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/v;
// Runs of only apostrophes, hyphens or stray combining marks carry no word.
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const WHITESPACE = /\s/u;
const WHITESPACE_RUNS = /\s+/gu;

export function plainTextOf(markdown: string): string {
  return plainTextOfTokens(parseMarkdown(markdown));
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
        // The text of an autolink is its URL, and URLs are not text a reader reads.
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

export function countWords(plainText: string): number {
  let count = 0;
  for (const [match] of plainText.matchAll(WORD_PATTERN)) {
    if (CJK_START.test(match) || LETTER_OR_DIGIT.test(match)) count++;
  }
  return count;
}

export function countCharacters(plainText: string): number {
  let count = 0;
  // for…of walks code points, so an astral emoji is one character rather than two UTF-16 units.
  for (const char of plainText) {
    if (!WHITESPACE.test(char)) count++;
  }
  return count;
}

export function readTimeMinutes(wordCount: number, imageCount: number): number {
  assertCount('wordCount', wordCount);
  assertCount('imageCount', imageCount);
  if (wordCount === 0 && imageCount === 0) return 0;
  // Work in 1/55 s so that 60/275 s per word stays an integer and the half-minute boundary rounds exactly.
  const unitsPerSecond = 55;
  const unitsPerWord = (60 * unitsPerSecond) / WORDS_PER_MINUTE;
  const units = wordCount * unitsPerWord + imageSeconds(imageCount) * unitsPerSecond;
  const unitsPerMinute = 60 * unitsPerSecond;
  const minutes = Math.floor((units + unitsPerMinute / 2) / unitsPerMinute);
  return Math.max(minutes, 1);
}

function imageSeconds(imageCount: number): number {
  // The k-th image takes 13 - k seconds (12, 11, … 3) and every image after the tenth takes 3.
  const tapering = Math.min(imageCount, FIRST_IMAGE_SECONDS - MIN_IMAGE_SECONDS + 1);
  const taperingSeconds = tapering * (FIRST_IMAGE_SECONDS + 1) - (tapering * (tapering + 1)) / 2;
  return taperingSeconds + (imageCount - tapering) * MIN_IMAGE_SECONDS;
}

function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

function countImages(tokens: Token[]): number {
  let count = 0;
  for (const token of tokens) {
    if (token.type !== 'inline') continue;
    // Only direct children: an image nested in another image's alt text renders as alt text, not as an image.
    for (const child of token.children ?? []) {
      if (child.type === 'image') count++;
    }
  }
  return count;
}

export function textStats(markdown: string, options: { hasCoverImage?: boolean } = {}): TextStats {
  return textStatsOfTokens(parseMarkdown(markdown), options);
}

/** textStats of the tokens parseMarkdown gave, for a caller that renders them too. */
export function textStatsOfTokens(tokens: Token[], options: { hasCoverImage?: boolean } = {}): TextStats {
  const plainText = plainTextOfTokens(tokens);
  const wordCount = countWords(plainText);
  const imageCount = countImages(tokens) + (options.hasCoverImage ? 1 : 0);
  return {
    plainText,
    wordCount,
    characterCount: countCharacters(plainText),
    imageCount,
    readTimeMinutes: readTimeMinutes(wordCount, imageCount),
  };
}

export function summarize(plainText: string, maxLength = 160): string {
  if (!Number.isSafeInteger(maxLength) || maxLength < 1) {
    throw new RangeError(`maxLength must be a positive integer, got ${maxLength}`);
  }
  const text = plainText.replace(WHITESPACE_RUNS, ' ').trim();
  const limit = utf16IndexAfter(text, maxLength);
  if (limit === text.length) return text;

  // One code point of the budget goes to the ellipsis.
  const budget = utf16IndexAfter(text, maxLength - 1);
  const cut = lastWordBoundary(text, budget) || lastGraphemeBoundary(text, budget) || budget;
  return text.slice(0, cut).trimEnd() + '…';
}

// UTF-16 index just past the first `codePoints` code points (or the string's length if it is shorter).
function utf16IndexAfter(text: string, codePoints: number): number {
  let index = 0;
  for (let seen = 0; seen < codePoints && index < text.length; seen++) {
    index += text.codePointAt(index)! > 0xffff ? 2 : 1;
  }
  return index;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

// A word boundary is any grapheme boundary that does not fall inside a word as countWords sees it. That covers
// spaces and punctuation, and also the gap between two CJK characters, since each of them is a word: cutting only
// at spaces would shrink a mostly Chinese summary to its first space-delimited fragment.
function lastWordBoundary(text: string, end: number): number {
  const words = text.matchAll(WORD_PATTERN);
  let word = words.next();
  let best = 0;
  for (const { index, segment } of graphemes.segment(text)) {
    const boundary = index + segment.length;
    if (boundary > end) break;
    while (!word.done && word.value.index + word.value[0].length <= boundary) word = words.next();
    const insideWord = !word.done && word.value.index < boundary;
    if (!insideWord) best = boundary;
  }
  return best;
}

// A word too long for the limit is hard-cut, but still at a grapheme boundary so no accent or emoji sequence is
// torn apart; only when even the first grapheme does not fit does the caller fall back to code points.
function lastGraphemeBoundary(text: string, end: number): number {
  let best = 0;
  for (const { index, segment } of graphemes.segment(text)) {
    if (index + segment.length > end) break;
    best = index + segment.length;
  }
  return best;
}
